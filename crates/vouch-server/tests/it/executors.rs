//! The `http` and `vouch.gate` executors, against real inputs: a local HTTP server, and a
//! pipeline configuration with a session log.

use serde_json::json;
use vouch_standin::{Reply, Server as Standin};

use crate::common::{Server, find, id};

#[test]
fn http_calls_the_url_and_fails_outside_2xx() {
    let upstream = Standin::start(|request, _| {
        if request.path.ends_with("/broken") {
            Reply::text(503, "down")
        } else {
            Reply::json(
                200,
                &json!({"echo": request.json(), "auth": request.header("x-token")}),
            )
        }
    });
    let s = Server::start();
    let task = |n: u32, path: &str| {
        json!({"id": id(n), "name": format!("call{n}"), "parent_id": (n > 1).then(|| id(1)),
            "schemas": {"method": "http"},
            "inputs": {"url": format!("{}{path}", upstream.url()), "method": "post", "headers": {"x-token": "t0k"}, "body": {"q": n}}})
    };
    s.ok(
        "tasks.execute",
        &json!({"tasks": [task(1, "/ok"), task(2, "/broken")]}),
    );
    let tasks = s.wait(&id(1));
    let ok = find(&tasks, 1);
    assert_eq!(ok["status"], "completed", "{ok:#}");
    assert_eq!(ok["result"]["status"], 200);
    assert_eq!(
        ok["result"]["body"],
        json!({"echo": {"q": 1}, "auth": "t0k"})
    );
    let broken = find(&tasks, 2);
    assert_eq!(broken["status"], "failed");
    assert_eq!(broken["error"]["status"], 503);
    assert!(
        broken["error"]["message"]
            .as_str()
            .unwrap()
            .ends_with("answered HTTP 503")
    );
    // Inputs the executor cannot use are refused at creation.
    let e = s.err("tasks.create", &json!({"name": "x", "schemas": {"method": "http"}, "inputs": {"url": "ftp://x", "timeout": -1}}));
    assert_eq!(e["code"], -32005);
    assert_eq!(e["data"]["errors"].as_array().unwrap().len(), 2, "{e:#}");
}

const PIPELINE: &str = r#"Orchestration:
  Selection:
    Type: keyword
    Routes:
      - Keyword: "HANDOFF TO TESTER"
        Agent: Tester
        Validators: [RequireWriteFile, RequireShellPass]
        RequiredCommandPattern: "pytest"
        SourceAgents: [Developer]
"#;

fn session(test_output: &str) -> String {
    json!([
        {"role": "user", "content": "Add /health"},
        {"role": "assistant", "name": "Developer", "tool_calls": [
            {"id": "w", "type": "function", "function": {"name": "FileSystem-write_file", "arguments": "{\"path\": \"health.py\"}"}},
            {"id": "t", "type": "function", "function": {"name": "Shell-shell_run", "arguments": "{\"command\": \"pytest -q\"}"}}]},
        {"role": "tool", "tool_call_id": "w", "content": "wrote"},
        {"role": "tool", "tool_call_id": "t", "content": test_output},
        {"role": "assistant", "name": "Developer", "content": "HANDOFF TO TESTER"}
    ])
    .to_string()
}

#[test]
fn vouch_gate_runs_a_gate_on_a_session_as_a_task() {
    let s = Server::start();
    let dir = s.dir.path();
    std::fs::write(dir.join("pipeline.yaml"), PIPELINE).unwrap();
    std::fs::write(dir.join("passed.json"), session("4 passed")).unwrap();
    std::fs::write(dir.join("failed.json"), session("[EXIT 1] 2 failed")).unwrap();
    let gate = |n: u32, log: &str| {
        json!({"id": id(n), "name": format!("gate{n}"), "parent_id": (n > 1).then(|| id(1)),
            "schemas": {"method": "vouch.gate"},
            "inputs": {"config": dir.join("pipeline.yaml"), "session": dir.join(log),
                       "keyword": "HANDOFF TO TESTER", "agent": "Developer"}})
    };
    s.ok("tasks.execute", &json!({"tasks": [gate(1, "passed.json"), gate(2, "failed.json"), gate(3, "missing.json")]}));
    let tasks = s.wait(&id(1));
    let pass = find(&tasks, 1);
    assert_eq!(pass["result"]["verdict"], "pass", "{pass:#}");
    let block = find(&tasks, 2);
    assert_eq!(block["status"], "failed");
    assert_eq!(block["error"]["verdict"], "block");
    assert_eq!(block["error"]["validator"], "RequireShellPass");
    // Evidence that cannot be read blocks (fail closed).
    let missing = find(&tasks, 3);
    assert_eq!(missing["status"], "failed");
    assert!(
        missing["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with("cannot read the session")
    );
}
