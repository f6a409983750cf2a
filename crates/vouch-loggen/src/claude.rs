//! A Claude Code session log: realistic records (the keys, nesting and sizes Claude Code
//! writes), split assistant records, failed results and progress noise.

use std::io::{self, Write};

use serde_json::{Value, json};

use crate::rng::Rng;

/// Parameters of a generated Claude Code session log.
#[derive(Debug, Clone)]
pub struct ClaudeLog {
    /// Number of tool calls; each is followed by its result.
    pub tool_calls: usize,
    /// Approximate size in bytes of each tool result's text.
    pub result_bytes: usize,
    /// Seed of the pseudo-random choices.
    pub seed: u64,
    /// One result in this many is a failure (`is_error`, `Exit code 1`); 0 for none.
    pub fail_every: usize,
    /// A new user message (a new turn) every this many tool calls; 0 for one turn.
    pub turn_every: usize,
}

impl Default for ClaudeLog {
    fn default() -> ClaudeLog {
        ClaudeLog {
            tool_calls: 1000,
            result_bytes: 2048,
            seed: 7,
            fail_every: 25,
            turn_every: 0,
        }
    }
}

const SESSION: &str = "5f0c9a8e-3b1d-4c2e-9f7a-1d2e3f4a5b6c";
const CWD: &str = "/home/dev/projects/inventory-service";

const COMMANDS: &[&str] = &[
    "cargo test --workspace",
    "cargo build --release",
    "git status --short",
    "npm test -- --runInBand",
    "pytest -q tests/test_api.py",
    "go test ./...",
    "ls -la src/",
    "grep -rn \"TODO\" src/ | head -20",
];
const FILES: &[&str] = &[
    "src/main.rs",
    "src/api/users.rs",
    "src/api/orders.rs",
    "src/db/schema.rs",
    "tests/api_test.rs",
    "README.md",
    "Cargo.toml",
    "src/config.rs",
];

impl ClaudeLog {
    /// Writes the log, one JSON record per line.
    pub fn write(&self, out: &mut impl Write) -> io::Result<()> {
        let mut rng = Rng::new(self.seed);
        let mut parent = uuid(&mut rng);
        let mut clock = 0u64;
        let first = json!({
            "parentUuid": null, "isSidechain": false, "userType": "external", "cwd": CWD,
            "sessionId": SESSION, "version": "2.1.39", "gitBranch": "main", "type": "user",
            "message": {"role": "user", "content": "Add pagination to the users endpoint and make sure every test passes."},
            "uuid": parent, "timestamp": timestamp(clock), "permissionMode": "default"
        });
        line(out, &first)?;
        for i in 0..self.tool_calls {
            clock += 2;
            if self.turn_every > 0 && i > 0 && i % self.turn_every == 0 {
                let uid = uuid(&mut rng);
                let next = json!({
                    "parentUuid": parent, "isSidechain": false, "userType": "external", "cwd": CWD,
                    "sessionId": SESSION, "version": "2.1.39", "gitBranch": "main", "type": "user",
                    "message": {"role": "user", "content": format!("[routing] step {} — continue with the next part of the plan.", i / self.turn_every)},
                    "uuid": uid, "timestamp": timestamp(clock)
                });
                parent = uid;
                line(out, &next)?;
            }
            let message_id = format!("msg_01{:022x}", u128::from(rng.next()) * 31 + i as u128);
            let call_id = format!("toolu_01{:022x}", u128::from(rng.next()) * 17 + i as u128);
            if i % 10 == 0 {
                // A message with text and a tool call, split over two records (as Claude Code
                // writes them).
                let text =
                    format!("Step {i}: let me look at what the code does before changing it.");
                let rec = assistant(
                    &mut rng,
                    &parent,
                    &message_id,
                    &json!([{"type": "text", "text": text}]),
                    clock,
                );
                rec["uuid"]
                    .as_str()
                    .unwrap_or_default()
                    .clone_into(&mut parent);
                line(out, &rec)?;
            }
            let (name, input) = tool(&mut rng, i);
            let content =
                json!([{"type": "tool_use", "id": call_id, "name": name, "input": input}]);
            let rec = assistant(&mut rng, &parent, &message_id, &content, clock);
            rec["uuid"]
                .as_str()
                .unwrap_or_default()
                .clone_into(&mut parent);
            line(out, &rec)?;
            if i % 50 == 25 {
                let progress = json!({
                    "parentUuid": parent, "isSidechain": false, "userType": "external", "cwd": CWD,
                    "sessionId": SESSION, "version": "2.1.39", "gitBranch": "main", "type": "progress",
                    "data": {"type": "hook_progress", "hookEvent": "PostToolUse", "hookName": "PostToolUse:Edit", "command": "./hooks/format.sh"},
                    "parentToolUseID": call_id, "toolUseID": call_id, "timestamp": timestamp(clock),
                    "uuid": uuid(&mut rng)
                });
                line(out, &progress)?;
            }
            clock += 1;
            let failed = self.fail_every > 0 && i % self.fail_every == self.fail_every - 1;
            let text = result_text(&mut rng, self.result_bytes, failed);
            let uid = uuid(&mut rng);
            let result = json!({
                "parentUuid": parent, "isSidechain": false, "userType": "external", "cwd": CWD,
                "sessionId": SESSION, "version": "2.1.39", "gitBranch": "main", "slug": "quiet-running-river",
                "type": "user",
                "message": {"role": "user", "content": [{"tool_use_id": call_id, "type": "tool_result", "content": text, "is_error": failed}]},
                "uuid": uid, "timestamp": timestamp(clock),
                "toolUseResult": {"stdout": "", "stderr": "", "interrupted": false, "isImage": false, "returnCodeInterpretation": if failed { "error" } else { "ok" }},
                "sourceToolAssistantUUID": parent
            });
            parent = uid;
            line(out, &result)?;
        }
        let rec = assistant(
            &mut rng,
            &parent,
            "msg_01final000000000000000000",
            &json!([{"type": "text", "text": "Pagination is in place and the whole test suite passes."}]),
            clock + 2,
        );
        line(out, &rec)
    }
}

fn line(out: &mut impl Write, value: &Value) -> io::Result<()> {
    serde_json::to_writer(&mut *out, value)?;
    out.write_all(b"\n")
}

fn assistant(rng: &mut Rng, parent: &str, message_id: &str, content: &Value, clock: u64) -> Value {
    json!({
        "parentUuid": parent, "isSidechain": false, "userType": "external", "cwd": CWD,
        "sessionId": SESSION, "version": "2.1.39", "gitBranch": "main", "slug": "quiet-running-river",
        "message": {
            "model": "claude-opus-4-6", "id": message_id, "type": "message", "role": "assistant",
            "content": content, "stop_reason": null, "stop_sequence": null,
            "usage": {"input_tokens": 4, "cache_creation_input_tokens": 1203, "cache_read_input_tokens": 48211,
                      "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 1203},
                      "output_tokens": 96, "service_tier": "standard"}
        },
        "requestId": format!("req_011C{:018x}", rng.next()),
        "type": "assistant", "uuid": uuid(rng), "timestamp": timestamp(clock)
    })
}

fn tool(rng: &mut Rng, i: usize) -> (&'static str, Value) {
    let file = format!("{CWD}/{}", rng.pick(FILES));
    match rng.below(20) {
        0..=7 => (
            "Bash",
            json!({"command": rng.pick(COMMANDS), "description": format!("Run check {i}")}),
        ),
        8..=12 => ("Read", json!({"file_path": file})),
        13..=15 => (
            "Edit",
            json!({"file_path": file, "old_string": "let page = 1;", "new_string": format!("let page = params.page.unwrap_or({i});"), "replace_all": false}),
        ),
        16..=17 => (
            "Grep",
            json!({"pattern": "fn list_users", "path": format!("{CWD}/src"), "output_mode": "content"}),
        ),
        18 => (
            "Write",
            json!({"file_path": file, "content": format!("// generated step {i}\npub fn handler() {{}}\n")}),
        ),
        _ => ("Glob", json!({"pattern": "src/**/*.rs"})),
    }
}

fn result_text(rng: &mut Rng, bytes: usize, failed: bool) -> String {
    let mut text = String::with_capacity(bytes + 80);
    if failed {
        text.push_str("Exit code 1\n");
    }
    let mut n = 0;
    while text.len() < bytes {
        n += 1;
        let line = match rng.below(4) {
            0 => format!("test api::users::page_{n} ... ok\n"),
            1 => format!(
                "src/api/users.rs:{}:{}: warning: unused variable: `offset`\n",
                rng.below(400),
                rng.below(80)
            ),
            2 => format!(
                "   Compiling inventory-service v0.{}.0 (\"{CWD}\")\n",
                rng.below(9)
            ),
            _ => format!(
                "\t{{\"id\": {}, \"name\": \"user-{n}\", \"active\": true}}\n",
                rng.below(100_000)
            ),
        };
        text.push_str(&line);
    }
    text
}

fn uuid(rng: &mut Rng) -> String {
    let a = rng.next();
    let b = rng.next();
    format!(
        "{:08x}-{:04x}-4{:03x}-{:04x}-{:012x}",
        a >> 32,
        (a >> 16) & 0xffff,
        a & 0xfff,
        0x8000 | (b >> 48) & 0x3fff,
        b & 0xffff_ffff_ffff
    )
}

fn timestamp(secs: u64) -> String {
    let (day, rest) = (secs / 86_400, secs % 86_400);
    format!(
        "2026-01-{:02}T{:02}:{:02}:{:02}.{:03}Z",
        1 + day % 28,
        rest / 3600,
        rest / 60 % 60,
        rest % 60,
        secs % 1000
    )
}

/// Returns the path of a generated log of `calls` tool calls (the default shape), written to a
/// temporary folder on first use in this process and removed when it ends normally.
pub fn claude_log_file(calls: usize) -> io::Result<std::path::PathBuf> {
    static DIR: std::sync::OnceLock<Option<tempfile::TempDir>> = std::sync::OnceLock::new();
    let dir = DIR
        .get_or_init(|| tempfile::tempdir().ok())
        .as_ref()
        .ok_or_else(|| io::Error::other("cannot make a temporary folder"))?;
    let path = dir.path().join(format!("claude-{calls}.jsonl"));
    if !path.exists() {
        let mut out = io::BufWriter::new(std::fs::File::create(&path)?);
        ClaudeLog {
            tool_calls: calls,
            ..ClaudeLog::default()
        }
        .write(&mut out)?;
        out.flush()?;
    }
    Ok(path)
}

/// Returns the largest number of tool calls a benchmark generates: `VOUCH_BENCH_CALLS`, else
/// 100,000.
pub fn bench_calls() -> usize {
    std::env::var("VOUCH_BENCH_CALLS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(100_000)
}
