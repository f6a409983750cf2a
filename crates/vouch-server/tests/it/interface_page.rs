//! The protocol's interface page (`docs/protocol/06-interfaces.md` in apflow), method by
//! method: each request in the page's exact shape, each answer holding the page's result keys
//! (vouch's own keys may come beside them), and the validation page's two-error example.

use serde_json::{Value, json};

use crate::common::{Server, id};

/// Asserts that `answer` holds every key of `keys`.
fn has_keys(answer: &Value, keys: &[&str]) {
    for key in keys {
        assert!(answer.get(key).is_some(), "no `{key}` in {answer:#}");
    }
}

/// Creates the page's one task (`tasks.create` as the page writes it) and returns its id.
fn create(s: &Server) -> String {
    let answer = s.ok(
        "tasks.create",
        &json!({
            "name": "Task Name", "user_id": "user123", "parent_id": null, "priority": 2,
            "inputs": {}, "schemas": {"method": "aggregate_results"}, "dependencies": []
        }),
    );
    has_keys(&answer, &["id", "status"]);
    assert_eq!(answer["status"], "pending");
    answer["id"].as_str().unwrap().to_owned()
}

#[test]
fn create_and_get_as_the_page_writes_them() {
    let s = Server::start_with(|o| o.concurrency = 0);
    let task = create(&s);
    let got = s.ok("tasks.get", &json!({"task_id": task}));
    // The complete task object, every field of the data model present.
    for key in [
        "id",
        "parent_id",
        "user_id",
        "name",
        "status",
        "priority",
        "inputs",
        "schemas",
        "params",
        "result",
        "error",
        "dependencies",
        "progress",
        "created_at",
        "started_at",
        "updated_at",
        "completed_at",
        "origin_type",
        "original_task_id",
        "has_references",
        "schedule_type",
        "schedule_expression",
        "schedule_enabled",
        "schedule_start_at",
        "schedule_end_at",
        "next_run_at",
        "last_run_at",
        "max_runs",
        "run_count",
    ] {
        assert!(got.get(key).is_some(), "no `{key}` in {got:#}");
    }
    assert_eq!(got["progress"], 0.0);
    assert_eq!(got["user_id"], "user123");
}

#[test]
fn update_takes_the_updates_object() {
    let s = Server::start_with(|o| o.concurrency = 0);
    let task = create(&s);
    let answer = s.ok(
        "tasks.update",
        &json!({"task_id": task, "updates": {"name": "Updated Name", "priority": 1}}),
    );
    has_keys(&answer, &["id", "status"]);
    let got = s.ok("tasks.get", &json!({"task_id": task}));
    assert_eq!(got["name"], "Updated Name");
    assert_eq!(got["priority"], 1);
    assert!(got.get("updates").is_none(), "{got:#}");
    // A field of the wrong type inside `updates` is -32602 naming it, not a stored field.
    let e = s.err(
        "tasks.update",
        &json!({"task_id": task, "updates": {"priority": "high"}}),
    );
    assert!(e.to_string().contains("priority"), "{e:#}");
    let e = s.err("tasks.update", &json!({"task_id": task, "updates": 3}));
    assert_eq!(e["code"], -32602);
}

#[test]
fn delete_list_tree_and_children_answer_the_page_s_keys() {
    let s = Server::start_with(|o| o.concurrency = 0);
    let root = id(1);
    s.ok(
        "tasks.create",
        &json!({"tasks": [
            {"id": root, "name": "Root Task", "schemas": {"method": "aggregate_results"}},
            {"id": id(2), "name": "Child Task", "parent_id": root, "schemas": {"method": "aggregate_results"}}
        ]}),
    );
    let listed = s.ok(
        "tasks.list",
        &json!({"limit": 100, "offset": 0, "status": "pending", "user_id": null}),
    );
    has_keys(&listed, &["tasks", "total", "limit", "offset"]);
    let tree = s.ok("tasks.tree", &json!({"task_id": root}));
    has_keys(&tree, &["task", "children"]);
    has_keys(&tree["children"][0], &["task", "children"]);
    let children = s.ok("tasks.children", &json!({"parent_id": root}));
    has_keys(&children, &["children"]);
    assert_eq!(children["children"][0]["id"], id(2).as_str());
    assert_eq!(
        s.ok("tasks.delete", &json!({"task_id": id(2)}))["success"],
        true
    );
}

#[test]
fn execute_cancel_and_copy_answer_the_page_s_keys() {
    let s = Server::start_with(|o| o.concurrency = 0);
    let started = s.ok(
        "tasks.execute",
        &json!({"tasks": [{"id": id(1), "name": "Task 1", "user_id": "user123",
            "schemas": {"method": "aggregate_results"}, "inputs": {}}]}),
    );
    has_keys(&started, &["root_task_id", "status"]);
    assert_eq!(started["root_task_id"], id(1).as_str());
    assert_eq!(started["status"], "started");
    let cancelled = s.ok("tasks.cancel", &json!({"task_id": id(1)}));
    assert_eq!(cancelled["task_id"], id(1).as_str());
    assert_eq!(cancelled["status"], "cancelled");
    let copied = s.ok(
        "tasks.copy",
        &json!({"task_id": id(1), "copy_children": true}),
    );
    has_keys(&copied, &["original_task_id", "copied_task_id", "status"]);
    assert_eq!(copied["original_task_id"], id(1).as_str());
    assert_eq!(copied["status"], "pending");
    let copy = s.ok("tasks.get", &json!({"task_id": copied["copied_task_id"]}));
    assert_eq!(copy["status"], "pending");
    assert_eq!(copy["progress"], 0.0);
    assert_eq!(copy["error"], Value::Null);
}

#[test]
fn the_validation_page_s_two_error_example_answers_invalid_params() {
    let s = Server::start_with(|o| o.concurrency = 0);
    let e = s.err(
        "tasks.create",
        &json!({"name": "Task", "priority": 5, "progress": 1.5}),
    );
    assert_eq!(e["code"], -32602, "{e:#}");
    let errors = e["data"]["errors"].as_array().unwrap();
    assert_eq!(errors.len(), 2, "{e:#}");
    let fields: Vec<&str> = errors.iter().filter_map(|x| x["field"].as_str()).collect();
    assert!(
        fields.contains(&"priority") && fields.contains(&"progress"),
        "{e:#}"
    );
    // One error alone keeps its own code.
    let e = s.err("tasks.create", &json!({"name": "Task", "priority": 5}));
    assert_eq!(e["code"], -32005, "{e:#}");
}

#[test]
fn the_agent_card_is_served_and_an_unknown_path_is_a_logged_404() {
    let s = Server::start_with(|o| o.concurrency = 0);
    let (status, body) = s.get("/.well-known/agent-card", &[]);
    assert_eq!(status, 200, "{body}");
    let card: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(card["name"], "vouch");
    assert!(
        card["url"]
            .as_str()
            .unwrap()
            .starts_with("http://127.0.0.1:")
    );
    let skills: Vec<&str> = card["skills"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| s["id"].as_str())
        .collect();
    assert!(skills.contains(&"tasks.execute"), "{card:#}");
    let (status, body) = s.get("/nowhere", &[]);
    assert_eq!(status, 404, "{body}");
    assert!(body.contains("/nowhere"), "{body}");
}
