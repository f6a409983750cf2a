//! The opencode reader: `opencode export` documents, and sessions one message per line.

use vouch_session::{Format, Outcome};

use crate::support::{describe, read};

#[test]
fn exports_read_tool_states_as_outcomes() {
    let report = read("opencode/export.json");
    assert!(report.diagnostics.is_empty(), "{:?}", report.diagnostics);
    insta::assert_snapshot!(describe(&report));
    let s = &report.session;
    assert_eq!(s.source.as_ref().unwrap().format, Format::Opencode);
    assert_eq!(s.cwd.as_deref(), Some("/home/dev/shop"));
    let results = s.results_by_call();
    assert_eq!(
        results["toolu_bash1"].outcome,
        Outcome::Failed { exit_code: Some(1) }
    );
    assert_eq!(results["toolu_bash2"].outcome, Outcome::Denied);
    assert!(
        !results.contains_key("toolu_bash3"),
        "a running tool is unanswered"
    );
    let edit = s.tool_calls().find(|c| c.call_id == "toolu_edit1").unwrap();
    assert_eq!(edit.touched_paths(), vec!["/home/dev/shop/src/cart.ts"]);
    let usage = s.usage.unwrap();
    assert_eq!(
        (
            usage.input,
            usage.output,
            usage.cache_read,
            usage.cache_write
        ),
        (1300, 390, 19_000, 400),
        "each message's tokens once; step-finish repeats them"
    );
}

/// `opencode export` run without a session id asks for one first, and what it printed lands
/// before the document; the export still reads, its lines keeping their numbers.
#[test]
fn text_printed_before_the_export_is_skipped() {
    let fixture = std::fs::read_to_string(crate::support::fixture("opencode/export.json")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("export.json");
    std::fs::write(&path, format!("\n┌  Export session\n│\n{fixture}")).unwrap();
    let report = vouch_session::read_path(&path, &vouch_session::ReadOptions::default()).unwrap();
    let plain = read("opencode/export.json");
    assert_eq!(report.session.events.len(), plain.session.events.len());
    assert_eq!(
        report.session.events[0].line_number(),
        plain.session.events[0].line_number().map(|n| n + 3)
    );
}

/// The same session one message per line, as checkpoint tools copy it: the same calls,
/// results and usage; the session id from the messages.
#[test]
fn a_session_one_message_per_line_reads_as_its_export() {
    let fixture = std::fs::read_to_string(crate::support::fixture("opencode/export.json")).unwrap();
    let export: serde_json::Value = serde_json::from_str(&fixture).unwrap();
    let lines: Vec<String> = export["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| serde_json::to_string(m).unwrap())
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("messages.jsonl");
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    let report = vouch_session::read_path(&path, &vouch_session::ReadOptions::default()).unwrap();
    assert!(report.diagnostics.is_empty(), "{:?}", report.diagnostics);
    let plain = read("opencode/export.json");
    let s = &report.session;
    assert_eq!(s.source.as_ref().unwrap().format, Format::Opencode);
    assert_eq!(s.id, "ses_6a1b2c3d4e5fXyZ");
    assert_eq!(s.events.len(), plain.session.events.len());
    assert_eq!(s.usage, plain.session.usage);
    let calls: Vec<_> = s.tool_calls().map(|c| c.call_id.clone()).collect();
    let expected: Vec<_> = plain
        .session
        .tool_calls()
        .map(|c| c.call_id.clone())
        .collect();
    assert_eq!(calls, expected);
    assert_eq!(
        s.results_by_call()["toolu_bash1"].outcome,
        Outcome::Failed { exit_code: Some(1) }
    );
    // Each event at its message's line.
    assert_eq!(s.events[0].line_number(), Some(1));
}
