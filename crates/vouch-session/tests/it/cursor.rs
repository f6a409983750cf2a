//! The Cursor reader: agent transcripts and their subagents.

use vouch_session::{Format, ToolKind};

use crate::support::{describe, read};

const TRANSCRIPT: &str =
    "cursor/5d1e7c0a-1b2c-4d3e-8f90-a1b2c3d4e5f6/5d1e7c0a-1b2c-4d3e-8f90-a1b2c3d4e5f6.jsonl";

#[test]
fn transcripts_read_calls_without_results_and_attach_subagents() {
    let report = read(TRANSCRIPT);
    assert!(report.diagnostics.is_empty(), "{:?}", report.diagnostics);
    insta::assert_snapshot!(describe(&report));
    let s = &report.session;
    assert_eq!(s.source.as_ref().unwrap().format, Format::Cursor);
    let kinds: Vec<ToolKind> = s.tool_calls().map(|c| c.kind).collect();
    assert_eq!(
        kinds,
        vec![
            ToolKind::Search,
            ToolKind::Subagent,
            ToolKind::PatchFile,
            ToolKind::Shell,
            ToolKind::WriteFile
        ]
    );
    assert_eq!(s.tool_results().count(), 0, "Cursor records no results");
    let first = s.events.iter().find_map(|e| e.as_message()).unwrap();
    assert_eq!(
        first,
        "Rename getUser to fetchUser everywhere and check it builds."
    );
    let task = s.tool_calls().find(|c| c.name == "Task").unwrap();
    let sub = s.subagent_of(&task.call_id).unwrap();
    assert_eq!(sub.tool_calls().count(), 1);
}
