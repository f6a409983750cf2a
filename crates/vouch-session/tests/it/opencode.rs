//! The opencode reader: `opencode export` documents.

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
