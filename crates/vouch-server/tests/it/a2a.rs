//! The interface page's A2A additions over real HTTP: `tasks.execute` answered as a
//! Server-Sent Events stream (`use_streaming`, `metadata.stream`), and push notifications to a
//! callback (`configuration.push_notification_config`) — delivered with the given headers,
//! retried with backoff, bounded, and recorded (`tasks.push.get`).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::{Server, cmd, id};

/// One SSE message: its event name, id and data.
#[derive(Debug)]
struct Message {
    event: String,
    id: Option<i64>,
    data: Value,
}

fn messages(body: &str) -> Vec<Message> {
    body.split("\n\n")
        .filter(|block| block.lines().any(|l| l.starts_with("data:")))
        .map(|block| {
            let mut m = Message {
                event: "message".into(),
                id: None,
                data: Value::Null,
            };
            for line in block.lines() {
                if let Some(v) = line.strip_prefix("event:") {
                    v.trim().clone_into(&mut m.event);
                } else if let Some(v) = line.strip_prefix("id:") {
                    m.id = v.trim().parse().ok();
                } else if let Some(v) = line.strip_prefix("data:") {
                    m.data = serde_json::from_str(v.trim()).unwrap();
                }
            }
            m
        })
        .collect()
}

/// A two-task tree: a parent waiting for its child.
fn tree() -> Value {
    json!([
        cmd(1, None, "echo parent", &json!({})),
        cmd(2, Some(1), "echo child", &json!({})),
    ])
}

#[test]
fn use_streaming_answers_with_the_response_then_the_runs_events() {
    let s = Server::start();
    let body = json!({"jsonrpc": "2.0", "id": "req-001", "method": "tasks.execute",
                      "params": {"tasks": tree(), "use_streaming": true}});
    let (status, text) = s.post("/", &body.to_string(), &[]);
    assert_eq!(status, 200, "{text}");
    let all = messages(&text);
    let first = &all[0];
    assert_eq!(first.event, "response", "{text}");
    assert_eq!(first.data["id"], "req-001");
    assert_eq!(first.data["result"]["root_task_id"], id(1).as_str());
    assert_eq!(first.data["result"]["status"], "started");
    let events = &all[1..];
    // Both tasks completed, in order, each event naming its tree; the stream ended by itself.
    for n in [1, 2] {
        assert!(
            events
                .iter()
                .any(|e| e.event == "task_completed" && e.data["task_id"] == id(n).as_str()),
            "no completion of task {n}: {text}"
        );
    }
    assert!(
        events
            .iter()
            .all(|e| e.data["root_task_id"] == id(1).as_str())
    );
    assert!(events.iter().all(|e| e.data.get("protocol").is_none()));
    let ids: Vec<i64> = events.iter().filter_map(|e| e.id).collect();
    assert!(ids.windows(2).all(|w| w[0] < w[1]), "{ids:?}");
    assert_eq!(events.last().unwrap().event, "task_completed");
}

#[test]
fn metadata_stream_answers_a_rerun_with_its_own_events_marked_a2a() {
    let s = Server::start();
    // The child fails the first time and succeeds when run again.
    let marker = s.dir.path().join("ran-once");
    let flaky = format!(
        "test -f {m} || {{ touch {m}; exit 1; }}",
        m = marker.display()
    );
    let tasks = json!([
        cmd(1, None, "echo parent", &json!({})),
        cmd(2, Some(1), &flaky, &json!({})),
    ]);
    let created = s.ok("tasks.create", &json!({"tasks": tasks}));
    let root = created["id"].as_str().unwrap().to_owned();
    s.ok("tasks.execute", &json!({"task_id": root}));
    s.wait(&root);
    assert_eq!(
        s.ok("tasks.get", &json!({"task_id": id(2)}))["status"],
        "failed"
    );
    // Executed again, in the A2A shape: only this run's events come, each marked.
    let body = json!({"jsonrpc": "2.0", "id": 2, "method": "tasks.execute",
                      "params": {"task_id": root}, "metadata": {"stream": true}});
    let (_, text) = s.post("/", &body.to_string(), &[]);
    let all = messages(&text);
    assert_eq!(all[0].event, "response");
    assert_eq!(all[0].data["result"]["metadata"]["protocol"], "a2a");
    let after = all[0].data["result"]["events_after"].as_i64().unwrap();
    assert!(after > 0);
    let events = &all[1..];
    assert!(events.iter().all(|e| e.id.unwrap() > after));
    assert!(events.iter().all(|e| e.data["protocol"] == "a2a"), "{text}");
    assert!(
        events
            .iter()
            .any(|e| e.event == "task_completed" && e.data["task_id"] == id(2).as_str()),
        "{text}"
    );
    assert!(!events.iter().any(|e| e.event == "task_failed"), "{text}");
}

#[test]
fn streaming_is_refused_in_a_batch_and_for_other_methods() {
    let s = Server::start_with(|o| o.concurrency = 0);
    let batch = json!([{"jsonrpc": "2.0", "id": 1, "method": "tasks.execute",
                        "params": {"tasks": tree(), "use_streaming": true}}]);
    let (_, text) = s.post("/", &batch.to_string(), &[]);
    assert!(text.contains("-32602") && text.contains("batch"), "{text}");
    let get = json!({"jsonrpc": "2.0", "id": 1, "method": "tasks.get",
                     "params": {"task_id": id(1)}, "metadata": {"stream": true}});
    let (_, text) = s.post("/", &get.to_string(), &[]);
    assert!(
        text.contains("-32602") && text.contains("tasks.get"),
        "{text}"
    );
    let other = json!({"jsonrpc": "2.0", "id": 1, "method": "tasks.execute",
                       "params": {"tasks": tree()}, "metadata": {"trace_id": "x"}});
    let (_, text) = s.post("/", &other.to_string(), &[]);
    assert!(text.contains("metadata.trace_id"), "{text}");
}

/// The requests a receiver saw: header lines and body.
type Seen = Arc<Mutex<Vec<(Vec<String>, Value)>>>;

/// A callback receiver on a free port: answers each request with the next status of `script`
/// (the last one repeated) and keeps every request's headers and body.
struct Receiver {
    url: String,
    seen: Seen,
}

impl Receiver {
    fn start(script: Vec<u16>) -> Receiver {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/callback", listener.local_addr().unwrap());
        let seen: Seen = Arc::new(Mutex::new(Vec::new()));
        let record = Arc::clone(&seen);
        std::thread::spawn(move || {
            for (n, stream) in listener.incoming().enumerate() {
                let Ok(mut stream) = stream else { return };
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut headers = Vec::new();
                let mut length = 0;
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                        break;
                    }
                    let line = line.trim_end().to_owned();
                    if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                        length = v.trim().parse().unwrap();
                    }
                    headers.push(line);
                }
                let mut body = vec![0; length];
                reader.read_exact(&mut body).unwrap();
                let body = serde_json::from_slice(&body).unwrap_or(Value::Null);
                record.lock().unwrap().push((headers, body));
                let status = *script.get(n).or(script.last()).unwrap();
                let _ = write!(
                    stream,
                    "HTTP/1.1 {status} X\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
                );
            }
        });
        Receiver { url, seen }
    }
}

/// Waits until the tree's push delivery is finished; returns `tasks.push.get`'s answer.
fn delivered(s: &Server, root: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let state = s.ok("tasks.push.get", &json!({"task_id": root}));
        if state["finished"] == true {
            return state;
        }
        assert!(
            Instant::now() < deadline,
            "delivery never finished: {state:#}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn every_event_is_pushed_once_with_the_headers_and_a_failed_request_is_retried() {
    // The first request fails with 503: it is sent again after a backoff.
    let receiver = Receiver::start(vec![503, 200]);
    let s = Server::start_with(|o| o.allow_private_http = true);
    let body = json!({
        "jsonrpc": "2.0", "id": "req-001", "method": "tasks.execute",
        "params": {"tasks": tree()},
        "configuration": {"push_notification_config": {
            "url": receiver.url, "headers": {"Authorization": "Bearer cb-token"}, "method": "POST"}}
    });
    let (_, text) = s.post("/", &body.to_string(), &[]);
    let answer: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(answer["result"]["push_notifications"], true, "{text}");
    let root = id(1);
    s.wait(&root);
    let state = delivered(&s, &root);
    let deliveries = state["deliveries"].as_array().unwrap();
    assert_eq!(state["failed"], 0, "{state:#}");
    assert_eq!(state["delivered"], deliveries.len());
    assert_eq!(deliveries[0]["attempts"], 2, "{state:#}");
    assert!(
        deliveries
            .iter()
            .all(|d| d["ok"] == true && d["status"] == 200)
    );
    assert_eq!(
        state["push_notification_config"]["header_names"],
        json!(["Authorization"])
    );
    assert!(
        !state.to_string().contains("cb-token"),
        "a credential came back: {state}"
    );
    let seen = receiver.seen.lock().unwrap();
    // One request per delivery, plus the one retry.
    assert_eq!(seen.len(), deliveries.len() + 1);
    for (headers, body) in seen.iter() {
        assert!(
            headers
                .iter()
                .any(|h| h == "authorization: Bearer cb-token"),
            "{headers:?}"
        );
        for key in [
            "task_id",
            "status",
            "progress",
            "result",
            "root_task_id",
            "event",
        ] {
            assert!(body.get(key).is_some(), "no {key} in {body}");
        }
        assert_eq!(body["protocol"], "a2a");
    }
    // Every event of the run arrived, in order; both completions among them.
    let ids: Vec<i64> = seen[1..]
        .iter()
        .map(|(_, b)| b["event_id"].as_i64().unwrap())
        .collect();
    assert!(ids.windows(2).all(|w| w[0] < w[1]), "{ids:?}");
    let completed = seen
        .iter()
        .filter(|(_, b)| b["status"] == "completed")
        .count();
    assert_eq!(completed, 2);
}

#[test]
fn a_callback_that_keeps_failing_is_given_up_on_and_the_tree_is_not_held() {
    // 500 is retried up to the bound; 404 is not retried at all.
    for (status, attempts) in [(500, 5), (404, 1)] {
        let receiver = Receiver::start(vec![status]);
        let s = Server::start_with(|o| o.allow_private_http = true);
        let body = json!({
            "jsonrpc": "2.0", "id": 1, "method": "tasks.execute",
            "params": {"tasks": [cmd(1, None, "true", &json!({}))],
                       "configuration": {"push_notification_config": {"url": receiver.url}}}
        });
        let (_, text) = s.post("/", &body.to_string(), &[]);
        assert!(text.contains("root_task_id"), "{text}");
        let tasks = s.wait(&id(1));
        assert_eq!(tasks[0]["status"], "completed");
        let state = delivered(&s, &id(1));
        let deliveries = state["deliveries"].as_array().unwrap();
        assert!(!deliveries.is_empty());
        for d in deliveries {
            assert_eq!(d["ok"], false, "{state:#}");
            assert_eq!(d["attempts"], attempts, "{state:#}");
            assert_eq!(d["status"], status);
            assert!(d["error"].as_str().unwrap().contains(&status.to_string()));
        }
        assert_eq!(state["failed"], deliveries.len());
        // Sent as configured inside params (A2A's own place): no `protocol` marker is missing.
        assert_eq!(state["protocol"], "a2a");
    }
}

#[test]
fn a_private_callback_is_refused_unless_the_server_allows_it() {
    let s = Server::start_with(|o| o.concurrency = 0);
    let error = s.err(
        "tasks.execute",
        &json!({"tasks": tree(),
                "configuration": {"push_notification_config": {"url": "http://127.0.0.1:9/cb"}}}),
    );
    assert_eq!(error["code"], -32602);
    assert!(
        error.to_string().contains("--allow-private-http"),
        "{error}"
    );
    // Nothing was created.
    assert!(s.err("tasks.get", &json!({"task_id": id(1)}))["code"] == -32001);
}
