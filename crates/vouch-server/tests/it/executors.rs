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
    let s = Server::start_with(|o| o.allow_private_http = true);
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
    assert_eq!(broken["error_details"]["status"], 503);
    assert!(
        broken["error_details"]["message"]
            .as_str()
            .unwrap()
            .ends_with("answered HTTP 503")
    );
    // Inputs the executor cannot use are refused at creation: a scheme, a timeout below
    // zero or past the ceiling, a cap of nothing.
    let e = s.err("tasks.create", &json!({"name": "x", "schemas": {"method": "http"}, "inputs": {"url": "ftp://x", "timeout": -1}}));
    // Two errors in one request: -32602 with both in `data.errors` (decision T3).
    assert_eq!(e["code"], -32602);
    assert_eq!(e["data"]["errors"].as_array().unwrap().len(), 2, "{e:#}");
    let e = s.err("tasks.create", &json!({"name": "x", "schemas": {"method": "http"}, "inputs": {"url": "http://example.com", "timeout": 100_000, "max_body": 0}}));
    assert_eq!(e["data"]["errors"].as_array().unwrap().len(), 2, "{e:#}");
}

#[test]
fn http_reaches_no_private_address_unless_allowed() {
    let upstream = Standin::start(|_, _| Reply::json(200, &json!({"secret": "metadata"})));
    let s = Server::start();
    s.ok(
        "tasks.execute",
        &json!({"id": id(1), "name": "metadata", "schemas": {"method": "http"},
            "inputs": {"url": format!("{}/latest/meta-data", upstream.url())}}),
    );
    let tasks = s.wait(&id(1));
    let t = find(&tasks, 1);
    assert_eq!(t["status"], "failed");
    assert!(
        t["error_details"]["message"]
            .as_str()
            .unwrap()
            .contains("127.0.0.1, which is not a public address"),
        "{t:#}"
    );
    assert!(upstream.seen().is_empty(), "no request reached it");
}

#[test]
fn http_caps_the_answer_and_obeys_a_cancel() {
    let upstream = Standin::start(|request, _| {
        if request.path.ends_with("/big") {
            Reply::text(200, &"x".repeat(300_000))
        } else {
            Reply::text(200, "ok")
        }
    });
    // A server that accepts connections and never answers.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let silent_url = format!("http://{}/never", silent.local_addr().unwrap());
    let s = Server::start_with(|o| o.allow_private_http = true);
    s.ok(
        "tasks.execute",
        &json!({"id": id(1), "name": "big", "schemas": {"method": "http"},
            "inputs": {"url": format!("{}/big", upstream.url()), "max_body": 1000}}),
    );
    let tasks = s.wait(&id(1));
    let big = find(&tasks, 1);
    assert_eq!(big["result"]["truncated"], true, "{big:#}");
    assert_eq!(big["result"]["body"].as_str().unwrap().len(), 1000);
    s.ok(
        "tasks.execute",
        &json!({"id": id(2), "name": "hangs", "schemas": {"method": "http"},
            "inputs": {"url": silent_url, "timeout": 600}}),
    );
    s.wait_for(&id(2), "in_progress");
    let started = std::time::Instant::now();
    s.ok("tasks.cancel", &json!({"task_id": id(2)}));
    // The worker is free again well before the request's timeout.
    while s.ok("system.health", &json!({}))["workers"]["running"] != 0 {
        assert!(
            started.elapsed() < std::time::Duration::from_secs(10),
            "the cancelled request still holds its worker"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    drop(silent);
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
    assert_eq!(block["error_details"]["verdict"], "block");
    assert_eq!(block["error_details"]["validator"], "RequireShellPass");
    // Evidence that cannot be read blocks (fail closed).
    let missing = find(&tasks, 3);
    assert_eq!(missing["status"], "failed");
    assert!(
        missing["error_details"]["message"]
            .as_str()
            .unwrap()
            .starts_with("cannot read the session")
    );
}

#[test]
fn command_tasks_in_the_sandbox_write_only_in_their_folder() {
    if !vouch_process::support()
        .missing(&vouch_process::Sandbox::default())
        .is_empty()
    {
        eprintln!("skipped: the kernel cannot confine here");
        return;
    }
    let root = tempfile::tempdir().unwrap();
    let work = root.path().join("work");
    let outside = root.path().join("outside");
    std::fs::create_dir_all(&work).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    let s = Server::start_with(|o| o.sandbox = vouch_server::engine::CommandSandbox::On);
    let cwd = work.display().to_string();
    let o = outside.display();
    let task = |n: u32, command: String| {
        json!({"id": id(n), "name": format!("c{n}"), "parent_id": (n > 1).then(|| id(1)),
            "schemas": {"method": "command"}, "inputs": {"command": command, "cwd": cwd}})
    };
    s.ok(
        "tasks.execute",
        &json!({"tasks": [
            task(1, "echo honest > inside.txt".to_owned()),
            task(2, format!("echo x > {o}/escaped.txt")),
            task(3, "cd .. && echo x > outside/escaped2.txt".to_owned()),
            task(4, "echo scratch > \"$TMPDIR/scratch.txt\" && printf %s \"$TMPDIR\"".to_owned()),
        ]}),
    );
    let tasks = s.wait(&id(1));
    // The command had a temporary folder of its own, and it is gone with the run.
    let scratch = &find(&tasks, 4);
    assert_eq!(scratch["status"], "completed", "{scratch:#}");
    let tmp = scratch["result"]["stdout"].as_str().unwrap();
    assert!(tmp.contains("vouch-task-"), "{tmp}");
    assert!(
        !std::path::Path::new(tmp).exists(),
        "the task's temporary folder {tmp} outlived its run"
    );
    assert_eq!(find(&tasks, 2)["status"], "failed", "{:#}", find(&tasks, 2));
    assert_eq!(find(&tasks, 3)["status"], "failed", "{:#}", find(&tasks, 3));
    assert_eq!(
        std::fs::read_dir(&outside).unwrap().count(),
        0,
        "a command wrote outside its folder"
    );
    assert_eq!(
        std::fs::read_to_string(work.join("inside.txt")).unwrap(),
        "honest\n"
    );
}
