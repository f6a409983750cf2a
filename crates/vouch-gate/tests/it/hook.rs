//! The stop hook's evaluation on a Claude Code transcript.

use vouch_gate::{GateSet, HookInput, Verdict, evaluate_stop};

fn transcript(dir: &std::path::Path, lines: &[serde_json::Value]) -> std::path::PathBuf {
    let path = dir.join("session.jsonl");
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn the_stop_gate_reads_the_transcript_tail() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("vouch.yaml"),
        "Hooks:\n  Stop: [RequireShellPass]\n",
    )
    .unwrap();
    let user = |t: &str| serde_json::json!({"type": "user", "sessionId": "s", "message": {"role": "user", "content": t}});
    let bash = |id: &str, cmd: &str| serde_json::json!({"type": "assistant", "sessionId": "s", "message": {"id": id, "role": "assistant", "content": [{"type": "tool_use", "id": id, "name": "Bash", "input": {"command": cmd}}]}});
    let ok = |id: &str| serde_json::json!({"type": "user", "sessionId": "s", "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": id, "content": "ok"}]}});
    let path = transcript(
        dir.path(),
        &[
            user("fix it"),
            bash("b1", "cargo test"),
            ok("b1"),
            user("now the docs"),
        ],
    );
    let gates = GateSet::load(&dir.path().join("vouch.yaml")).unwrap();
    let input = HookInput::parse(&serde_json::json!({
        "session_id": "s", "transcript_path": path, "cwd": dir.path(), "hook_event_name": "Stop", "stop_hook_active": false
    }).to_string()).unwrap();
    let Verdict::Block(b) = evaluate_stop(&input, &gates, dir.path()) else {
        panic!("the run was in an earlier turn")
    };
    assert!(
        b.message
            .starts_with("Completion blocked: no shell_run passed this turn."),
        "{}",
        b.message
    );
    assert!(
        b.message.ends_with("2. Then finish your response again."),
        "{}",
        b.message
    );
    transcript(
        dir.path(),
        &[
            user("fix it"),
            user("now the docs"),
            bash("b2", "cargo test"),
            ok("b2"),
        ],
    );
    assert_eq!(evaluate_stop(&input, &gates, dir.path()), Verdict::Pass);
}
