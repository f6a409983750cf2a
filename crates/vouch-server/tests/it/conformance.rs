//! One test per method and per error code, over real HTTP.

use serde_json::{Value, json};

use crate::common::{Server, cmd, find, id};

#[test]
fn create_accepts_a_list_a_tree_and_one_task_and_fills_what_is_missing() {
    let s = Server::start_with(|o| o.concurrency = 0);
    let listed = s.ok(
        "tasks.create",
        &json!({"tasks": [cmd(1, None, "true", &json!({})), cmd(2, Some(1), "true", &json!({"dependencies": [id(1)]}))]}),
    );
    assert_eq!(listed["root_id"], id(1).as_str());
    assert_eq!(listed["count"], 2);
    // A tree whose nodes have no ids: ids are generated, children get their parent.
    let tree = s.ok(
        "tasks.create",
        &json!({"task": {"name": "root"}, "children": [{"task": {"name": "child", "schemas": {"method": "aggregate_results"}}}]}),
    );
    let root = tree["root_id"].as_str().unwrap();
    let child = s.ok("tasks.children", &json!({"task_id": root}))["tasks"][0].clone();
    assert_eq!(child["parent_id"], root);
    assert_eq!(child["status"], "pending");
    assert!(child["created_at"].as_str().unwrap().ends_with('Z'));
    // One task; upper-case ids are stored lower-case (D33).
    let one = s.ok(
        "tasks.create",
        &json!({"id": "ABCDEF01-0000-4000-8000-000000000001", "name": "solo"}),
    );
    assert_eq!(one["root_id"], "abcdef01-0000-4000-8000-000000000001");
    assert_eq!(
        s.ok(
            "tasks.get",
            &json!({"task_id": "ABCDEF01-0000-4000-8000-000000000001"})
        )["name"],
        "solo"
    );
}

#[test]
fn get_update_delete_list_children_and_tree() {
    let s = Server::start_with(|o| o.concurrency = 0);
    s.ok(
        "tasks.create",
        &json!({"tasks": [
            cmd(1, None, "true", &json!({"user_id": "ana"})),
            cmd(2, Some(1), "true", &json!({"user_id": "ana", "priority": 0})),
            cmd(3, Some(1), "true", &json!({"user_id": "ana"})),
            cmd(4, Some(3), "true", &json!({"user_id": "ana"})),
        ]}),
    );
    assert_eq!(s.ok("tasks.get", &json!({"task_id": id(2)}))["priority"], 0);
    let updated = s.ok(
        "tasks.update",
        &json!({"task_id": id(2), "name": "renamed", "inputs": {"command": "echo hi"}}),
    );
    assert_eq!(updated["name"], "renamed");
    assert!(updated["updated_at"].is_string());
    assert_eq!(
        s.ok("tasks.get", &json!({"task_id": id(2)}))["inputs"]["command"],
        "echo hi"
    );
    let page = s.ok(
        "tasks.list",
        &json!({"limit": 2, "offset": 1, "user_id": "ana"}),
    );
    assert_eq!(page["total"], 4);
    assert_eq!(page["tasks"].as_array().unwrap().len(), 2);
    assert_eq!(page["tasks"][0]["id"], id(2).as_str());
    assert_eq!(
        s.ok("tasks.list", &json!({"status": "completed"}))["total"],
        0
    );
    assert_eq!(s.ok("tasks.list", &json!({"root_only": true}))["total"], 1);
    let children = s.ok("tasks.children", &json!({"task_id": id(1)}));
    assert_eq!(children["tasks"].as_array().unwrap().len(), 2);
    let tree = s.ok("tasks.tree", &json!({"task_id": id(1)}));
    assert_eq!(
        tree["children"][1]["children"][0]["task"]["id"],
        id(4).as_str()
    );
    let sub = s.ok("tasks.tree", &json!({"task_id": id(3)}));
    assert_eq!(sub["task"]["id"], id(3).as_str());
    assert_eq!(
        s.ok("tasks.delete", &json!({"task_id": id(4)})),
        json!({"success": true, "deleted": id(4)})
    );
    assert_eq!(
        s.err("tasks.get", &json!({"task_id": id(4)}))["code"],
        -32001
    );
}

#[test]
fn copy_remaps_ids_parents_and_dependencies_inside_the_copy() {
    let s = Server::start_with(|o| o.concurrency = 0);
    s.ok(
        "tasks.create",
        &json!({"tasks": [
            cmd(1, None, "true", &json!({})),
            cmd(2, Some(1), "true", &json!({})),
            cmd(3, Some(1), "true", &json!({"dependencies": [id(2)]})),
            cmd(4, Some(3), "true", &json!({"dependencies": [id(2)]})),
        ]}),
    );
    // The subtree of 3: its dependency on 2 (outside the copy) is dropped and reported.
    let sub = s.ok(
        "tasks.copy",
        &json!({"task_id": id(3), "copy_children": true}),
    );
    assert_eq!(sub["count"], 2);
    assert_eq!(sub["dropped_dependencies"].as_array().unwrap().len(), 2);
    // The whole tree: 4's dependency follows 2's copy.
    let all = s.ok(
        "tasks.copy",
        &json!({"task_id": id(1), "copy_children": true}),
    );
    let map = &all["mapping"];
    let copied = s.tasks(all["root_id"].as_str().unwrap());
    assert_eq!(copied.len(), 4);
    let four = copied.iter().find(|t| t["id"] == map[id(4)]).unwrap();
    assert_eq!(four["dependencies"][0]["id"], map[id(2)]);
    assert_eq!(four["parent_id"], map[id(3)]);
    assert_eq!(four["origin_type"], "copy");
    assert_eq!(four["original_task_id"], id(4).as_str());
    assert_eq!(four["status"], "pending");
    // Without children: the task alone, a root.
    let alone = s.ok("tasks.copy", &json!({"task_id": id(3)}));
    assert_eq!(alone["count"], 1);
    assert!(s.ok("tasks.get", &json!({"task_id": alone["root_id"]}))["parent_id"].is_null());
}

#[test]
fn health_reports_the_protocol_version_storage_and_workers() {
    let s = Server::start();
    let h = s.ok("system.health", &json!({}));
    assert_eq!(h["status"], "ok");
    assert_eq!(h["protocol_version"], "1.0");
    assert_eq!(h["storage"]["kind"], "sqlite");
    assert_eq!(h["workers"]["concurrency"], 2);
    assert_eq!(
        h["executors"],
        json!([
            "command",
            "http",
            "aggregate_results",
            "vouch.gate",
            "vouch.run",
            "vouch.test"
        ])
    );
    // `/tasks` is the same endpoint.
    let (status, body) = s.post(
        "/tasks",
        r#"{"jsonrpc":"2.0","id":1,"method":"system.health"}"#,
        &[],
    );
    assert_eq!(status, 200);
    assert!(body.contains("\"protocol_version\":\"1.0\""));
}

#[test]
fn batches_and_notifications() {
    let s = Server::start_with(|o| o.concurrency = 0);
    let (status, body) = s.post(
        "/",
        r#"[{"jsonrpc":"2.0","id":1,"method":"system.health"},{"jsonrpc":"2.0","method":"system.health"},{"jsonrpc":"2.0","id":2,"method":"nope"}]"#,
        &[],
    );
    assert_eq!(status, 200);
    let answers: Vec<Value> = serde_json::from_str(&body).unwrap();
    assert_eq!(answers.len(), 2);
    assert_eq!(answers[1]["error"]["code"], -32601);
    let (status, body) = s.post(
        "/",
        r#"{"jsonrpc":"2.0","method":"tasks.create","params":{"name":"n"}}"#,
        &[],
    );
    assert_eq!((status, body.as_str()), (204, ""));
    // The notification still created its task.
    assert_eq!(s.ok("tasks.list", &json!({}))["total"], 1);
}

/// The error object of each code, with the request that provokes it.
#[test]
fn every_error_code() {
    let s = Server::start_with(|o| o.concurrency = 0);
    let mut seen = serde_json::Map::new();
    let mut record = |code: i64, error: Value| {
        assert_eq!(error["code"], code, "{error:#}");
        seen.insert(code.to_string(), error);
    };
    let raw = |body: &str| -> Value {
        let (_, text) = s.post("/", body, &[]);
        serde_json::from_str::<Value>(&text).unwrap()["error"].clone()
    };
    record(-32700, raw("{not json"));
    record(
        -32600,
        raw(r#"{"jsonrpc":"1.0","id":1,"method":"system.health"}"#),
    );
    record(-32601, s.err("tasks.frobnicate", &json!({})));
    record(-32602, s.err("tasks.list", &json!({"limit": 5000})));
    s.ok("tasks.create", &json!({"tasks": [cmd(1, None, "true", &json!({})), cmd(2, Some(1), "true", &json!({"dependencies": [id(1)]}))]}));
    record(-32001, s.err("tasks.get", &json!({"task_id": id(99)})));
    record(
        -32002,
        s.err(
            "tasks.create",
            &json!({"tasks": [
                cmd(10, None, "true", &json!({})),
                cmd(11, Some(10), "true", &json!({"dependencies": [id(12)]})),
                cmd(12, Some(10), "true", &json!({"dependencies": [id(11)]})),
            ]}),
        ),
    );
    record(
        -32003,
        s.err(
            "tasks.create",
            &json!({"name": "x", "schemas": {"method": "teleport"}}),
        ),
    );
    record(
        -32005,
        s.err("tasks.create", &json!({"name": "x", "priority": 9})),
    );
    record(
        -32006,
        s.err(
            "tasks.update",
            &json!({"task_id": id(1), "status": "completed"}),
        ),
    );
    record(
        -32007,
        s.err(
            "tasks.update",
            &json!({"task_id": id(2), "status": "in_progress"}),
        ),
    );
    s.ok(
        "tasks.update",
        &json!({"task_id": id(1), "status": "in_progress"}),
    );
    record(-32008, s.err("tasks.execute", &json!({"task_id": id(1)})));
    record(-32009, s.err("tasks.delete", &json!({"task_id": id(1)})));
    record(-32010, s.err("tasks.create", &json!({"tasks": [cmd(20, None, "true", &json!({})), cmd(21, Some(29), "true", &json!({}))]})));
    record(
        -32011,
        s.err(
            "tasks.create",
            &json!({"tasks": [cmd(30, None, "true", &json!({"dependencies": [id(39)]}))]}),
        ),
    );
    record(-32012, s.err("tasks.create", &json!({"tasks": [cmd(40, None, "true", &json!({})), cmd(41, None, "true", &json!({}))]})));
    // Several kinds at once: -32602 with every error.
    let mixed = s.err("tasks.create", &json!({"tasks": [cmd(50, None, "true", &json!({"priority": 7})), cmd(51, Some(59), "true", &json!({}))]}));
    assert_eq!(mixed["code"], -32602);
    assert_eq!(mixed["data"]["errors"].as_array().unwrap().len(), 2);
    // An internal failure: the store loses its table under the server.
    let db = rusqlite::Connection::open(s.dir.path().join("tasks.db")).unwrap();
    db.execute_batch("ALTER TABLE tasks RENAME TO gone")
        .unwrap();
    record(-32603, s.err("tasks.get", &json!({"task_id": id(1)})));
    let codes: Vec<&String> = seen.keys().collect();
    assert_eq!(
        codes.len(),
        16,
        "{codes:?} (-32004: the_token_is_required_when_set)"
    );
    insta::assert_json_snapshot!("error_codes", Value::Object(seen), {
        ".*.data.errors[].cycle" => "[cycle]",
    });
}

#[test]
fn the_token_is_required_when_set() {
    let s = Server::start_with(|o| {
        o.concurrency = 0;
        o.token = Some("s3cret".into());
    });
    let call = r#"{"jsonrpc":"2.0","id":1,"method":"system.health"}"#;
    let (status, body) = s.post("/", call, &[]);
    assert_eq!(status, 401);
    let answer: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(answer["error"]["code"], -32004);
    assert_eq!(
        s.post("/", call, &[("authorization", "Bearer wrong")]).0,
        401
    );
    assert_eq!(
        s.post("/", call, &[("authorization", "Bearer s3cret")]).0,
        200
    );
    assert_eq!(s.get(&format!("/events/{}", id(1)), &[]).0, 401);
}

#[test]
fn bodies_over_the_limit_are_refused() {
    let s = Server::start_with(|o| {
        o.concurrency = 0;
        o.max_body = 1024;
    });
    let big = json!({"jsonrpc": "2.0", "id": 1, "method": "tasks.create", "params": {"name": "x".repeat(4096)}});
    assert_eq!(s.post("/", &big.to_string(), &[]).0, 413);
}

#[test]
fn listening_beyond_loopback_needs_a_token() {
    let mut options = vouch_server::serve::Options::new("unused.db");
    options.listen = Some(std::net::SocketAddr::from(([0, 0, 0, 0], 0)));
    let e = vouch_server::serve::run(&options, |_| {}, async {}).unwrap_err();
    insta::assert_snapshot!(e.to_string(), @"listening on 0.0.0.0:0, beyond this machine, needs a token: give --token-env NAME (tasks run shell commands)");
}

/// Transitions the protocol forbids are refused with -32006, from every status.
#[test]
fn forbidden_transitions_are_refused() {
    let s = Server::start_with(|o| o.concurrency = 0);
    let statuses = ["pending", "in_progress", "completed", "failed", "cancelled"];
    let allowed = [
        ("pending", "in_progress"),
        ("pending", "cancelled"),
        ("in_progress", "completed"),
        ("in_progress", "failed"),
        ("in_progress", "cancelled"),
        ("failed", "pending"),
    ];
    let mut n = 100;
    for from in statuses {
        for to in statuses {
            if from == to {
                continue;
            }
            n += 1;
            let created = if from == "in_progress" {
                "pending"
            } else {
                from
            };
            let mut task = cmd(n, None, "true", &json!({"status": created}));
            match created {
                "completed" => task["result"] = json!({}),
                "failed" | "cancelled" => task["error"] = json!("e"),
                _ => {}
            }
            if matches!(created, "completed" | "failed" | "cancelled") {
                task["started_at"] = json!("2026-01-01T00:00:00Z");
                task["completed_at"] = json!("2026-01-01T00:00:01Z");
            }
            s.ok("tasks.create", &task);
            if from == "in_progress" {
                s.ok(
                    "tasks.update",
                    &json!({"task_id": id(n), "status": "in_progress"}),
                );
            }
            let mut change = json!({"task_id": id(n), "status": to});
            if to == "completed" {
                change["result"] = json!({"ok": true});
            }
            if matches!(to, "failed" | "cancelled") {
                change["error"] = json!("stopped");
            }
            let answer = s.rpc("tasks.update", &change);
            if allowed.contains(&(from, to)) {
                assert!(answer.get("result").is_some(), "{from} -> {to}: {answer:#}");
            } else {
                assert_eq!(
                    answer["error"]["code"], -32006,
                    "{from} -> {to}: {answer:#}"
                );
            }
        }
    }
    let t = find(&s.tasks(&id(101)), 101).clone();
    assert_eq!(t["status"], "in_progress");
}
