//! The Codex reader.

use vouch_session::{Outcome, Role, ToolKind};

use crate::support::{describe, read};

#[test]
fn end_events_decide_outcomes_in_either_order() {
    let report = read("codex/exec-end.jsonl");
    assert!(report.diagnostics.is_empty(), "{:?}", report.diagnostics);
    insta::assert_snapshot!(describe(&report));
    let s = &report.session;
    let results = s.results_by_call();
    assert_eq!(
        results["call_test1"].outcome,
        Outcome::Failed {
            exit_code: Some(101)
        }
    );
    assert_eq!(results["call_patch1"].outcome, Outcome::Ok);
    assert_eq!(results["call_test2"].outcome, Outcome::Ok);
    assert_eq!(results["call_rm"].outcome, Outcome::Denied);
    let user_shell = s.tool_calls().find(|c| c.call_id == "call_user1").unwrap();
    assert_eq!(user_shell.command(), Some("git status --short"));
    let patch = s
        .tool_calls()
        .find(|c| c.kind == ToolKind::PatchFile)
        .unwrap();
    assert_eq!(patch.touched_paths(), vec!["src/lib.rs"]);
    let users: Vec<&str> = s
        .events
        .iter()
        .filter(|e| e.is_user_message())
        .filter_map(|e| e.as_message())
        .collect();
    assert_eq!(
        users,
        vec!["Make the tests pass."],
        "event_msg copies are dropped"
    );
    assert_eq!(s.final_answer(), Some("All 4 tests pass now."));
    assert!(
        s.events.iter().any(|e| e.actor.role == Role::System),
        "environment context is system"
    );
}

#[test]
fn exec_json_streams_read_as_sessions() {
    let report = read("codex/exec-json.jsonl");
    insta::assert_snapshot!(describe(&report));
    let calls: Vec<ToolKind> = report.session.tool_calls().map(|c| c.kind).collect();
    assert_eq!(
        calls,
        vec![
            ToolKind::Shell,
            ToolKind::PatchFile,
            ToolKind::Other,
            ToolKind::Shell
        ]
    );
    assert_eq!(
        report.session.tool_results().count(),
        3,
        "the killed command has no result"
    );
}

#[test]
fn legacy_rollouts_of_bare_items_read() {
    let report = read("codex/legacy.jsonl");
    assert!(report.diagnostics.is_empty());
    insta::assert_snapshot!(describe(&report));
}

#[test]
fn spawned_agents_attach_their_own_rollouts() {
    let report =
        read("codex/spawn/rollout-2026-01-03T04-05-06-22222222-2222-4222-8222-222222222222.jsonl");
    insta::assert_snapshot!(describe(&report));
    let sub = report.session.subagent_of("call-spawn-001").unwrap();
    assert_eq!(sub.id, "33333333-3333-4333-8333-333333333333");
    assert_eq!(sub.name.as_deref(), Some("researcher"));
    assert_eq!(sub.tool_calls().count(), 1);
}

#[test]
fn code_mode_cells_namespaces_and_new_record_types_read() {
    let report = read("codex/code-mode.jsonl");
    assert!(report.diagnostics.is_empty(), "{:?}", report.diagnostics);
    insta::assert_snapshot!(describe(&report));
    let s = &report.session;
    let names: Vec<&str> = s.tool_calls().map(|c| &*c.name).collect();
    assert_eq!(
        names,
        vec!["mcp__node_repl__js", "exec", "exec_command", "apply_patch"]
    );
    let shell = s.tool_calls().find(|c| c.kind == ToolKind::Shell).unwrap();
    assert_eq!(shell.command(), Some("cargo test"));
    let results = s.results_by_call();
    assert_eq!(
        results[shell.call_id.as_str()].outcome,
        Outcome::Failed {
            exit_code: Some(101)
        },
        "the command the cell ran failed, whatever the cell's own output says"
    );
    let patch = s
        .tool_calls()
        .find(|c| c.kind == ToolKind::PatchFile)
        .unwrap();
    assert_eq!(patch.touched_paths(), vec!["src/parse.rs"]);
    assert_eq!(s.final_answer(), Some("One test still fails."));
}
