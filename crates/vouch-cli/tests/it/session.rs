//! `vouch session show` and `vouch session stats`.

use crate::support::{fixtures, render, vouch, vouch_with_stdin};

#[test]
fn show_prints_a_timeline_with_subagents_under_their_calls() {
    let out = vouch(&["session", "show", "claude/nested/n-1.jsonl"]);
    insta::assert_snapshot!(render(&out));
}

#[test]
fn show_marks_every_outcome() {
    let out = vouch(&["session", "show", "claude/tool-errors.jsonl"]);
    insta::assert_snapshot!(render(&out));
}

#[test]
fn show_json_is_the_normalized_session() {
    let out = vouch(&[
        "session",
        "show",
        "--format",
        "json",
        "codex/exec-end.jsonl",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["id"], "cx-1");
    assert_eq!(doc["agent"], "codex");
    assert_eq!(doc["events"][3]["outcome"]["exit_code"], 101);
    assert_eq!(doc["source"]["format"], "codex");
    assert!(out.stderr.is_empty());
}

#[test]
fn jsonl_output_reads_back_from_stdin() {
    let first = vouch(&[
        "session",
        "show",
        "--format",
        "jsonl",
        "claude/nested/n-1.jsonl",
    ]);
    assert_eq!(first.status.code(), Some(0));
    let again = vouch_with_stdin(
        &["session", "show", "--format", "jsonl", "-"],
        &first.stdout,
    );
    assert_eq!(
        again.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    assert_eq!(first.stdout, again.stdout);
}

#[test]
fn stats_count_per_name_kind_and_subagent() {
    let out = vouch(&["session", "stats", "chat/pipeline.json"]);
    insta::assert_snapshot!(render(&out));
    let out = vouch(&[
        "session",
        "stats",
        "--format",
        "json",
        "claude/nested/n-1.jsonl",
    ]);
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["by_name"]["Task"], 1);
    assert_eq!(doc["subagents"][0]["id"], "a1");
    assert_eq!(doc["subagents"][0]["subagents"][0]["by_kind"]["search"], 1);
}

#[test]
fn bad_lines_are_reported_and_make_the_exit_code_2() {
    let out = vouch(&["session", "stats", "chat/bad.jsonl"]);
    insta::assert_snapshot!(render(&out));
}

#[test]
fn strict_stops_at_the_first_bad_line() {
    let out = vouch(&["session", "show", "--strict", "claude/bad-lines.jsonl"]);
    insta::assert_snapshot!(render(&out), @r"
    exit: 2
    ----- stdout -----
    ----- stderr -----
    error: claude/bad-lines.jsonl:3:2: not JSON: expected ident
    ");
}

#[test]
fn a_torn_last_line_is_a_note_not_a_failure() {
    let out = vouch(&["session", "stats", "claude/torn.jsonl"]);
    assert_eq!(out.status.code(), Some(0));
    insta::assert_snapshot!(String::from_utf8_lossy(&out.stderr), @"claude/torn.jsonl:4:200: incomplete last line skipped (is the file still being written?): not JSON: EOF while parsing a string");
}

#[test]
fn the_format_can_be_forced() {
    let out = vouch(&[
        "session",
        "stats",
        "--log-format",
        "codex",
        "chat/pipeline.jsonl",
    ]);
    // Chat lines carry no Codex records: reading nothing from a non-empty file is an input
    // error that names the format tried, not a silent zero.
    assert_eq!(out.status.code(), Some(2), "{}", render(&out));
    insta::assert_snapshot!(String::from_utf8_lossy(&out.stderr), @"error: failed to read `chat/pipeline.jsonl`: no message or tool call could be read from it as a Codex log (hint: if it is another agent's log, force its format with --log-format)");
    let doc = vouch(&[
        "session",
        "stats",
        "--format",
        "json",
        "--log-format",
        "chat",
        "chat/pipeline.jsonl",
    ]);
    let doc: serde_json::Value = serde_json::from_slice(&doc.stdout).unwrap();
    assert!(doc["tool_calls"].as_u64().unwrap() > 0);
}

#[test]
fn unreadable_input_is_one_line_and_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.jsonl");
    std::fs::write(&empty, "").unwrap();
    let binary = dir.path().join("binary.jsonl");
    std::fs::write(&binary, b"\x00\x01\x02").unwrap();
    let latin1 = dir.path().join("latin1.jsonl");
    std::fs::write(&latin1, b"{\"role\":\"user\",\"content\":\"caf\xe9\"}\n").unwrap();
    let mut lines = Vec::new();
    for path in [
        "no-such-file.jsonl".to_owned(),
        "claude".to_owned(),
        empty.display().to_string(),
        binary.display().to_string(),
        latin1.display().to_string(),
    ] {
        let out = vouch(&["session", "show", &path]);
        assert_eq!(out.status.code(), Some(2), "{path}");
        assert!(out.stdout.is_empty());
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        lines.push(stderr.replace(&*dir.path().to_string_lossy(), "<tmp>"));
    }
    insta::assert_snapshot!(lines.concat(), @r"
    error: failed to read `no-such-file.jsonl`: no such file
    error: failed to read `claude`: it is a directory (hint: pass the session's .jsonl file)
    error: failed to read `<tmp>/empty.jsonl`: the file is empty
    error: failed to read `<tmp>/binary.jsonl`: it is a binary file, not a text log
    error: failed to read `<tmp>/latin1.jsonl`: line 1 is not valid UTF-8
    ");
}

#[test]
fn colour_follows_the_flag() {
    let plain = vouch(&["session", "show", "claude/crlf.jsonl"]);
    assert!(!String::from_utf8_lossy(&plain.stdout).contains('\u{1b}'));
    let coloured = vouch(&["--color", "always", "session", "show", "claude/crlf.jsonl"]);
    assert!(String::from_utf8_lossy(&coloured.stdout).contains('\u{1b}'));
    assert!(fixtures().is_dir());
}

#[test]
fn receipts_list_each_command_and_whether_strict_evidence_counts_it() {
    let out = vouch(&["session", "receipts", "codex/exec-end.jsonl"]);
    insta::assert_snapshot!(render(&out));
    let chat = serde_json::json!([
        {"role": "user", "content": "test it"},
        {"role": "assistant", "tool_calls": [
            {"id": "a", "type": "function", "function": {"name": "shell_run", "arguments": "{\"command\": \"pytest -q || true\"}"}},
            {"id": "b", "type": "function", "function": {"name": "shell_run", "arguments": "{\"command\": \"pytest -q -k nope\"}"}},
            {"id": "c", "type": "function", "function": {"name": "shell_run", "arguments": "{\"command\": \"set -o pipefail; pytest -q | tail -3\"}"}}]},
        {"role": "tool", "tool_call_id": "a", "content": "1 failed"},
        {"role": "tool", "tool_call_id": "b", "content": "3 deselected in 0.01s"},
        {"role": "tool", "tool_call_id": "c", "content": "3 passed"},
        {"role": "tool", "tool_call_id": "z", "content": "3 passed"}
    ]);
    let out = vouch_with_stdin(&["session", "receipts", "-"], chat.to_string().as_bytes());
    insta::assert_snapshot!(render(&out));
    let json = vouch(&[
        "session",
        "receipts",
        "codex/exec-end.jsonl",
        "--format",
        "json",
    ]);
    let doc: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(doc["receipts"][0]["exit_code"], 101);
    assert_eq!(doc["receipts"][1]["passing"], true);
    assert_eq!(
        doc["receipts"][1]["output_sha256"].as_str().map(str::len),
        Some(64)
    );
}

/// Claude Code writes files holding only session summaries, or only file-history snapshots:
/// they are Claude Code files, read as empty sessions, not refused as an unknown format.
#[test]
fn claude_code_files_of_summaries_or_snapshots_alone_read_as_empty_sessions() {
    for fixture in ["claude/summary-only.jsonl", "claude/snapshot-only.jsonl"] {
        let out = vouch(&["session", "stats", fixture]);
        assert_eq!(out.status.code(), Some(0), "{}", render(&out));
        insta::assert_snapshot!(fixture.replace(['/', '.'], "_"), render(&out));
    }
}
