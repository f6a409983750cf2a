//! The tools of `vouch mcp`: each one of vouch's read-only commands, run in this process with
//! `--format json` — so a tool's verdict is exactly the command's.

use std::sync::Arc;

use rmcp::model::{JsonObject, Tool};
use serde_json::{Value, json};

/// A tool's answer: its text, and whether the call failed (bad input, unreadable file).
#[derive(Debug)]
pub(super) struct Answer {
    pub(super) text: String,
    pub(super) failed: bool,
}

/// The task service's methods `tasks_rpc` may call: those that only read.
const READ_METHODS: &[&str] = &[
    "tasks.get",
    "tasks.list",
    "tasks.tree",
    "tasks.children",
    "tasks.count",
    "tasks.running.status",
];

fn schema(properties: &Value, required: &[&str]) -> Arc<JsonObject> {
    let value = json!({"type": "object", "properties": properties, "required": required});
    Arc::new(value.as_object().cloned().unwrap_or_default())
}

fn text(description: &str) -> Value {
    json!({"type": "string", "description": description})
}

/// Returns the tools; `tasks_rpc` only with a task service.
pub(super) fn list(with_server: bool) -> Vec<Tool> {
    let log =
        text("the agent's session log (Claude Code, Codex, Gemini CLI, goose, ... or vouch JSONL)");
    let log_format =
        text("the log's format when it cannot be told from the file (`claude`, `codex`, ...)");
    let mut tools = vec![
        Tool::new(
            "gate_check",
            "Would this handoff (a route's keyword) or completion pass the gates of a pipeline configuration, on the evidence of this session log? Answers pass, or block with the message an agent would get.",
            schema(
                &json!({"config": text("the pipeline configuration (vouch.yaml or an orchestration YAML)"),
                       "log": log, "keyword": text("the route's keyword; leave out to check a completion"),
                       "agent": text("the agent that claims it"), "workdir": text("where the artifacts are (default: the current directory)"),
                       "log_format": log_format, "strict": {"type": "boolean", "description": "demand strict evidence"}}),
                &["config", "log"],
            ),
        ),
        Tool::new(
            "session_summary",
            "Count what an agent's session log holds: tool calls by tool, failures, subagents, tokens.",
            schema(&json!({"log": log, "log_format": log_format}), &["log"]),
        ),
        Tool::new(
            "find_calls",
            "List the tool calls of a session log, each with its arguments and outcome; filter by tool name (a substring) or to failures only.",
            schema(
                &json!({"log": log, "tool": text("keep calls whose tool name holds this"),
                       "failed_only": {"type": "boolean", "description": "keep failed calls only"}, "log_format": log_format}),
                &["log"],
            ),
        ),
        Tool::new(
            "command_receipts",
            "List a session's shell commands with their receipts (exit code, output hash) and whether strict evidence counts them.",
            schema(&json!({"log": log, "log_format": log_format}), &["log"]),
        ),
        Tool::new(
            "analyze",
            "Evaluate an agent test (vouch's YAML) against a session log: each assertion's verdict.",
            schema(
                &json!({"test": text("the agent test file"), "log": log}),
                &["test", "log"],
            ),
        ),
        Tool::new(
            "tasks_validate",
            "Validate a task document (one task, a list, or a tree) against every rule of the task protocol.",
            schema(&json!({"file": text("the JSON document")}), &["file"]),
        ),
    ];
    if with_server {
        tools.push(Tool::new(
            "tasks_rpc",
            "Call a read-only method of the task service (`tasks.get`, `tasks.list`, `tasks.tree`, `tasks.children`, `tasks.count`, `tasks.running.status`).",
            schema(&json!({"method": text("the method"), "params": {"type": "object"}}), &["method"]),
        ));
    }
    tools
}

/// Runs tool `name` with `args`; an error says what is wrong with the call itself.
pub(super) fn call(name: &str, args: &JsonObject, server: Option<&str>) -> Result<Answer, String> {
    let string = |k: &str| args.get(k).and_then(Value::as_str).map(str::to_owned);
    let required =
        |k: &str| string(k).ok_or_else(|| format!("`{name}` needs the string argument `{k}`"));
    let flag = |k: &str| args.get(k).and_then(Value::as_bool).unwrap_or(false);
    let mut argv: Vec<String> = Vec::new();
    let mut push = |items: &[&str]| argv.extend(items.iter().map(|s| (*s).to_owned()));
    match name {
        "gate_check" => {
            let (config, log) = (required("config")?, required("log")?);
            push(&[
                "gate",
                "check",
                "--config",
                &config,
                "--session",
                &log,
                "--format",
                "json",
            ]);
            match string("keyword") {
                Some(k) => push(&["--keyword", &k]),
                None => push(&["--terminate"]),
            }
            for (key, option) in [
                ("agent", "--agent"),
                ("workdir", "--workdir"),
                ("log_format", "--log-format"),
            ] {
                if let Some(v) = string(key) {
                    push(&[option, &v]);
                }
            }
            if flag("strict") {
                push(&["--strict"]);
            }
        }
        "session_summary" | "command_receipts" | "find_calls" => {
            let log = required("log")?;
            let sub = match name {
                "session_summary" => "stats",
                "command_receipts" => "receipts",
                _ => "show",
            };
            push(&["session", sub, &log, "--format", "json"]);
            if let Some(f) = string("log_format") {
                push(&["--log-format", &f]);
            }
        }
        "analyze" => {
            let (test, log) = (required("test")?, required("log")?);
            push(&["analyze", &test, &log, "--format", "json"]);
        }
        "tasks_validate" => {
            let file = required("file")?;
            push(&["tasks", "validate", &file, "--format", "json"]);
        }
        "tasks_rpc" => return rpc(server, &required("method")?, args.get("params")),
        other => return Err(format!("there is no tool `{other}`")),
    }
    let (code, out, err) = crate::cli::run_captured(&argv);
    if code == crate::exit_codes::INPUT_ERROR {
        return Ok(Answer {
            text: err.trim().to_owned(),
            failed: true,
        });
    }
    let text = if name == "find_calls" {
        filter_calls(&out, string("tool").as_deref(), flag("failed_only"))
    } else {
        out
    };
    Ok(Answer {
        text: text.trim().to_owned(),
        failed: false,
    })
}

/// Keeps the calls of `session show`'s JSON whose tool name holds `tool`, or that failed.
fn filter_calls(json_text: &str, tool: Option<&str>, failed_only: bool) -> String {
    let Ok(value) = serde_json::from_str::<Value>(json_text) else {
        return json_text.to_owned();
    };
    let events = value
        .get("events")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let calls: Vec<Value> = events
        .into_iter()
        .filter(|e| {
            e.get("kind").and_then(Value::as_str) == Some("tool_call")
                || e.get("name").is_some() && e.get("args").is_some()
        })
        .filter(|e| {
            tool.is_none_or(|t| {
                e.get("name")
                    .and_then(Value::as_str)
                    .is_some_and(|n| n.to_lowercase().contains(&t.to_lowercase()))
            })
        })
        .filter(|e| {
            !failed_only
                || e.get("outcome")
                    .is_some_and(|o| !(o == "ok" || o.get("status") == Some(&json!("ok"))))
        })
        .collect();
    serde_json::to_string_pretty(&json!({"calls": calls})).unwrap_or_default()
}

/// Calls a read-only method of the task service.
fn rpc(server: Option<&str>, method: &str, params: Option<&Value>) -> Result<Answer, String> {
    let Some(url) = server else {
        return Err("start `vouch mcp --server URL` to call a task service".to_owned());
    };
    if !READ_METHODS.contains(&method) {
        return Err(format!(
            "`{method}` is not a read-only method; vouch mcp calls {}",
            READ_METHODS.join(", ")
        ));
    }
    let client = vouch_server::client::Client::new(url, None);
    let params = params.cloned().unwrap_or_else(|| json!({}));
    Ok(match client.call(method, &params) {
        Ok(v) => Answer {
            text: serde_json::to_string_pretty(&v).unwrap_or_default(),
            failed: false,
        },
        Err(e) => Answer {
            text: e.to_string(),
            failed: true,
        },
    })
}
