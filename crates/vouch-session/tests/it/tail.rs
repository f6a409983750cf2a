//! Reading only the last turns of a log.

use std::fmt::Write;

use vouch_session::{Format, ReadOptions, Session, read_path};

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

/// One step of a generated turn.
#[derive(Debug, Clone)]
enum Step {
    Say(String),
    Run {
        command: String,
        output: String,
        exit: i32,
    },
}

/// Generated turns: each a user's message and what the agent did.
fn turns() -> impl proptest::strategy::Strategy<Value = Vec<(String, Vec<Step>)>> {
    use proptest::prelude::*;
    let step = prop_oneof![
        "[a-z ]{1,12}".prop_map(Step::Say),
        ("[a-z]{1,8}", "[a-z\n]{0,20}", 0..3i32).prop_map(|(command, output, exit)| Step::Run {
            command,
            output,
            exit
        }),
    ];
    proptest::collection::vec(("[a-z]{1,10}", proptest::collection::vec(step, 0..4)), 1..7)
}

/// Writes `turns` as a log of `format`.
fn write_log(format: Format, turns: &[(String, Vec<Step>)]) -> String {
    use serde_json::json;
    let mut out = String::new();
    let mut n = 0;
    let mut line = |v: serde_json::Value| writeln!(out, "{v}").unwrap();
    if format == Format::Codex {
        line(json!({"type": "session_meta", "payload": {"id": "p", "cwd": "/p"}}));
    }
    for (user, steps) in turns {
        match format {
            Format::ClaudeCode => line(
                json!({"type": "user", "sessionId": "p", "message": {"role": "user", "content": user}}),
            ),
            Format::Codex => line(
                json!({"type": "response_item", "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": user}]}}),
            ),
            _ => line(json!({"role": "user", "content": user})),
        }
        for step in steps {
            n += 1;
            let id = format!("c{n}");
            match (format, step) {
                (Format::ClaudeCode, Step::Say(text)) => line(
                    json!({"type": "assistant", "sessionId": "p", "message": {"id": format!("m{n}"), "role": "assistant", "content": [{"type": "text", "text": text}]}}),
                ),
                (
                    Format::ClaudeCode,
                    Step::Run {
                        command,
                        output,
                        exit,
                    },
                ) => {
                    line(
                        json!({"type": "assistant", "sessionId": "p", "message": {"id": format!("m{n}"), "role": "assistant", "content": [{"type": "tool_use", "id": id, "name": "Bash", "input": {"command": command}}]}}),
                    );
                    let content = if *exit == 0 {
                        output.clone()
                    } else {
                        format!("Exit code {exit}\n{output}")
                    };
                    line(
                        json!({"type": "user", "sessionId": "p", "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": id, "content": content, "is_error": *exit != 0}]}}),
                    );
                }
                (Format::Codex, Step::Say(text)) => line(
                    json!({"type": "response_item", "payload": {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": text}]}}),
                ),
                (
                    Format::Codex,
                    Step::Run {
                        command,
                        output,
                        exit,
                    },
                ) => {
                    line(
                        json!({"type": "response_item", "payload": {"type": "function_call", "name": "shell", "arguments": json!({"command": ["bash", "-lc", command]}).to_string(), "call_id": id}}),
                    );
                    line(
                        json!({"type": "response_item", "payload": {"type": "function_call_output", "call_id": id, "output": json!({"output": output, "metadata": {"exit_code": exit}}).to_string()}}),
                    );
                }
                (_, Step::Say(text)) => line(json!({"role": "assistant", "content": text})),
                (
                    _,
                    Step::Run {
                        command,
                        output,
                        exit,
                    },
                ) => {
                    line(
                        json!({"role": "assistant", "tool_calls": [{"id": id, "type": "function", "function": {"name": "shell_run", "arguments": json!({"command": command}).to_string()}}]}),
                    );
                    let content = if *exit == 0 {
                        output.clone()
                    } else {
                        format!("[EXIT {exit}] {output}")
                    };
                    line(json!({"role": "tool", "tool_call_id": id, "content": content}));
                }
            }
        }
    }
    out
}

/// What an event says, without its place in the log (a tail numbers neither lines nor seqs
/// the way a whole read does).
fn said(s: &Session, events: &[vouch_session::Event]) -> Vec<String> {
    events.iter().map(|e| s.event_line(e)).collect()
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
    #[test]
    fn the_last_turns_of_a_log_are_the_last_turns_of_a_whole_read(
        turns in turns(),
        wanted in 1usize..8,
    ) {
        let dir = tempfile::tempdir().unwrap();
        for format in [Format::ClaudeCode, Format::Codex, Format::Chat] {
            let path = dir.path().join(format!("{format}.jsonl"));
            std::fs::write(&path, write_log(format, &turns)).unwrap();
            let options = ReadOptions { format: Some(format), ..ReadOptions::default() };
            let whole = read_path(&path, &options).unwrap().session;
            let tail = read_path(&path, &ReadOptions { last_turns: Some(wanted), ..options }).unwrap().session;
            let all_turns = whole.turns();
            let from = all_turns.len().saturating_sub(wanted);
            let expected: Vec<String> = all_turns[from..]
                .iter()
                .flat_map(|t| said(&whole, t.events))
                .collect();
            let got: Vec<String> = tail.turns().iter().flat_map(|t| said(&tail, t.events)).collect();
            proptest::prop_assert_eq!(got, expected, "{} with {} of {} turns", format, wanted, all_turns.len());
        }
    }
}
