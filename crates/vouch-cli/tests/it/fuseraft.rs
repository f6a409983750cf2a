//! fuseraft-cli's own configurations (structural copies in vouch-pipeline's fixtures): each
//! lints as it is, and the ones of each selection type run against a stand-in model server.

use std::path::PathBuf;

use serde_json::{Value, json};
use vouch_standin::{Reply, Request, Server, anthropic, openai};

use crate::support::{repo, vouch_env};

fn fixture(name: &str) -> PathBuf {
    repo()
        .join("crates/vouch-pipeline/tests/fixtures/fuseraft")
        .join(name)
}

/// fuseraft-cli's orchestration files: every one loads whole.
const CLEAN: [&str; 16] = [
    "orchestration.yaml",
    "examples/orchestration.yaml",
    "examples/dev-team-structured.yaml",
    "examples/brownfield.yaml",
    "examples/open-webui.yaml",
    "examples/magentic-team.yaml",
    "examples/article-review-pipeline.yaml",
    "examples/etl-pipeline.yaml",
    "examples/fuseraft-designer.yaml",
    "examples/playwright-mcp.yaml",
    "examples/production-mcp-http.yaml",
    "examples/research-team.yaml",
    "examples/research-team.json",
    "examples/devops-team.yaml",
    "examples/cross-system-flow-analyzer.yaml",
    "security/red-team.yaml",
];

#[test]
fn every_fuseraft_configuration_lints_clean() {
    let dir = tempfile::tempdir().unwrap();
    for name in CLEAN {
        let path = fixture(name);
        let out = vouch_env(dir.path(), &["gate", "lint", path.to_str().unwrap()], &[]);
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{name}:\n{text}");
        assert!(text.contains("no problems"), "{name}:\n{text}");
    }
}

/// Answers as each agent (told apart by its instructions, in the system prompt) in the wire
/// format of the request's path.
fn answering(rule: impl Fn(&str, &Value) -> String + Send + Sync + 'static) -> Server {
    Server::start(move |req: &Request, _| {
        let body = req.json();
        let system = body["system"]
            .as_str()
            .map(str::to_owned)
            .or_else(|| {
                body["messages"][0]["content"]
                    .as_str()
                    .filter(|_| body["messages"][0]["role"] == "system")
                    .map(str::to_owned)
            })
            .unwrap_or_default();
        let text = rule(&system, &body);
        if req.path.contains("messages") {
            Reply::json(200, &anthropic::text(&text))
        } else {
            Reply::json(200, &openai::chat(&text))
        }
    })
}

fn run(name: &str, server: &Server, extra: &[&str]) -> (i32, String, String) {
    let work = tempfile::tempdir().unwrap();
    let path = fixture(name);
    let url = server.url();
    let mut args = vec![
        "run",
        path.to_str().unwrap(),
        "--workdir",
        ".",
        "--task",
        "Write a short article about gates.",
        "--model-endpoint",
        &url,
        "--format",
        "json",
    ];
    args.extend_from_slice(extra);
    let out = vouch_env(work.path(), &args, &[]);
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_structured_selection_routes_on_each_agent_s_json() {
    let server = answering(|system, _| {
        if system.contains("\"title\"") {
            json!({"title": "Gates", "content": "Gates check evidence.", "word_count": 200})
                .to_string()
        } else if system.contains("\"verdict\"") {
            json!({"verdict": "approved", "feedback": "fine"}).to_string()
        } else {
            "Saved.\nPUBLISHED".to_owned()
        }
    });
    let (code, stdout, stderr) = run("examples/article-review-pipeline.yaml", &server, &[]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let summary: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(summary["ended"], "terminated", "{summary}");
    assert_eq!(summary["turns"], 3, "{summary}");
    let keys: Vec<&str> = summary["tokens"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(keys, ["Editor", "Publisher", "Writer"]);
    // The Publisher was offered its FileSystem tools; the Writer (FunctionChoice: none) none.
    let seen = server.seen();
    assert!(seen.iter().any(|r| {
        r.json()["tools"]
            .as_array()
            .is_some_and(|t| t.iter().any(|t| t["function"]["name"] == "write_file"))
    }));
    assert!(
        seen.first()
            .is_some_and(|r| r.json().get("tools").is_none())
    );
}

#[test]
fn a_sequential_selection_asks_each_agent_once_in_order() {
    let server = answering(|system, _| {
        if system.contains("Load and validate") {
            "3 records, schema {id, name}.".to_owned()
        } else {
            "Wrote the output.\nPIPELINE_COMPLETE".to_owned()
        }
    });
    let (code, stdout, stderr) = run("examples/etl-pipeline.yaml", &server, &[]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let summary: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(summary["turns"], 2, "{summary}");
    // Both are Anthropic models (inferred from `claude-`), asked over the Messages API.
    assert!(server.seen().iter().all(|r| r.path.contains("messages")));
    let first = server.seen()[0].json();
    let tools: Vec<&str> = first["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    // `Capabilities: {FileSystem: [read]}` leaves the Extractor only the read tools.
    assert_eq!(tools, ["read_file", "list_files", "search"]);
}

#[test]
fn a_roundrobin_selection_stops_at_the_cap_the_command_line_sets() {
    let server = answering(|_, _| "Thinking about it.".to_owned());
    let (code, stdout, stderr) = run(
        "examples/fuseraft-designer.yaml",
        &server,
        &["--max-turns", "2"],
    );
    assert_eq!(code, 1, "{stdout}\n{stderr}");
    let summary: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(summary["ended"], "turn_cap", "{summary}");
    assert_eq!(server.requests(), 2);
}

#[test]
fn a_magentic_manager_picks_the_speakers_and_ends_the_run() {
    let server = answering(|system, body| {
        if system.contains("manager of a team") {
            let prompt = body.to_string();
            if prompt.contains("[Researcher]") {
                json!({"is_request_satisfied": {"answer": true, "reason": "the findings answer it"},
                       "is_progress_being_made": {"answer": true}, "is_in_loop": {"answer": false},
                       "next_speaker": {"answer": "Developer"}, "instruction_or_question": {"answer": "stop"}})
                .to_string()
            } else {
                json!({"plan": "Research first.", "is_request_satisfied": {"answer": false, "reason": ""},
                       "is_progress_being_made": {"answer": true}, "is_in_loop": {"answer": false},
                       "next_speaker": {"answer": "Researcher"}, "instruction_or_question": {"answer": "Find three facts."}})
                .to_string()
            }
        } else {
            "Three facts, found.".to_owned()
        }
    });
    let (code, stdout, stderr) = run("examples/magentic-team.yaml", &server, &[]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let summary: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(summary["turns"], 1, "{summary}");
    assert!(
        summary["reason"]
            .as_str()
            .unwrap_or_default()
            .contains("satisfied"),
        "{summary}"
    );
    assert!(summary["tokens"].get("(manager)").is_some(), "{summary}");
    // The researcher was given the manager's instruction.
    assert!(
        server
            .seen()
            .iter()
            .any(|r| r.json().to_string().contains("Find three facts."))
    );
}

#[test]
fn errors_of_every_phase_come_in_one_report() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("p.yaml");
    std::fs::write(
        &file,
        "Orchestration:\n  Saga: {}\n  Agents:\n    - Name: A\n      Instructions: x\n      Model: nowhere\n      Descripton: typo\n  Selection:\n    Type: graph\n",
    )
    .unwrap();
    let out = vouch_env(dir.path(), &["gate", "lint", file.to_str().unwrap()], &[]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    for needle in [
        "fuseraft's `Saga` is not supported by vouch",
        "unknown key `Descripton`",
        "did you mean `Description`?",
        "names the model `nowhere`",
        "fuseraft's `graph` selection is not supported by vouch",
    ] {
        assert!(text.contains(needle), "{needle}:\n{text}");
    }
}

/// Runs fuseraft's MCP example `name` with its server replaced: `replace` turns the
/// fixture's text into the one that names the stand-in.
fn mcp_run(
    name: &str,
    replace: impl Fn(&str) -> String,
    server: &Server,
) -> (i32, String, String, tempfile::TempDir) {
    let work = tempfile::tempdir().unwrap();
    let text = replace(&std::fs::read_to_string(fixture(name)).unwrap());
    let path = work.path().join("pipeline.yaml");
    std::fs::write(&path, text).unwrap();
    let url = server.url();
    let out = vouch_env(
        work.path(),
        &[
            "run",
            "pipeline.yaml",
            "--task",
            "Use the tools.",
            "--model-endpoint",
            &url,
            "--format",
            "json",
        ],
        &[(
            "REMOTE_MCP_TOKEN",
            std::ffi::OsStr::new("token-of-the-test"),
        )],
    );
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        work,
    )
}

/// A model that calls the first MCP tool it is offered once, then says it is done.
fn mcp_model() -> Server {
    Server::start(|req: &Request, _| {
        let body = req.json();
        let called = body["messages"]
            .as_array()
            .is_some_and(|m| m.iter().any(|m| m["role"] == "tool"));
        let tool = body["tools"][0]["function"]["name"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        if called || tool.is_empty() {
            return Reply::json(200, &openai::chat("All done."));
        }
        Reply::json(
            200,
            &json!({
                "id": "c", "object": "chat.completion", "created": 0, "model": "m",
                "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {"role": "assistant", "content": null,
                    "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": tool, "arguments": "{\"text\": \"hi\"}"}}]}}],
                "usage": {"prompt_tokens": 5, "completion_tokens": 5, "total_tokens": 10}
            }),
        )
    })
}

#[test]
fn fuseraft_s_stdio_mcp_example_runs_with_the_stand_in_server() {
    let bin = vouch_standin::mcp::stdio_binary();
    let model = mcp_model();
    let (code, stdout, stderr, _work) = mcp_run(
        "examples/playwright-mcp.yaml",
        |t| {
            t.replace("Command: npx", &format!("Command: {}", bin.display()))
                .replace(
                    "\n  Agents:\n",
                    &format!(
                        "\n  Security:\n    ReadPaths: [{}]\n  Agents:\n",
                        bin.parent().unwrap().display()
                    ),
                )
                .replace("        - \"@playwright/mcp@latest\"\n        - \"--browser\"\n        - \"chromium\"\n", "        - --no-such-flag-needed\n")
        },
        &model,
    );
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let summary: Value = serde_json::from_str(&stdout).unwrap();
    let session_path = summary["session"].as_str().unwrap().to_owned();
    let session = std::fs::read_to_string(&session_path).unwrap();
    assert!(session.contains("mcp__playwright__echo"), "{session}");
    // An agent test asserts on the recorded MCP call like on any other.
    let analyze = |assertions: &str| {
        let dir = tempfile::tempdir().unwrap();
        let test = dir.path().join("mcp.vouch.yaml");
        let yaml = format!("name: MCP calls\nprompt: Use the tools.\nassertions:\n{assertions}");
        std::fs::write(&test, yaml).unwrap();
        let out = vouch_env(
            dir.path(),
            &["analyze", test.to_str().unwrap(), &session_path],
            &[],
        );
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    };
    let (code, out) = analyze(
        "  - tool: mcp__playwright__echo\n    params: {text: hi}\n    succeeded: true\n  - tool: mcp__playwright__fail\n    called: false\n",
    );
    assert_eq!(code, Some(0), "{out}");
    let (code, out) = analyze("  - tool: mcp__playwright__echo\n    called: false\n");
    assert_eq!(code, Some(1), "{out}");
}

#[test]
fn fuseraft_s_http_mcp_example_runs_with_the_stand_in_server() {
    let mcp = vouch_standin::mcp::http();
    let model = mcp_model();
    let url = format!("{}/mcp", mcp.url());
    let (code, stdout, stderr, _work) = mcp_run(
        "examples/production-mcp-http.yaml",
        |t| t.replace("https://mcp.example.com/mcp", &url),
        &model,
    );
    // `maxiterations` 10 and a model that stops calling tools: the cap ends it (exit 1), after
    // the one call that went through with the bearer token from the environment.
    assert!(code == 0 || code == 1, "{stdout}\n{stderr}");
    let summary: Value = serde_json::from_str(&stdout).unwrap();
    let session = std::fs::read_to_string(summary["session"].as_str().unwrap()).unwrap();
    assert!(session.contains("mcp__RemoteTools__echo"), "{session}");
    let auth = mcp
        .seen()
        .iter()
        .find_map(|r| r.header("authorization").map(str::to_owned));
    assert_eq!(auth.as_deref(), Some("Bearer token-of-the-test"));
}
