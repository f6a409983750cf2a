//! The Gemini CLI reader: saved chat files (JSON and JSONL) and stream-json output.

use vouch_session::{Format, Outcome, ToolKind};

use crate::support::{describe, read};

#[test]
fn chat_files_read_calls_with_their_results_and_exit_codes() {
    let report = read("gemini/session.json");
    assert!(report.diagnostics.is_empty(), "{:?}", report.diagnostics);
    insta::assert_snapshot!(describe(&report));
    let s = &report.session;
    assert_eq!(s.source.as_ref().unwrap().format, Format::Gemini);
    let results = s.results_by_call();
    assert_eq!(
        results["run_shell_command-1759241480000-2"].outcome,
        Outcome::Failed {
            exit_code: Some(101)
        },
        "`success` with `Exit Code: 101` is a failed command"
    );
    assert_eq!(
        results["run_shell_command-1759241490000-3"].outcome,
        Outcome::Denied
    );
    assert!(
        !results.contains_key("write_file-1759241500000-4"),
        "a call still executing has no result"
    );
    let usage = s.usage.unwrap();
    assert_eq!(
        (usage.input, usage.output, usage.cache_read),
        (5173, 77, 11_000)
    );
}

#[test]
fn jsonl_chat_files_keep_the_last_version_of_each_message_and_honour_rewinds() {
    let report = read("gemini/session.jsonl");
    assert!(report.diagnostics.is_empty(), "{:?}", report.diagnostics);
    insta::assert_snapshot!(describe(&report));
    let s = &report.session;
    assert_eq!(s.tool_calls().count(), 1, "g1 rewritten twice counts once");
    assert_eq!(s.tool_results().count(), 1);
    assert!(
        s.tool_calls().all(|c| c.command() != Some("rm Cargo.toml")),
        "the rewound turn is gone"
    );
    assert_eq!(s.usage.unwrap().output, 27);
}

#[test]
fn stream_json_output_reads_as_a_session() {
    let report = read("gemini/stream.jsonl");
    assert!(report.diagnostics.is_empty(), "{:?}", report.diagnostics);
    insta::assert_snapshot!(describe(&report));
    let s = &report.session;
    assert_eq!(s.source.as_ref().unwrap().format, Format::Gemini);
    let kinds: Vec<ToolKind> = s.tool_calls().map(|c| c.kind).collect();
    assert_eq!(
        kinds,
        vec![
            ToolKind::Shell,
            ToolKind::PatchFile,
            ToolKind::WriteFile,
            ToolKind::Shell
        ]
    );
    let outcomes: Vec<Outcome> = s.tool_results().map(|r| r.outcome).collect();
    assert_eq!(
        outcomes,
        vec![
            Outcome::Failed { exit_code: Some(1) },
            Outcome::Ok,
            Outcome::Error,
            Outcome::Ok
        ]
    );
    assert_eq!(
        s.final_answer(),
        Some("Fixed the sign in `sum`; all 3 tests pass.")
    );
}

/// A session's subagents' chats, kept in the folder named after it, hang under it.
#[test]
fn subagent_chats_beside_the_session_are_attached() {
    let report = read("gemini/with-subagent/session-2026-10-05T09-00-5c0ffee0.jsonl");
    assert!(report.diagnostics.is_empty(), "{:?}", report.diagnostics);
    let s = &report.session;
    assert_eq!(s.subagents.len(), 1);
    let sub = &s.subagents[0];
    assert_eq!(sub.id, "9a9a9a9a-0000-4000-8000-000000000002");
    assert_eq!(
        sub.spawned_by.as_deref(),
        Some("ci-1"),
        "linked by its objective"
    );
    assert_eq!(
        s.subagent_of("ci-1").map(|x| x.id.as_str()),
        Some(sub.id.as_str())
    );
    assert_eq!(sub.tool_calls().next().unwrap().kind, ToolKind::Search);
}
