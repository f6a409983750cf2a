//! The protocol's lifecycle examples, end to end with the `command` executor: sequential,
//! parallel, failure, optional dependency, priority, re-execution, copy; and what the
//! lifecycle sets on each task.

use serde_json::{Value, json};

use crate::common::{Server, cmd, find, id};

fn time(t: &Value, key: &str) -> jiff::Timestamp {
    t[key].as_str().unwrap().parse().unwrap()
}

#[test]
fn sequential_tasks_run_one_after_another_and_the_lifecycle_fields_are_set() {
    let s = Server::start();
    let root = s.ok(
        "tasks.execute",
        &json!({"tasks": [
            cmd(1, None, "echo three", &json!({"dependencies": [id(3)]})),
            cmd(2, Some(1), "echo one", &json!({})),
            cmd(3, Some(1), "echo two", &json!({"dependencies": [id(2)]})),
        ]}),
    );
    assert_eq!(root["queued"], 3);
    let tasks = s.wait(&id(1));
    for n in 1..=3 {
        let t = find(&tasks, n);
        assert_eq!(t["status"], "completed", "{t:#}");
        assert_eq!(t["progress"], 1.0);
        assert_eq!(t["result"]["exit_code"], 0);
        assert!(time(t, "started_at") <= time(t, "completed_at"));
    }
    assert!(time(find(&tasks, 2), "completed_at") <= time(find(&tasks, 3), "started_at"));
    assert!(time(find(&tasks, 3), "completed_at") <= time(find(&tasks, 1), "started_at"));
    assert_eq!(find(&tasks, 3)["result"]["stdout"], "two\n");
}

#[test]
fn independent_tasks_run_at_the_same_time() {
    let s = Server::start();
    s.ok(
        "tasks.execute",
        &json!({"tasks": [
            cmd(1, None, "true", &json!({"dependencies": [id(2), id(3)]})),
            cmd(2, Some(1), "sleep 0.6", &json!({})),
            cmd(3, Some(1), "sleep 0.6", &json!({})),
        ]}),
    );
    let tasks = s.wait(&id(1));
    let (a, b) = (find(&tasks, 2), find(&tasks, 3));
    assert!(
        time(a, "started_at") < time(b, "completed_at")
            && time(b, "started_at") < time(a, "completed_at"),
        "the two sleeps did not overlap: {a:#} {b:#}"
    );
}

#[test]
fn a_failed_required_dependency_cancels_its_dependents_and_the_tree_ends() {
    let s = Server::start();
    s.ok(
        "tasks.execute",
        &json!({"tasks": [
            cmd(1, None, "true", &json!({"dependencies": [id(3)]})),
            cmd(2, Some(1), "echo broke >&2; exit 3", &json!({})),
            cmd(3, Some(1), "true", &json!({"dependencies": [id(2)]})),
        ]}),
    );
    let tasks = s.wait(&id(1));
    let failed = find(&tasks, 2);
    assert_eq!(failed["status"], "failed");
    assert_eq!(
        failed["error_details"]["message"],
        "the command exited with code 3"
    );
    assert_eq!(failed["error_details"]["exit_code"], 3);
    assert_eq!(failed["error_details"]["stderr"], "broke\n");
    for n in [3, 1] {
        let t = find(&tasks, n);
        assert_eq!(t["status"], "cancelled", "{t:#}");
        assert_eq!(t["error_details"]["reason"], "dependency_not_satisfied");
    }
    assert_eq!(
        find(&tasks, 3)["error_details"]["dependency"],
        id(2).as_str()
    );
}

#[test]
fn an_optional_dependency_only_has_to_end() {
    let s = Server::start();
    s.ok(
        "tasks.execute",
        &json!({"tasks": [
            cmd(1, None, "true", &json!({"dependencies": [{"id": id(2), "required": false}], "schemas": {"method": "aggregate_results"}})),
            cmd(2, Some(1), "exit 1", &json!({})),
        ]}),
    );
    let tasks = s.wait(&id(1));
    assert_eq!(find(&tasks, 2)["status"], "failed");
    let root = find(&tasks, 1);
    assert_eq!(root["status"], "completed");
    assert_eq!(root["result"]["results"][id(2)], Value::Null);
}

#[test]
fn ready_tasks_run_by_priority_zero_first() {
    let s = Server::start_with(|o| o.concurrency = 1);
    // Created (not started) first, so that all four are ready together.
    s.ok(
        "tasks.create",
        &json!({"tasks": [
            cmd(1, None, "true", &json!({"priority": 3, "dependencies": [id(2), id(3), id(4), id(5)]})),
            cmd(2, Some(1), "true", &json!({"priority": 3})),
            cmd(3, Some(1), "true", &json!({"priority": 0})),
            cmd(4, Some(1), "true", &json!({"priority": 2})),
            cmd(5, Some(1), "true", &json!({"priority": 1})),
        ]}),
    );
    s.ok("tasks.execute", &json!({"task_id": id(1)}));
    let tasks = s.wait(&id(1));
    let mut order: Vec<(jiff::Timestamp, u32)> = (2..=5)
        .map(|n| (time(find(&tasks, n), "started_at"), n))
        .collect();
    order.sort();
    assert_eq!(
        order.iter().map(|(_, n)| *n).collect::<Vec<_>>(),
        [3, 5, 4, 2]
    );
}

#[test]
fn a_failed_tree_is_executed_again_from_its_failures() {
    let s = Server::start();
    let marker = s.dir.path().join("ready");
    let check = format!("test -e {}", marker.display());
    s.ok(
        "tasks.execute",
        &json!({"tasks": [
            cmd(1, None, "true", &json!({"dependencies": [id(3)]})),
            cmd(2, Some(1), &check, &json!({})),
            cmd(3, Some(1), "echo after", &json!({"dependencies": [id(2)]})),
            cmd(4, Some(1), "echo independent", &json!({})),
        ]}),
    );
    let first = s.wait(&id(1));
    assert_eq!(find(&first, 2)["status"], "failed");
    assert_eq!(find(&first, 3)["status"], "cancelled");
    let kept = find(&first, 4)["completed_at"].clone();
    std::fs::write(&marker, "").unwrap();
    let again = s.ok("tasks.execute", &json!({"task_id": id(1)}));
    assert_eq!(again["reset"], 3, "{again:#}");
    assert_eq!(again["completed"], 1);
    let second = s.wait(&id(1));
    for n in 1..=4 {
        assert_eq!(find(&second, n)["status"], "completed", "{second:#?}");
    }
    // The completed task kept its run; the failed one's error is gone.
    assert_eq!(find(&second, 4)["completed_at"], kept);
    assert!(find(&second, 2)["error"].is_null());
}

#[test]
fn a_failed_task_goes_back_to_pending_with_its_fields_reset() {
    let s = Server::start_with(|o| o.concurrency = 0);
    s.ok("tasks.create", &cmd(1, None, "true", &json!({})));
    s.ok(
        "tasks.update",
        &json!({"task_id": id(1), "status": "in_progress"}),
    );
    s.ok(
        "tasks.update",
        &json!({"task_id": id(1), "status": "failed", "error": {"message": "x"}, "progress": 0.4}),
    );
    let t = s.ok(
        "tasks.update",
        &json!({"task_id": id(1), "status": "pending"}),
    );
    for key in ["error", "result", "started_at", "completed_at"] {
        assert!(t[key].is_null(), "{key} kept: {t:#}");
    }
    assert_eq!(t["progress"], 0.0, "{t:#}");
}

#[test]
fn a_copy_runs_on_its_own() {
    let s = Server::start();
    s.ok(
        "tasks.execute",
        &json!({"tasks": [
            cmd(1, None, "true", &json!({"dependencies": [id(2)]})),
            cmd(2, Some(1), "echo original", &json!({})),
        ]}),
    );
    s.wait(&id(1));
    let copy = s.ok(
        "tasks.copy",
        &json!({"task_id": id(1), "copy_children": true}),
    );
    let root = copy["root_id"].as_str().unwrap();
    s.ok("tasks.execute", &json!({"task_id": root}));
    let tasks = s.wait(root);
    assert_eq!(tasks.len(), 2);
    assert!(tasks.iter().all(|t| t["status"] == "completed"));
    // The original was not run again.
    assert_eq!(
        s.ok("tasks.list", &json!({"status": "completed"}))["total"],
        4
    );
}

#[test]
fn cancelling_stops_a_running_command_and_its_dependents() {
    let s = Server::start();
    s.ok(
        "tasks.execute",
        &json!({"tasks": [
            cmd(1, None, "true", &json!({"dependencies": [id(2)]})),
            cmd(2, Some(1), "sleep 30", &json!({})),
        ]}),
    );
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while s.ok("tasks.get", &json!({"task_id": id(2)}))["status"] != "in_progress" {
        assert!(std::time::Instant::now() < deadline);
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let started = std::time::Instant::now();
    let answer = s.ok(
        "tasks.cancel",
        &json!({"task_id": id(2), "reason": "no longer needed"}),
    );
    assert_eq!(answer["cancelled"], json!([id(2), id(1)]));
    let tasks = s.wait(&id(1));
    assert!(started.elapsed().as_secs() < 10);
    assert_eq!(
        find(&tasks, 2)["error_details"]["message"],
        "no longer needed"
    );
    // The stopped run recorded nothing over the cancellation.
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert_eq!(
        s.ok("tasks.get", &json!({"task_id": id(2)}))["status"],
        "cancelled"
    );
}

#[test]
fn inputs_are_checked_against_input_schema_before_running() {
    let s = Server::start();
    s.ok("tasks.execute", &cmd(1, None, "true", &json!({
        "schemas": {"method": "command", "input_schema": {"type": "object", "required": ["command"], "properties": {"command": {"type": "string"}}}},
    })));
    let tasks = s.wait(&id(1));
    assert_eq!(find(&tasks, 1)["status"], "completed");
    // An update that breaks the schema is refused with every problem.
    let e = s.err(
        "tasks.update",
        &json!({"task_id": id(1), "inputs": {"command": 5}}),
    );
    assert_eq!(e["code"], -32005);
}

#[test]
fn a_root_waiting_for_many_tasks_starts_after_the_last_and_again_after_a_retry() {
    fan_in_with_a_retry(&Server::start_with(|o| o.concurrency = 4));
}

/// A root waiting for 120 tasks (its count kept through staged completions), one of which
/// fails the first time: the root is cancelled, then, run again, waits for the rerun.
pub(crate) fn fan_in_with_a_retry(s: &Server) {
    let marker = s.dir.path().join("failed-once");
    let flaky = format!(
        "test -f {m} || {{ touch {m}; exit 1; }}",
        m = marker.display()
    );
    let n = 120;
    let deps: Vec<Value> = (1..=n).map(|i| json!(id(i))).collect();
    let mut tasks = vec![json!({"id": id(0), "name": "root",
        "schemas": {"method": "aggregate_results"}, "dependencies": deps})];
    for i in 1..=n {
        let command = if i == 60 { flaky.as_str() } else { "true" };
        tasks.push(cmd(i, Some(0), command, &json!({})));
    }
    s.ok("tasks.execute", &json!({"tasks": tasks}));
    let first = s.wait(&id(0));
    assert_eq!(find(&first, 0)["status"], "cancelled");
    assert_eq!(find(&first, 60)["status"], "failed");
    // Run again: only the failure and the root run; the root waits for the failure's rerun.
    s.ok("tasks.execute", &json!({"task_id": id(0)}));
    let second = s.wait(&id(0));
    let root = find(&second, 0);
    assert_eq!(root["status"], "completed", "{root:#}");
    assert_eq!(root["result"]["count"], n);
    assert!(time(root, "started_at") >= time(find(&second, 60), "completed_at"));
}

#[test]
fn a_result_too_deep_to_keep_fails_its_task_and_the_tree_still_ends() {
    // Each `aggregate_results` holds the result of the one before: nesting grows by two a step.
    let s = Server::start();
    let n = 60;
    let mut tasks = vec![json!({"id": id(0), "name": "chain"})];
    for i in 1..=n {
        let mut t = json!({"id": id(i), "name": format!("c{i}"), "parent_id": id(0),
                           "schemas": {"method": "aggregate_results"}});
        if i > 1 {
            t["dependencies"] = json!([id(i - 1)]);
        }
        tasks.push(t);
    }
    s.ok("tasks.execute", &json!({"tasks": tasks}));
    let ended = s.wait(&id(0));
    let failed: Vec<&Value> = ended.iter().filter(|t| t["status"] == "failed").collect();
    assert_eq!(failed.len(), 1, "{ended:#?}");
    assert!(
        failed[0]["error"].as_str().unwrap().contains("levels deep"),
        "{:#}",
        failed[0]
    );
    // Those before it completed; those after it were cancelled, not left waiting.
    assert!(ended.iter().any(|t| t["status"] == "completed"));
    assert!(ended.iter().any(|t| t["status"] == "cancelled"));
}
