//! `vouch hook claude-code` end to end: a Claude Code transcript, the hook's stdin and stdout.

use std::path::Path;

use serde_json::json;

use crate::support::vouch_in_with_stdin;

#[derive(Default)]
struct Transcript {
    lines: Vec<serde_json::Value>,
    n: usize,
}

impl Transcript {
    fn rec(&mut self, kind: &str, message: &serde_json::Value) {
        self.n += 1;
        self.lines.push(json!({"type": kind, "sessionId": "hook-1", "uuid": format!("u{}", self.n), "cwd": "/p", "isSidechain": false,
            "timestamp": format!("2026-05-01T10:00:{:02}Z", self.n), "message": message}));
    }
    fn user(&mut self, text: &str) {
        self.rec("user", &json!({"role": "user", "content": text}));
    }
    fn say(&mut self, text: &str) {
        let id = format!("m{}", self.n);
        self.rec(
            "assistant",
            &json!({"id": id, "role": "assistant", "content": [{"type": "text", "text": text}]}),
        );
    }
    fn bash(&mut self, command: &str, output: &str, is_error: bool) {
        let id = format!("toolu_{}", self.n);
        self.rec("assistant", &json!({"id": format!("m{}", self.n), "role": "assistant", "content": [{"type": "tool_use", "id": id, "name": "Bash", "input": {"command": command}}]}));
        self.rec("user", &json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": id, "content": output, "is_error": is_error}]}));
    }
    fn save(&self, path: &Path) {
        let text: String = self.lines.iter().map(|l| format!("{l}\n")).collect();
        std::fs::write(path, text).unwrap();
    }
}

fn stop(dir: &Path, transcript: &Path) -> (i32, String) {
    let input = json!({"session_id": "hook-1", "transcript_path": transcript, "cwd": dir, "hook_event_name": "Stop", "stop_hook_active": false});
    let out = vouch_in_with_stdin(dir, &["hook", "claude-code"], input.to_string().as_bytes());
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
    )
}

#[test]
fn an_unbacked_claim_is_blocked_until_a_passing_run_then_stuck_after_three_blocks() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("vouch.yaml"),
        "Hooks:\n  Stop: [RequireShellPass]\n  RequiredCommandPattern: \"cargo test|pytest\"\n",
    )
    .unwrap();
    let path = dir.path().join("transcript.jsonl");
    let mut t = Transcript::default();
    t.user("Fix the parser bug and make sure all tests pass.");
    t.bash("cargo build", "Finished", false);
    t.bash(
        "cargo test",
        "Exit code 101\ntest parser::nested ... FAILED",
        true,
    );
    t.say("Fixed the bug. All tests pass.");
    t.save(&path);

    let (code, stdout) = stop(dir.path(), &path);
    assert_eq!(code, 0, "the hook answers in Claude Code's protocol");
    let answer: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(answer["decision"], "block");
    insta::assert_snapshot!(answer["reason"].as_str().unwrap(), @r"
    Completion blocked: no matching (cargo test|pytest) shell_run passed this turn.
    The validator checks THIS TURN ONLY — prior-turn runs do not carry forward.
    1. Call shell_run to run the required command (exit 0).
    2. Then finish your response again.
    ");

    // Claude Code continues the turn: the agent runs the tests for real.
    t.bash("cargo test", "test result: ok. 41 passed; 0 failed", false);
    t.say("All 41 tests pass now.");
    t.save(&path);
    assert_eq!(
        stop(dir.path(), &path),
        (0, String::new()),
        "a backed claim is allowed: no output"
    );

    // A new request, a claim with nothing behind it, three times in a row.
    t.user("Now update the docs.");
    t.say("Docs updated; all tests pass.");
    t.save(&path);
    for attempt in 1..=2 {
        let (code, stdout) = stop(dir.path(), &path);
        assert_eq!(code, 0);
        assert!(
            stdout.contains("\"decision\":\"block\""),
            "attempt {attempt}: {stdout}"
        );
    }
    let (code, stdout) = stop(dir.path(), &path);
    assert_eq!(code, 0);
    let answer: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert!(
        answer.get("decision").is_none(),
        "stuck: the hook stops blocking"
    );
    let message = answer["systemMessage"].as_str().unwrap();
    assert!(
        message.starts_with(
            "vouch: the agent is stuck — RequireShellPass blocked it 3 times in a row"
        ),
        "{message}"
    );
    let state: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join(".vouch/hook-state.json")).unwrap(),
    )
    .unwrap();
    assert!(
        state["sessions"].get("hook-1").is_none(),
        "the count starts over"
    );
}

#[test]
fn without_a_configuration_the_hook_allows() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.jsonl");
    let mut t = Transcript::default();
    t.user("hi");
    t.save(&path);
    assert_eq!(stop(dir.path(), &path), (0, String::new()));
}

#[test]
fn a_broken_configuration_blocks_and_says_why() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("vouch.yaml"),
        "Hooks:\n  Stop: [RequireMagic]\n",
    )
    .unwrap();
    let path = dir.path().join("t.jsonl");
    let mut t = Transcript::default();
    t.user("hi");
    t.save(&path);
    let (code, stdout) = stop(dir.path(), &path);
    assert_eq!(code, 0);
    let answer: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let reason = answer["reason"].as_str().unwrap();
    assert!(
        reason.starts_with("Completion blocked: vouch could not load its configuration:"),
        "{reason}"
    );
    assert!(
        reason.contains("unknown validator `RequireMagic`"),
        "{reason}"
    );
}

#[test]
fn bad_hook_input_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    let out = vouch_in_with_stdin(dir.path(), &["hook", "claude-code"], b"not json");
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn a_transcript_with_a_garbage_line_blocks_a_stop_the_evidence_would_allow() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("vouch.yml"),
        "Hooks:\n  Stop: [RequireShellPass]\n",
    )
    .unwrap();
    let path = dir.path().join("transcript.jsonl");
    let mut t = Transcript::default();
    t.user("fix it");
    t.bash("cargo test", "test result: ok. 3 passed", false);
    t.say("Done.");
    t.save(&path);
    assert_eq!(
        stop(dir.path(), &path),
        (0, String::new()),
        "the run passed"
    );
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push_str("{\"type\": \"assistant\", garbage\n");
    std::fs::write(&path, text).unwrap();
    let (code, stdout) = stop(dir.path(), &path);
    assert_eq!(code, 0);
    let answer: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(answer["decision"], "block");
    let reason = answer["reason"].as_str().unwrap();
    assert!(
        reason.starts_with(
            "Completion blocked: the session log has 1 line(s) vouch could not read (the first: "
        ),
        "{reason}"
    );
    assert!(reason.contains("transcript.jsonl:5:"), "{reason}");
}
