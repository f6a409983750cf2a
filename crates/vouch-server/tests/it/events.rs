//! The progress stream: every event of a tree, with ids, resumable, ending with the tree.

use serde_json::{Value, json};

use crate::common::{Server, cmd, id};

/// Parses a Server-Sent Events body into (id, event, data).
fn parse(body: &str) -> Vec<(i64, String, Value)> {
    body.split("\n\n")
        .filter_map(|block| {
            let mut id = None;
            let mut event = None;
            let mut data = None;
            for line in block.lines() {
                if let Some(v) = line.strip_prefix("id: ") {
                    id = v.parse().ok();
                } else if let Some(v) = line.strip_prefix("event: ") {
                    event = Some(v.to_owned());
                } else if let Some(v) = line.strip_prefix("data: ") {
                    data = serde_json::from_str(v).ok();
                }
            }
            Some((id?, event?, data?))
        })
        .collect()
}

#[test]
fn the_stream_carries_every_event_and_ends_with_the_tree() {
    let s = Server::start();
    s.ok(
        "tasks.execute",
        &json!({"tasks": [
            cmd(1, None, "true", &json!({"dependencies": [id(2), id(3)]})),
            cmd(2, Some(1), "sleep 0.3", &json!({})),
            cmd(3, Some(1), "exit 1", &json!({})),
        ]}),
    );
    // Read while the tree runs: the response ends only when every task has ended.
    let (status, body) = s.get(&format!("/events/{}", id(1)), &[]);
    assert_eq!(status, 200);
    let events = parse(&body);
    let kinds: Vec<(&str, &str)> = events
        .iter()
        .map(|(_, k, d)| (k.as_str(), d["task_id"].as_str().unwrap()))
        .collect();
    let two = id(2);
    let three = id(3);
    let one = id(1);
    assert!(
        kinds.contains(&("task_status_update", two.as_str())),
        "{kinds:?}"
    );
    assert!(
        kinds.contains(&("task_completed", two.as_str())),
        "{kinds:?}"
    );
    assert!(
        kinds.contains(&("task_failed", three.as_str())),
        "{kinds:?}"
    );
    assert!(
        kinds.contains(&("task_cancelled", one.as_str())),
        "{kinds:?}"
    );
    let ids: Vec<i64> = events.iter().map(|(i, _, _)| *i).collect();
    assert!(ids.windows(2).all(|w| w[0] < w[1]), "{ids:?}");
    // Resuming after an event sends only what followed it.
    let after = ids[1];
    let (_, rest) = s.get(
        &format!("/events/{}", id(1)),
        &[("last-event-id", &after.to_string())],
    );
    let resumed: Vec<i64> = parse(&rest).iter().map(|(i, _, _)| *i).collect();
    assert_eq!(resumed, ids[2..].to_vec());
}

#[test]
fn progress_updates_and_unknown_trees() {
    let s = Server::start_with(|o| o.concurrency = 0);
    s.ok(
        "tasks.create",
        &json!({"tasks": [cmd(1, None, "true", &json!({})), cmd(2, Some(1), "true", &json!({}))]}),
    );
    assert_eq!(s.get(&format!("/events/{}", id(9)), &[]).0, 404);
    assert_eq!(s.get(&format!("/events/{}", id(2)), &[]).0, 404);
    // An external executor reports progress through tasks.update.
    s.ok(
        "tasks.update",
        &json!({"task_id": id(1), "status": "in_progress"}),
    );
    s.ok(
        "tasks.update",
        &json!({"task_id": id(2), "status": "cancelled", "error": "skip"}),
    );
    s.ok(
        "tasks.update",
        &json!({"task_id": id(1), "status": "completed", "result": {"done": true}}),
    );
    let (_, body) = s.get(&format!("/events/{}", id(1)), &[]);
    let kinds: Vec<String> = parse(&body).into_iter().map(|(_, k, _)| k).collect();
    assert_eq!(
        kinds,
        ["task_status_update", "task_cancelled", "task_completed"]
    );
}

#[test]
fn events_older_than_the_retention_are_swept() {
    let s = Server::start();
    s.ok(
        "tasks.execute",
        &json!({"tasks": [cmd(1, None, "true", &json!({}))]}),
    );
    s.wait(&id(1));
    let (_, before) = s.get(&format!("/events/{}", id(1)), &[]);
    assert!(before.contains("task_completed"), "{before}");
    // The same store, served again with a retention the events are older than: the sweep at
    // start deletes them; the tasks stay.
    let db = s.dir.path().join("tasks.db").to_string_lossy().into_owned();
    std::thread::sleep(std::time::Duration::from_millis(20));
    let again = Server::start_with(|o| {
        o.db = db;
        o.events_retention = Some(std::time::Duration::from_millis(10));
    });
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let (_, after) = again.get(&format!("/events/{}", id(1)), &[]);
        if !after.contains("task_") {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "not swept: {after}");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert_eq!(
        again.ok("tasks.get", &json!({"task_id": id(1)}))["status"],
        "completed"
    );
}
