//! A gate never passes over a log vouch could not read (decision D20): the stop hook and an
//! agent test's `gate:` assertion block a transcript with a garbage or a torn line alike, with
//! one message.

use std::path::Path;

use serde_json::json;
use vouch_gate::{GateSet, HookInput, PipelineConfig, Verdict, evaluate_stop};
use vouch_harness::NoGrader;
use vouch_harness::evaluate::evaluate;

use crate::support::test;

/// A Claude Code transcript in which `cargo test` ran and passed, with `extra` written after
/// the last line.
fn transcript(dir: &Path, extra: &str) -> std::path::PathBuf {
    let lines = [
        json!({"type": "user", "sessionId": "s", "message": {"role": "user", "content": "fix it"}}),
        json!({"type": "assistant", "sessionId": "s", "message": {"id": "m1", "role": "assistant", "content": [{"type": "tool_use", "id": "b1", "name": "Bash", "input": {"command": "cargo test"}}]}}),
        json!({"type": "user", "sessionId": "s", "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "b1", "content": "test result: ok. 3 passed"}]}}),
        json!({"type": "assistant", "sessionId": "s", "message": {"id": "m2", "role": "assistant", "content": [{"type": "text", "text": "Done."}]}}),
    ];
    let mut text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    text.push_str(extra);
    let path = dir.join("session.jsonl");
    std::fs::write(&path, text).unwrap();
    path
}

/// The hook's verdict and the `gate: RequireShellPass` row's reason on the same transcript.
fn hook_and_test(extra: &str) -> (Verdict, Option<String>) {
    let dir = tempfile::tempdir().unwrap();
    let path = transcript(dir.path(), extra);
    let config = dir.path().join("vouch.yaml");
    std::fs::write(&config, "Hooks:\n  Stop: [RequireShellPass]\n").unwrap();
    let gates = GateSet::load(&config).unwrap();
    let input = HookInput::parse(
        &json!({"session_id": "s", "transcript_path": path, "cwd": dir.path(),
            "hook_event_name": "Stop", "stop_hook_active": false})
        .to_string(),
    )
    .unwrap();
    let hook = evaluate_stop(&input, &gates, dir.path());

    let t = test("name: t\nprompt: fix it\nassertions:\n  - gate: RequireShellPass\n");
    let log = vouch_session::read_path(&path, &vouch_session::ReadOptions::default()).unwrap();
    let empty = PipelineConfig::empty(Path::new("vouch.yaml"));
    let rows = evaluate(&t, &log, dir.path(), &empty, &NoGrader);
    let reason = (!rows[0].passed).then(|| rows[0].reason.clone().unwrap_or_default());
    let shown = |text: String| text.replace(&*dir.path().to_string_lossy(), "<dir>");
    (
        match hook {
            Verdict::Block(b) => Verdict::block(b.validator, shown(b.message)),
            Verdict::Pass => Verdict::Pass,
        },
        reason.map(shown),
    )
}

#[test]
fn a_clean_transcript_passes_both() {
    assert_eq!(hook_and_test(""), (Verdict::Pass, None));
}

#[test]
fn a_garbage_line_blocks_the_hook_and_the_gate_assertion_with_one_message() {
    let (hook, row) = hook_and_test("this is not json\n");
    let Verdict::Block(block) = hook else {
        panic!("the hook let the agent stop over an unreadable line")
    };
    assert_eq!(block.validator, "vouch");
    assert_eq!(Some(&block.message), row.as_ref());
    insta::assert_snapshot!(block.message, @r"
    Completion blocked: the session log has 1 line(s) vouch could not read (the first: <dir>/session.jsonl:5:2: not JSON: expected ident).
    vouch does not let a completion through on evidence it cannot read; fix the log, then retry.
    ");
}

#[test]
fn a_torn_last_line_blocks_the_hook_and_the_gate_assertion_with_one_message() {
    let (hook, row) = hook_and_test(r#"{"type": "assistant", "sessionId": "s", "mess"#);
    let Verdict::Block(block) = hook else {
        panic!("the hook let the agent stop over a torn line")
    };
    assert_eq!(Some(&block.message), row.as_ref());
    assert!(
        block.message.contains("1 line(s) vouch could not read"),
        "{}",
        block.message
    );
}
