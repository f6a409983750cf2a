//! Evidence contracts: every predicate passing and blocking, both YAML spellings, contracts
//! beside validators (AND), and the load-time errors of decision G3.

use vouch_gate::{PredicateKind, parse_config};
use vouch_session::Outcome;

use crate::support::{Project, S, failed, message, passes};

const TESTER: &str = "HANDOFF TO TESTER";
const CHANGES: &str = ".fuseraft/state/changes.json";
const REPORT: &str = ".fuseraft/artifacts/test-report.json";

/// A project whose route of `TESTER` uses contract `C`, which requires `requires` (YAML list
/// items, indented by the caller's two spaces).
fn contract(requires: &str) -> Project {
    let requires: String = requires.lines().map(|l| format!("      {l}\n")).collect();
    Project::with_route(
        TESTER,
        "Contracts: [C]",
        &format!("Contracts:\n  - Name: C\n    Requires:\n{requires}"),
    )
}

fn change_log(commands: &[(&str, bool)], files: &[&str]) -> String {
    let commands: Vec<String> = commands
        .iter()
        .map(|(c, ok)| format!(r#"{{"Command": "{c}", "succeeded": {ok}, "Output": ""}}"#))
        .collect();
    let files: Vec<String> = files.iter().map(|f| format!("\"{f}\"")).collect();
    format!(
        r#"{{"Entries": [
            {{"Agent": "Developer", "SessionId": "old", "CommandsRun": [{{"Command": "cargo test", "succeeded": true}}], "FilesWritten": ["src/old.rs"]}},
            {{"Agent": "Developer", "SessionId": "s", "CommandsRun": [{}], "FilesWritten": [{}]}}],
          "ActiveSessionId": "s"}}"#,
        commands.join(", "),
        files.join(", ")
    )
}

mod files_written {
    use super::*;

    const REQ: &str = "- FilesWritten:\n    Source: brief.json\n    Field: files_to_change";
    const BRIEF: &str = r#"{"files_to_change": [{"path": "src/a.rs", "reason": "x"}, "src/b.rs"]}"#;

    #[test]
    fn passes_when_every_listed_file_was_written_this_turn_or_this_session() {
        let p = contract(REQ);
        p.file("brief.json", BRIEF)
            .file(CHANGES, &change_log(&[], &["./SRC/b.rs"]));
        let s = S::default()
            .user("go")
            .write("w1", "/work/proj/src/a.rs")
            .say(TESTER)
            .session();
        passes(p.check(TESTER, &s));
    }

    #[test]
    fn blocks_naming_each_file_not_written() {
        let p = contract(REQ);
        // src/old.rs of another session does not count; src/b.rs's write failed.
        p.file("brief.json", BRIEF)
            .file(CHANGES, &change_log(&[], &["src/old.rs"]));
        let s = S::default()
            .user("go")
            .write("w1", "src/a.rs")
            .call(
                "w2",
                "write_file",
                vouch_session::ToolKind::WriteFile,
                serde_json::json!({"path": "src/b.rs"}),
            )
            .result("w2", failed(1), "[ERROR] denied")
            .say(TESTER)
            .session();
        insta::assert_snapshot!("files_written_missing", message(p.check(TESTER, &s)));
    }

    #[test]
    fn a_missing_or_broken_source_blocks() {
        let p = contract(REQ);
        let s = S::default().user("go").say(TESTER).session();
        insta::assert_snapshot!("files_written_no_source", message(p.check(TESTER, &s)));
        p.file("brief.json", "{not json");
        let m = message(p.check(TESTER, &s));
        assert!(
            m.starts_with(
                "[C/FilesWritten]\nHandoff blocked: FilesWritten could not check brief.json:"
            ),
            "{m}"
        );
    }
}

mod command_succeeded {
    use super::*;

    const REQ: &str = "- CommandSucceeded:\n    Pattern: \"cargo build && cargo test|make check\"";

    #[test]
    fn and_parts_may_be_met_by_separate_commands_of_the_session() {
        let p = contract(REQ);
        // `cargo build` was recorded by the orchestrator; `cargo test` ran in the log.
        p.file(
            CHANGES,
            &change_log(&[("cargo build --release", true)], &[]),
        );
        let s = S::default()
            .user("go")
            .shell("c1", "cargo test -q", Outcome::Ok, "ok")
            .user("[correction]")
            .say(TESTER)
            .session();
        passes(p.check(TESTER, &s));
    }

    #[test]
    fn another_alternative_passes_alone() {
        let p = contract(REQ);
        let s = S::default()
            .user("go")
            .shell("c1", "MAKE CHECK", Outcome::Ok, "")
            .say(TESTER)
            .session();
        passes(p.check(TESTER, &s));
    }

    #[test]
    fn blocks_naming_the_part_that_never_succeeded() {
        let p = contract(REQ);
        // cargo test failed here and succeeded only in another session.
        p.file(CHANGES, &change_log(&[("cargo test", false)], &[]));
        let s = S::default()
            .user("go")
            .shell("c1", "cargo build", Outcome::Ok, "")
            .shell("c2", "cargo test", failed(101), "FAILED")
            .say(TESTER)
            .session();
        insta::assert_snapshot!("command_succeeded_missing", message(p.check(TESTER, &s)));
    }
}

mod file_exists {
    use super::*;

    #[test]
    fn passes_and_blocks_on_the_file() {
        let p = contract("- FileExists:\n    Path: .fuseraft/artifacts/test-report.json");
        let s = S::default().user("go").say(TESTER).session();
        insta::assert_snapshot!("file_exists_missing", message(p.check(TESTER, &s)));
        p.file(REPORT, "{}");
        passes(p.check(TESTER, &s));
    }

    #[test]
    fn a_directory_is_not_a_file() {
        let p = contract("- Type: FileExists\n  Path: out");
        std::fs::create_dir(p.path().join("out")).unwrap();
        let s = S::default().user("go").say(TESTER).session();
        assert!(!p.check(TESTER, &s).is_pass());
    }
}

mod test_report {
    use super::*;

    const REQ: &str = "- TestReport:\n    NoFailures: true\n    HasAssertions: true";

    fn report(rows: &[(&str, &str, &str)]) -> String {
        let rows: Vec<String> = rows
            .iter()
            .map(|(c, s, cmd)| {
                format!(r#"{{"criterion": "{c}", "status": "{s}", "command": "{cmd}"}}"#)
            })
            .collect();
        format!(r#"{{"results": [{}]}}"#, rows.join(", "))
    }

    #[test]
    fn every_pass_backed_by_a_command_that_ran_passes() {
        let p = contract(REQ);
        p.file(
            REPORT,
            &report(&[
                ("adds", "PASS", "cargo test test_add -- --nocapture"),
                ("lists", "PASS", "cargo test test_list"),
            ]),
        )
        .file(CHANGES, &change_log(&[("cargo test test_list", true)], &[]));
        let s = S::default()
            .user("go")
            .shell("c1", "cargo test test_add", Outcome::Ok, "ok")
            .say(TESTER)
            .session();
        passes(p.check(TESTER, &s));
    }

    #[test]
    fn backing_is_checked_row_by_row() {
        let p = contract(REQ);
        // One row is backed; the other names a command that never ran (a fabricated PASS).
        p.file(
            REPORT,
            &report(&[
                ("adds", "PASS", "cargo test test_add"),
                ("lists", "PASS", "cargo test test_list"),
                ("empty", "PASS", ""),
            ]),
        );
        let s = S::default()
            .user("go")
            .shell("c1", "cargo test test_add", Outcome::Ok, "ok")
            .shell("c2", "cargo test test_list", failed(101), "FAILED")
            .say(TESTER)
            .session();
        insta::assert_snapshot!("test_report_unbacked", message(p.check(TESTER, &s)));
    }

    #[test]
    fn failures_block_unless_allowed() {
        let rows = report(&[("adds", "FAIL", "cargo test test_add")]);
        let s = S::default()
            .user("go")
            .shell("c1", "cargo test test_add", Outcome::Ok, "ok")
            .say(TESTER)
            .session();
        let p = contract(REQ);
        p.file(REPORT, &rows);
        insta::assert_snapshot!("test_report_failures", message(p.check(TESTER, &s)));
        let p = contract("- TestReport:\n    NoFailures: false");
        p.file(REPORT, &rows);
        passes(p.check(TESTER, &s));
    }

    #[test]
    fn no_report_blocks_and_a_broken_one_fails_closed() {
        let p = contract("- TestReport");
        let s = S::default().user("go").say(TESTER).session();
        insta::assert_snapshot!("test_report_missing", message(p.check(TESTER, &s)));
        p.file(REPORT, "[1, 2");
        let m = message(p.check(TESTER, &s));
        assert!(
            m.contains("TestReport could not check the test report"),
            "{m}"
        );
    }
}

mod related_tests_pass {
    use super::*;

    fn project(full_suite: &str) -> Project {
        let p = Project::with_route(
            TESTER,
            "Contracts: [TestedChanges]",
            &format!(
                "Contracts:\n  - Name: TestedChanges\n    Requires:\n      - RelatedTestsPass\n\
                 TestSelector:\n  FindRelatedCommand: \"echo tests/{{file}}\"\n  FullSuiteCommand: \"{full_suite}\"\n"
            ),
        );
        p.file(CHANGES, &change_log(&[], &["src/a.rs"]));
        p
    }

    #[test]
    fn passes_when_the_tests_vouch_runs_pass() {
        let s = S::default().user("go").say(TESTER).session();
        passes(project("true").check(TESTER, &s));
    }

    #[test]
    fn blocks_with_the_spec_message_when_they_fail() {
        let s = S::default().user("go").say(TESTER).session();
        let m = message(project("false").check(TESTER, &s));
        assert!(
            m.starts_with("[TestedChanges/RequireRelatedTestsPass]\nHandoff blocked: targeted tests failed (exit 1)."),
            "{m}"
        );
    }
}

mod composition {
    use super::*;

    #[test]
    fn validators_and_contracts_all_must_pass_validators_first() {
        let p = Project::with_route(
            TESTER,
            "Validator: RequireShellPass\nContracts: [Exists]",
            "Contracts:\n  - Name: Exists\n    Requires:\n      - FileExists: {Path: out.txt}\n",
        );
        let s = S::default().user("go").say(TESTER).session();
        let m = message(p.check(TESTER, &s));
        assert!(m.starts_with("[RequireShellPass]"), "{m}");
        let s = S::default()
            .user("go")
            .shell("c1", "make", Outcome::Ok, "")
            .say(TESTER)
            .session();
        let m = message(p.check(TESTER, &s));
        assert!(m.starts_with("[Exists/FileExists]"), "{m}");
        p.file("out.txt", "x");
        passes(p.check(TESTER, &s));
    }

    #[test]
    fn a_contract_is_reusable_and_may_list_a_validator() {
        let p = Project::with_route(
            TESTER,
            "Contracts: [Ran]",
            "Contracts:\n  - Name: Ran\n    Requires:\n      - RequireShellPass: {RequiredCommandPattern: \"go test\"}\n",
        );
        let s = S::default()
            .user("go")
            .shell("c1", "go vet", Outcome::Ok, "")
            .say(TESTER)
            .session();
        let m = message(p.check(TESTER, &s));
        assert!(
            m.starts_with("[Ran/RequireShellPass]\nHandoff blocked: no matching (go test)"),
            "{m}"
        );
    }

    #[test]
    fn a_route_may_require_predicates_itself() {
        let p = Project::with_route(TESTER, "Requires:\n  - FileExists: {Path: out.txt}", "");
        let s = S::default().user("go").say(TESTER).session();
        let m = message(p.check(TESTER, &s));
        assert!(
            m.contains("route `HANDOFF TO TESTER` requires out.txt to exist"),
            "{m}"
        );
    }
}

mod loading {
    use std::path::Path;

    use super::*;

    #[test]
    fn the_three_spellings_of_a_predicate_are_the_same() {
        let yaml = "Contracts:\n  - Name: A\n    Requires:\n      - FileExists: {Path: x}\n      - Type: FileExists\n        Path: x\n      - TestReport\n      - TestReport:\n          NoFailures: true\n";
        let config = parse_config(Path::new("p.yaml"), yaml).unwrap();
        let kinds: Vec<String> = config.contracts()[0]
            .requires
            .iter()
            .map(|r| format!("{:?}", r.kind))
            .collect();
        assert_eq!(kinds[0], kinds[1]);
        assert_eq!(kinds[2], kinds[3]);
        let expected = PredicateKind::TestReport {
            no_failures: true,
            has_assertions: true,
        };
        assert_eq!(kinds[2], format!("{expected:?}"));
    }

    #[test]
    fn every_contract_problem_is_reported_at_once() {
        let yaml = r#"Orchestration:
  Contracts:
    - Name: Built
      Requires:
        - CommandSucceded: {Pattern: "cargo build"}
        - FilesWritten: {Source: brief.json}
        - FileExists: {Path: x, Mode: strict}
        - TestReport: {NoFailures: maybe}
    - Name: Built
    - Requires: [RelatedTestsPass]
  Selection:
    Type: keyword
    Routes:
      - Keyword: "HANDOFF TO TESTER"
        Agent: Tester
        Contracts: [Biult, Missing]
"#;
        let errors = parse_config(Path::new("pipeline.yaml"), yaml).unwrap_err();
        insta::assert_snapshot!("contract_load_errors", errors.to_string());
    }
}
