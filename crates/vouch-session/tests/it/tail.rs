//! Reading only the last turns of a log.

use std::fmt::Write;

use vouch_session::{ReadOptions, Session, read_path};

use crate::support::fixture;

fn last(rel: &str, turns: usize) -> Session {
    let options = ReadOptions {
        last_turns: Some(turns),
        ..ReadOptions::default()
    };
    read_path(&fixture(rel), &options).unwrap().session
}

fn user_messages(s: &Session) -> Vec<&str> {
    s.events
        .iter()
        .filter(|e| e.is_user_message())
        .filter_map(|e| e.as_message())
        .collect()
}

#[test]
fn the_last_turn_of_a_chat_log() {
    let s = last("chat/pipeline.jsonl", 1);
    assert_eq!(user_messages(&s), vec!["[routing] Developer -> Tester"]);
    assert_eq!(s.events[0].line, None, "a tail does not number its events");
    assert_eq!(s.events[0].seq, 0);
    assert_eq!(s.tool_calls().count(), 1);
    let whole = last("chat/pipeline.jsonl", 5);
    assert_eq!(
        user_messages(&whole).len(),
        2,
        "asking for more turns than there are reads all"
    );
}

#[test]
fn a_tail_reads_the_subagents_it_links_to_a_call() {
    let s = last("claude/nested/n-1.jsonl", 1);
    let ids: Vec<&str> = s.walk().iter().map(|(_, s)| s.id.as_str()).collect();
    assert_eq!(
        ids,
        vec!["n-1", "a1", "b2"],
        "the compaction agent is linked to no call"
    );
}

#[test]
fn diagnostics_of_a_tail_keep_their_real_line_numbers() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("chat.jsonl");
    let text = "{\"role\": \"user\", \"content\": \"a\"}\nbroken\n{\"role\": \"user\", \"content\": \"b\"}\n{\"role\": \"assistant\", \"content\": \"x\"}\nbroken again\n";
    std::fs::write(&path, text).unwrap();
    let options = ReadOptions {
        last_turns: Some(1),
        ..ReadOptions::default()
    };
    let report = read_path(&path, &options).unwrap();
    let lines: Vec<u64> = report.diagnostics.iter().map(|d| d.line).collect();
    assert_eq!(lines, vec![5], "line 2 is before the tail; line 5 is in it");
}

#[test]
fn codex_tails_skip_injected_context() {
    let s = last("codex/exec-end.jsonl", 1);
    assert_eq!(user_messages(&s), vec!["Make the tests pass."]);
    assert!(s.events[0].is_user_message());
}

#[test]
fn long_logs_read_their_last_turns_with_outputs_that_load() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("many-turns.jsonl");
    let mut log = String::new();
    for turn in 0..200 {
        let user = serde_json::json!({"type": "user", "sessionId": "m", "message": {"role": "user", "content": format!("turn {turn}")}});
        let call = serde_json::json!({"type": "assistant", "sessionId": "m", "message": {"id": format!("m{turn}"), "role": "assistant",
            "content": [{"type": "tool_use", "id": format!("t{turn}"), "name": "Bash", "input": {"command": format!("make {turn}")}}]}});
        let output = format!("output of turn {turn}\n").repeat(60);
        let result = serde_json::json!({"type": "user", "sessionId": "m", "message": {"role": "user",
            "content": [{"type": "tool_result", "tool_use_id": format!("t{turn}"), "content": output}]}});
        writeln!(log, "{user}\n{call}\n{result}").unwrap();
    }
    std::fs::write(&path, log).unwrap();
    let options = ReadOptions {
        last_turns: Some(2),
        ..ReadOptions::default()
    };
    let s = read_path(&path, &options).unwrap().session;
    assert_eq!(user_messages(&s), vec!["turn 198", "turn 199"]);
    assert!(s.events.iter().all(|e| e.line.is_none()));
    let result = s.tool_results().last().unwrap();
    assert!(!result.output.is_complete());
    assert_eq!(
        s.output_text(&result.output).unwrap(),
        "output of turn 199\n".repeat(60)
    );
}
