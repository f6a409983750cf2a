//! The chat-messages reader.

use vouch_session::{Outcome, ReadOptions, ToolKind};

use crate::support::{describe, read, read_with};

#[test]
fn arrays_and_jsonl_read_the_same() {
    let array = read("chat/pipeline.json");
    let lines = read("chat/pipeline.jsonl");
    assert!(array.diagnostics.is_empty() && lines.diagnostics.is_empty());
    insta::assert_snapshot!(describe(&array));
    assert_eq!(array.session.events.len(), lines.session.events.len());
    for (a, b) in array.session.events.iter().zip(&lines.session.events) {
        assert_eq!((&a.actor, &a.kind), (&b.actor, &b.kind));
    }
}

#[test]
fn names_kinds_and_bracket_outcomes() {
    let s = read("chat/pipeline.json").session;
    let kinds: Vec<ToolKind> = s.tool_calls().map(|c| c.kind).collect();
    assert_eq!(
        kinds,
        vec![
            ToolKind::WriteFile,
            ToolKind::Shell,
            ToolKind::PatchFile,
            ToolKind::Shell,
            ToolKind::Shell
        ]
    );
    let outcomes: Vec<Outcome> = s.tool_results().map(|r| r.outcome).collect();
    assert_eq!(
        outcomes,
        vec![
            Outcome::Ok,
            Outcome::Failed { exit_code: Some(1) },
            Outcome::Ok,
            Outcome::Ok,
            Outcome::TimedOut
        ]
    );
    let names: Vec<&str> = s
        .tool_calls()
        .filter_map(|c| s.events[0].actor.name.as_deref().or(Some(&*c.name)))
        .collect();
    assert_eq!(names.len(), 5);
    let tester = s
        .events
        .iter()
        .rev()
        .find(|e| e.as_message().is_some())
        .unwrap();
    assert_eq!(tester.actor.name.as_deref(), Some("Tester"));
}

#[test]
fn wrapped_documents_read() {
    let report = read("chat/wrapped.json");
    assert!(report.diagnostics.is_empty());
    assert_eq!(report.session.tool_calls().count(), 3);
}

#[test]
fn a_document_cut_short_keeps_what_came_before() {
    let report = read_with(
        "chat/torn.json",
        &ReadOptions {
            strict: true,
            ..ReadOptions::default()
        },
    );
    insta::assert_snapshot!(describe(&report));
    assert_eq!(report.bad_lines(), 0);
}

#[test]
fn messages_of_the_wrong_shape_are_reported() {
    let report = read("chat/bad.jsonl");
    insta::assert_snapshot!(describe(&report));
    assert_eq!(report.bad_lines(), 3);
}
