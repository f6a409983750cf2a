//! Schedules run: the engine fires what is due, counts the runs against `max_runs`, moves the
//! next time on, and re-runs the scope (a root's tree, a child and what it depends on).

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::{Server, cmd, id};

/// Waits until task `n`'s `run_count` reaches `runs` and its tree has ended; returns the task.
fn wait_runs(s: &Server, n: u32, runs: u64) -> Value {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let t = s.ok("tasks.get", &json!({"task_id": id(n)}));
        if t["run_count"].as_u64() >= Some(runs)
            && s.tasks(&id(1)).iter().all(|x| {
                matches!(
                    x["status"].as_str(),
                    Some("completed" | "failed" | "cancelled")
                )
            })
        {
            return t;
        }
        assert!(Instant::now() < deadline, "never ran {runs} times: {t:#}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn an_interval_schedule_runs_its_tree_at_each_due_time_until_max_runs() {
    let s = Server::start();
    let log = s.dir.path().join("runs.log");
    let created = s.ok(
        "tasks.create",
        &json!({"tasks": [
            {"id": id(1), "name": "every second", "schemas": {"method": "aggregate_results"},
             "dependencies": [{"id": id(2), "required": true}],
             "schedule_enabled": true, "schedule_type": "interval", "schedule_expression": "1",
             "max_runs": 2},
            cmd(2, Some(1), &format!("date +%s%N >> {}", log.display()), &json!({})),
        ]}),
    );
    assert_eq!(created["status"], "pending");
    let planned = s.ok("tasks.get", &json!({"task_id": id(1)}));
    assert!(planned["next_run_at"].is_string(), "{planned:#}");
    assert_eq!(planned["run_count"], 0);
    let started = Instant::now();
    let done = wait_runs(&s, 1, 2);
    // Two runs, about a second apart, then the schedule ended.
    assert!(started.elapsed() >= Duration::from_millis(1500), "{done:#}");
    assert_eq!(done["run_count"], 2);
    assert_eq!(done["schedule_enabled"], false);
    assert_eq!(done["next_run_at"], Value::Null);
    assert!(done["last_run_at"].is_string());
    std::thread::sleep(Duration::from_millis(1500));
    let lines = std::fs::read_to_string(&log).unwrap();
    assert_eq!(lines.lines().count(), 2, "{lines}");
    assert_eq!(
        s.ok("tasks.get", &json!({"task_id": id(1)}))["run_count"],
        2
    );
}

#[test]
fn a_weekly_schedule_in_the_data_model_s_syntax_is_planned_and_listed() {
    let s = Server::start_with(|o| o.concurrency = 0);
    s.ok(
        "tasks.create",
        &json!({"id": id(1), "name": "weekly", "schemas": {"method": "aggregate_results"},
                "schedule_enabled": true, "schedule_type": "weekly",
                "schedule_expression": "mon,wed@09:30"}),
    );
    let t = s.ok("tasks.get", &json!({"task_id": id(1)}));
    let next = t["next_run_at"].as_str().unwrap();
    assert!(next.ends_with("T09:30:00Z"), "{t:#}");
    let listed = s.ok("tasks.scheduled.list", &json!({}));
    assert_eq!(listed[0]["id"], id(1).as_str(), "{listed:#}");
    // Not due yet.
    assert_eq!(s.ok("tasks.scheduled.due", &json!({})), json!([]));
    let due = s.ok(
        "tasks.scheduled.due",
        &json!({"before": "2099-01-01T00:00:00Z"}),
    );
    assert_eq!(due[0]["id"], id(1).as_str(), "{due:#}");
    // The scheduler computes it; a client may not write it.
    let e = s.err(
        "tasks.update",
        &json!({"task_id": id(1), "updates": {"next_run_at": "2030-01-01T00:00:00Z"}}),
    );
    assert_eq!(e["code"], -32602);
    // Turning it off clears the next time.
    s.ok(
        "tasks.update",
        &json!({"task_id": id(1), "updates": {"schedule_enabled": false}}),
    );
    let t = s.ok("tasks.get", &json!({"task_id": id(1)}));
    assert_eq!(t["next_run_at"], Value::Null);
    assert_eq!(s.ok("tasks.scheduled.list", &json!({})), json!([]));
    let all = s.ok("tasks.scheduled.list", &json!({"enabled_only": false}));
    assert_eq!(all[0]["id"], id(1).as_str(), "{all:#}");
}
