//! The Claude Code reader.

use vouch_session::{Outcome, ReadOptions, Role, ToolKind};

use crate::support::{describe, fixture, read, read_with};

#[test]
fn tool_result_errors_become_outcomes() {
    let report = read("claude/tool-errors.jsonl");
    insta::assert_snapshot!(describe(&report));
    let outcomes: Vec<Outcome> = report.session.tool_results().map(|r| r.outcome).collect();
    assert_eq!(
        outcomes,
        vec![
            Outcome::Failed {
                exit_code: Some(101)
            },
            Outcome::Denied,
            Outcome::TimedOut,
            Outcome::Error,
            Outcome::Ok,
        ]
    );
    assert_eq!(
        report.session.final_answer(),
        Some("The tests still fail; I opened issue #12.")
    );
}

#[test]
fn split_assistant_records_merge_into_one_message() {
    let report = read("claude/split-records.jsonl");
    insta::assert_snapshot!(describe(&report));
    let calls: Vec<&str> = report
        .session
        .tool_calls()
        .map(|c| c.call_id.as_str())
        .collect();
    assert_eq!(
        calls,
        vec!["w1", "b1"],
        "the repeated blocks of msg_A are taken once"
    );
    let texts = report
        .session
        .events
        .iter()
        .filter(|e| e.actor.role == Role::Assistant && e.as_message().is_some())
        .count();
    assert_eq!(texts, 2);
}

#[test]
fn a_second_call_under_one_id_with_another_input_is_kept() {
    // A repeated block (same id, same input) is one call; the same id with another input is a
    // call of its own, which strict evidence reports as ambiguous rather than never seeing it.
    let line = |n: u32, command: &str| {
        format!(
            r#"{{"type":"assistant","sessionId":"s","uuid":"a{n}","message":{{"id":"m1","role":"assistant","content":[{{"type":"tool_use","id":"c1","name":"Bash","input":{{"command":"{command}"}}}}]}}}}"#
        )
    };
    let log = [
        line(1, "cargo test"),
        line(2, "cargo test"),
        line(3, "echo done"),
    ]
    .join("\n");
    let report = vouch_session::read_from(log.as_bytes(), "log", &ReadOptions::default()).unwrap();
    let commands: Vec<&str> = report
        .session
        .tool_calls()
        .filter_map(|c| c.command())
        .collect();
    assert_eq!(commands, ["cargo test", "echo done"]);
}

#[test]
fn subagents_two_levels_deep_hang_under_their_calls() {
    let report = read("claude/nested/n-1.jsonl");
    insta::assert_snapshot!(describe(&report));
    let main = &report.session;
    assert_eq!(main.subagents.len(), 2, "a1 and the compaction agent");
    let a1 = main.subagent_of("task-1").unwrap();
    assert_eq!(a1.id, "a1");
    assert_eq!(a1.name.as_deref(), Some("Explore"));
    let b2 = a1.subagent_of("task-2").unwrap();
    assert_eq!(b2.id, "b2");
    assert_eq!(b2.tool_calls().next().unwrap().kind, ToolKind::Search);
    let compact = main
        .subagents
        .iter()
        .find(|s| s.id == "acompact-9")
        .unwrap();
    assert_eq!(compact.spawned_by, None);
}

#[test]
fn subagents_can_be_left_out() {
    let options = ReadOptions {
        no_subagents: true,
        ..ReadOptions::default()
    };
    let report = read_with("claude/nested/n-1.jsonl", &options);
    assert!(report.session.subagents.is_empty());
}

#[test]
fn inline_sidechains_link_by_prompt() {
    let report = read("claude/inline-sidechain.jsonl");
    insta::assert_snapshot!(describe(&report));
    let sub = report.session.subagent_of("task-old").unwrap();
    assert_eq!(sub.tool_calls().count(), 1);
    assert_eq!(
        report.session.tool_calls().count(),
        1,
        "sidechain calls stay out of the main session"
    );
}

#[test]
fn stream_json_output_groups_subagent_messages_by_parent_call() {
    let report = read("claude/stream-json.jsonl");
    insta::assert_snapshot!(describe(&report));
    assert_eq!(report.session.model.as_deref(), Some("claude-sonnet-4-5"));
    assert_eq!(
        report
            .session
            .subagent_of("task-9")
            .unwrap()
            .name
            .as_deref(),
        Some("Explore")
    );
}

#[test]
fn unknown_record_and_block_types_are_tolerated() {
    let report = read("claude/unknown-types.jsonl");
    assert!(report.diagnostics.is_empty(), "{:?}", report.diagnostics);
    insta::assert_snapshot!(describe(&report));
    let call = report.session.tool_calls().next().unwrap();
    assert_eq!((&*call.name, call.kind), ("web_search", ToolKind::Web));
    let meta = report
        .session
        .events
        .iter()
        .find(|e| e.actor.role == Role::System)
        .unwrap();
    assert!(meta.as_message().unwrap().contains("hook output"));
}

#[test]
fn a_torn_last_line_is_skipped_even_when_strict() {
    let strict = ReadOptions {
        strict: true,
        ..ReadOptions::default()
    };
    let report = read_with("claude/torn.jsonl", &strict);
    insta::assert_snapshot!(describe(&report));
    assert_eq!(report.bad_lines(), 0);
    assert_eq!(report.diagnostics.len(), 1);
}

#[test]
fn crlf_line_endings_read_like_lf() {
    let report = read("claude/crlf.jsonl");
    assert!(report.diagnostics.is_empty());
    insta::assert_snapshot!(describe(&report));
    let result = report.session.tool_results().next().unwrap();
    assert_eq!(
        result.output.text(),
        Some("a.txt\r\nb.txt"),
        "CR inside strings is data"
    );
}

#[test]
fn bad_lines_are_reported_with_their_numbers_and_skipped() {
    let report = read("claude/bad-lines.jsonl");
    insta::assert_snapshot!(describe(&report));
    assert_eq!(report.bad_lines(), 5);
    assert_eq!(
        report.session.tool_results().count(),
        1,
        "good lines after bad ones still count"
    );
}

#[test]
fn a_ten_megabyte_line_reads_whole() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big-line.jsonl");
    let big = "y".repeat(10 << 20);
    let line = serde_json::json!({
        "type": "user", "sessionId": "s", "uuid": "u",
        "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": big}]}
    });
    let call = r#"{"type":"assistant","sessionId":"s","message":{"id":"m","role":"assistant","content":[{"type":"tool_use","id":"t","name":"Read","input":{"file_path":"big.txt"}}]}}"#;
    std::fs::write(&path, format!("{call}\n{line}\n")).unwrap();
    let report = vouch_session::read_path(&path, &ReadOptions::default()).unwrap();
    assert!(report.diagnostics.is_empty());
    let result = report.session.tool_results().next().unwrap();
    assert!(
        !result.output.is_complete(),
        "10 MB of output is not held in memory"
    );
    assert_eq!(
        report.session.output_text(&result.output).unwrap().len(),
        10 << 20
    );
}

#[test]
fn long_outputs_are_spans_that_load_back_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("log.jsonl");
    let text = "line \"quoted\"\twith tab, é and 😀\n".repeat(100);
    let result = serde_json::json!({
        "type": "user", "sessionId": "s",
        "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": text}]}
    });
    std::fs::write(&path, format!("{result}\n")).unwrap();
    let report = vouch_session::read_path(&path, &ReadOptions::default()).unwrap();
    let out = &report.session.tool_results().next().unwrap().output;
    assert!(!out.is_complete());
    assert!(text.starts_with(out.preview()));
    assert_eq!(report.session.output_text(out).unwrap(), text);
    // Read from a stream, the same output is held whole.
    let bytes = std::fs::read(&path).unwrap();
    let streamed =
        vouch_session::read_from(bytes.as_slice(), "stdin", &ReadOptions::default()).unwrap();
    let out = &streamed.session.tool_results().next().unwrap().output;
    assert_eq!(out.text(), Some(text.as_str()));
}

#[test]
fn many_blocks_read_in_parallel_keep_their_order() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("gen.jsonl");
    let mut bytes = Vec::new();
    vouch_loggen::ClaudeLog {
        tool_calls: 3000,
        ..Default::default()
    }
    .write(&mut bytes)
    .unwrap();
    std::fs::write(&path, &bytes).unwrap();
    let parallel = vouch_session::read_path(&path, &ReadOptions::default()).unwrap();
    let streamed =
        vouch_session::read_from(bytes.as_slice(), "stdin", &ReadOptions::default()).unwrap();
    assert!(parallel.diagnostics.is_empty());
    assert_eq!(parallel.session.tool_calls().count(), 3000);
    assert_eq!(parallel.session.tool_results().count(), 3000);
    let ids =
        |s: &vouch_session::Session| s.events.iter().map(|e| (e.seq, e.line)).collect::<Vec<_>>();
    assert_eq!(ids(&parallel.session), ids(&streamed.session));
    for (seq, e) in parallel.session.events.iter().enumerate() {
        assert_eq!(e.seq as usize, seq);
    }
    let lines: Vec<u64> = parallel
        .session
        .events
        .iter()
        .filter_map(vouch_session::Event::line_number)
        .collect();
    assert!(
        lines.windows(2).all(|w| w[0] <= w[1]),
        "events follow the file's line order"
    );
    let results = parallel.session.results_by_call();
    for call in parallel.session.tool_calls() {
        assert!(results.contains_key(call.call_id.as_str()));
    }
    assert!(fixture("claude").is_dir());
}

#[test]
fn flat_subagent_files_attach_to_their_task_calls_and_tokens_count_once() {
    let report = read("claude/flat/f-1.jsonl");
    assert!(report.diagnostics.is_empty(), "{:?}", report.diagnostics);
    insta::assert_snapshot!(describe(&report));
    let main = &report.session;
    assert_eq!(
        main.subagents.len(),
        1,
        "the other session's agent file stays out"
    );
    let sub = main.subagent_of("toolu_task1").unwrap();
    assert_eq!(sub.id, "7c3e9a1b");
    assert_eq!(sub.name.as_deref(), Some("general-purpose"));
    // The parent's progress records mirror the subagent's call: it is counted once, in the
    // subagent.
    assert_eq!(main.tool_calls().count(), 1);
    assert_eq!(sub.tool_calls().count(), 1);
    // msg_01A's two lines repeat one usage: it counts once.
    let usage = main.usage.unwrap();
    assert_eq!(
        (
            usage.input,
            usage.output,
            usage.cache_read,
            usage.cache_write
        ),
        (150, 49, 12_100, 2_000)
    );
    assert_eq!(sub.usage.unwrap().output, 12);
}

/// Long lines are read without their longest literal and the literal is taken from where it
/// stands: the output, a long message and a long tool input read the same as short ones.
#[test]
fn long_outputs_messages_and_inputs_read_whole() {
    let output = "line \"one\"\\ é\n".repeat(300);
    let text = "I will write the file. ".repeat(200);
    let content = "fn main() {}\n".repeat(300);
    let lines = [
        serde_json::json!({"type": "user", "sessionId": "s", "uuid": "u1", "message": {"role": "user", "content": text}}),
        serde_json::json!({"type": "assistant", "sessionId": "s", "uuid": "u2", "message": {"id": "m1", "role": "assistant", "content": [
            {"type": "text", "text": text},
        ]}}),
        serde_json::json!({"type": "assistant", "sessionId": "s", "uuid": "u3", "message": {"id": "m1", "role": "assistant", "content": [
            {"type": "tool_use", "id": "t1", "name": "Write", "input": {"file_path": "src/main.rs", "content": content}},
        ]}}),
        serde_json::json!({"type": "user", "sessionId": "s", "uuid": "u4", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t1", "content": output, "is_error": false},
        ]}}),
    ];
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("long.jsonl");
    let body: String = lines.iter().map(|l| format!("{l}\n")).collect();
    assert!(
        body.lines().all(|l| l.len() > 2048),
        "every line takes the long path"
    );
    std::fs::write(&path, &body).unwrap();
    for report in [
        vouch_session::read_path(&path, &vouch_session::ReadOptions::default()).unwrap(),
        vouch_session::read_from(body.as_bytes(), "-", &vouch_session::ReadOptions::default())
            .unwrap(),
    ] {
        assert!(report.diagnostics.is_empty(), "{:?}", report.diagnostics);
        let s = &report.session;
        let messages: Vec<&str> = s.events.iter().filter_map(|e| e.as_message()).collect();
        assert_eq!(messages, vec![text.as_str(), text.as_str()]);
        let call = s.tool_calls().next().unwrap();
        assert_eq!(call.arg_str("content"), Some(content.as_str()));
        assert_eq!(call.touched_paths(), vec!["src/main.rs"]);
        let result = s.tool_results().next().unwrap();
        let loaded = s.output_text(&result.output).unwrap();
        assert_eq!(loaded, output);
    }
}
