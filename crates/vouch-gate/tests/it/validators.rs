//! Each validator, case by case: passes, every failure message (snapshots), and the rules of
//! the spec that decide between them.

use serde_json::json;
use vouch_session::{Outcome, ToolKind};

use crate::support::{Project, S, failed, message, passes};

const TESTER: &str = "HANDOFF TO TESTER";
const REVIEWER: &str = "HANDOFF TO REVIEWER";

fn shell_pass(pattern: Option<&str>) -> Project {
    let route = match pattern {
        Some(p) => format!("Validator: RequireShellPass\nRequiredCommandPattern: \"{p}\""),
        None => "Validator: RequireShellPass".to_owned(),
    };
    Project::with_route(TESTER, &route, "")
}

mod require_shell_pass {
    use super::*;

    #[test]
    fn a_passing_run_this_turn_passes() {
        let s = S::default()
            .user("go")
            .shell("c1", "go test ./...", Outcome::Ok, "ok")
            .say(TESTER)
            .session();
        passes(shell_pass(Some("go build|go test")).check(TESTER, &s));
    }

    #[test]
    fn the_failure_messages() {
        let s = S::default()
            .user("go")
            .shell("c1", "go mod tidy", Outcome::Ok, "")
            .say(TESTER)
            .session();
        insta::assert_snapshot!(
            "shell_pass_pattern",
            message(shell_pass(Some("go build|go test")).check(TESTER, &s))
        );
        let s = S::default().user("go").say(TESTER).session();
        insta::assert_snapshot!(
            "shell_pass_no_pattern",
            message(shell_pass(None).check(TESTER, &s))
        );
    }

    #[test]
    fn runs_before_the_last_user_message_do_not_count() {
        let s = S::default()
            .user("build it")
            .shell("c1", "go test ./...", Outcome::Ok, "ok")
            .user("[correction] try again")
            .say(TESTER)
            .session();
        assert!(!shell_pass(None).check(TESTER, &s).is_pass());
    }

    #[test]
    fn results_link_to_calls_by_id_only() {
        // A passing result for another call id, and a call with no result.
        let s = S::default()
            .user("go")
            .call(
                "c1",
                "shell_run",
                ToolKind::Shell,
                json!({"command": "go test ./..."}),
            )
            .result("other", Outcome::Ok, "ok")
            .say(TESTER)
            .session();
        assert!(!shell_pass(None).check(TESTER, &s).is_pass());
        // The result may come later in the turn than other calls.
        let s = S::default()
            .user("go")
            .call(
                "c1",
                "shell_run",
                ToolKind::Shell,
                json!({"command": "go test ./..."}),
            )
            .call("c2", "shell_run", ToolKind::Shell, json!({"command": "ls"}))
            .result("c2", failed(1), "")
            .result("c1", Outcome::Ok, "ok")
            .session();
        passes(shell_pass(Some("go test")).check(TESTER, &s));
    }

    #[test]
    fn every_structured_failure_fails() {
        for outcome in [
            failed(1),
            Outcome::Failed { exit_code: None },
            Outcome::Error,
            Outcome::TimedOut,
            Outcome::Denied,
        ] {
            let s = S::default()
                .user("go")
                .shell("c1", "go test", outcome, "x")
                .session();
            assert!(!shell_pass(None).check(TESTER, &s).is_pass(), "{outcome:?}");
        }
    }

    #[test]
    fn every_failure_prefix_fails_and_empty_output_passes() {
        for text in [
            "[EXIT 1] tests failed",
            "[ERROR] no such command",
            "[TIMEOUT] 300s",
            "[DENIED] sandbox",
        ] {
            let chat = json!([
                {"role": "user", "content": "go"},
                {"role": "assistant", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "Shell-shell_run", "arguments": "{\"command\": \"go test\"}"}}]},
                {"role": "tool", "tool_call_id": "c1", "content": text}
            ]);
            let s = vouch_session::read_from(
                chat.to_string().as_bytes(),
                "chat",
                &vouch_session::ReadOptions::default(),
            )
            .unwrap()
            .session;
            assert!(!shell_pass(None).check(TESTER, &s).is_pass(), "{text}");
        }
        let s = S::default()
            .user("go")
            .shell("c1", "go test", Outcome::Ok, "")
            .session();
        passes(shell_pass(None).check(TESTER, &s));
    }

    #[test]
    fn alternatives_are_case_insensitive_substrings() {
        let s = S::default()
            .user("go")
            .shell("c1", "cd app && GO TEST -run X ./...", Outcome::Ok, "")
            .session();
        passes(shell_pass(Some("Go Build|go test")).check(TESTER, &s));
    }

    #[test]
    fn a_subagent_started_this_turn_counts() {
        let mut s = S::default()
            .user("go")
            .call(
                "t1",
                "Task",
                ToolKind::Subagent,
                json!({"prompt": "run the tests"}),
            )
            .result("t1", Outcome::Ok, "done")
            .session();
        let mut sub = S::default()
            .user("run the tests")
            .shell("c1", "go test", Outcome::Ok, "ok")
            .session();
        sub.spawned_by = Some("t1".into());
        s.subagents.push(sub);
        passes(shell_pass(Some("go test")).check(TESTER, &s));
    }
}

mod require_write_file {
    use super::*;

    fn project(fallback: Option<&str>) -> Project {
        let route = match fallback {
            Some(p) => format!("Validator: RequireWriteFile\nShellFallbackPattern: \"{p}\""),
            None => "Validator: RequireWriteFile".to_owned(),
        };
        Project::with_route(TESTER, &route, "")
    }

    #[test]
    fn a_write_a_patch_or_a_commit_passes() {
        for (name, kind) in [
            ("write_file", ToolKind::WriteFile),
            ("Edit", ToolKind::PatchFile),
            ("git_commit", ToolKind::GitCommit),
        ] {
            let s = S::default()
                .user("go")
                .call("c1", name, kind, json!({"path": "a.rs"}))
                .result("c1", Outcome::Ok, "")
                .session();
            passes(project(None).check(TESTER, &s));
        }
    }

    #[test]
    fn a_described_change_is_blocked() {
        let s = S::default()
            .user("go")
            .say("```rust\nfn main() {}\n```\nHANDOFF TO TESTER")
            .session();
        insta::assert_snapshot!("write_file", message(project(None).check(TESTER, &s)));
    }

    #[test]
    fn a_failed_write_does_not_count() {
        let s = S::default()
            .user("go")
            .call(
                "c1",
                "write_file",
                ToolKind::WriteFile,
                json!({"path": "a.rs"}),
            )
            .result("c1", Outcome::Error, "[ERROR] read-only")
            .session();
        assert!(!project(None).check(TESTER, &s).is_pass());
    }

    #[test]
    fn the_shell_fallback_takes_a_passing_matching_command_only() {
        let ok = S::default()
            .user("go")
            .shell("c1", "npm install left-pad", Outcome::Ok, "")
            .session();
        passes(project(Some("npm install|go mod tidy")).check(TESTER, &ok));
        let failed_run = S::default()
            .user("go")
            .shell("c1", "npm install left-pad", failed(1), "")
            .session();
        assert!(
            !project(Some("npm install"))
                .check(TESTER, &failed_run)
                .is_pass()
        );
        assert!(
            !project(None).check(TESTER, &ok).is_pass(),
            "no fallback without the pattern"
        );
    }
}

mod require_all_files_written {
    use super::*;

    fn project(brief: &str) -> Project {
        let p = Project::with_route(TESTER, "Validator: RequireAllFilesWritten", "");
        p.file(".fuseraft/artifacts/brief.json", brief);
        p
    }

    const BRIEF: &str = r#"{"goal": "paginate", "files_to_change": ["src/api/users.py", {"path": "./tests/test_users.py", "reason": "tests"}],
        "acceptance_criteria": ["works"], "implementation": ["patch"]}"#;

    #[test]
    fn files_written_this_turn_or_recorded_this_session_pass() {
        let p = project(BRIEF);
        p.file(
            ".fuseraft/state/changes.json",
            r#"{"Entries": [{"Agent": "Developer", "SessionId": "s1", "FilesWritten": ["tests/test_users.py"]}], "ActiveSessionId": "s1"}"#,
        );
        let s = S::default()
            .user("go")
            .write("c1", "/repo/SRC/api/users.py")
            .session();
        passes(p.check(TESTER, &s));
    }

    #[test]
    fn missing_files_are_listed() {
        let s = S::default()
            .user("go")
            .write("c1", "src/api/users.py")
            .session();
        insta::assert_snapshot!(
            "all_files_written",
            message(project(BRIEF).check(TESTER, &s))
        );
    }

    #[test]
    fn only_the_active_session_counts() {
        let p = project(BRIEF);
        p.file(
            ".fuseraft/state/changes.json",
            r#"{"Entries": [{"Agent": "Developer", "SessionId": "old", "FilesWritten": ["tests/test_users.py"]}], "ActiveSessionId": "new"}"#,
        );
        let s = S::default()
            .user("go")
            .write("c1", "src/api/users.py")
            .session();
        assert!(!p.check(TESTER, &s).is_pass());
    }

    #[test]
    fn patches_of_codex_style_bodies_count() {
        let s = S::default()
            .user("go")
            .call("c1", "apply_patch", ToolKind::PatchFile, json!({"input": "*** Begin Patch\n*** Update File: src/api/users.py\n*** Add File: tests/test_users.py\n*** End Patch"}))
            .result("c1", Outcome::Ok, "")
            .session();
        passes(project(BRIEF).check(TESTER, &s));
    }

    #[test]
    fn an_empty_list_passes_and_a_missing_brief_blocks() {
        let s = S::default().user("go").session();
        passes(project(r#"{"goal": "x", "files_to_change": []}"#).check(TESTER, &s));
        let p = Project::with_route(TESTER, "Validator: RequireAllFilesWritten", "");
        insta::assert_snapshot!("all_files_written_no_brief", message(p.check(TESTER, &s)));
    }
}

mod require_brief {
    use super::*;

    fn check(brief: Option<&str>) -> vouch_gate::Verdict {
        let p = Project::with_route("HANDOFF TO DEVELOPER", "Validator: RequireBrief", "");
        if let Some(brief) = brief {
            p.file(".fuseraft/artifacts/brief.json", brief);
        }
        p.check(
            "HANDOFF TO DEVELOPER",
            &S::default().user("plan it").session(),
        )
    }

    #[test]
    fn a_complete_brief_passes_as_strings_and_as_objects() {
        passes(check(Some(
            r#"{"goal": "g", "files_to_change": ["a.py"], "acceptance_criteria": ["c"], "implementation": [{"action": "write", "path": "a.py"}]}"#,
        )));
        passes(check(Some(
            r#"{"goal": "g", "files_to_change": [{"path": "a.py", "reason": "r"}],
            "acceptance_criteria": [{"criterion": "c", "test_command": "pytest", "expected_output_contains": "1 passed"}], "implementation": "write a.py"}"#,
        )));
    }

    #[test]
    fn each_missing_piece_has_its_message() {
        let cases = [
            ("missing", None),
            ("invalid_json", Some(r#"{"goal": "g", "#)),
            (
                "wrong_shape",
                Some(r#"{"goal": "g", "files_to_change": [3]}"#),
            ),
            (
                "empty_goal",
                Some(
                    r#"{"goal": " ", "files_to_change": ["a"], "acceptance_criteria": ["c"], "implementation": ["i"]}"#,
                ),
            ),
            (
                "empty_files",
                Some(
                    r#"{"goal": "g", "files_to_change": [], "acceptance_criteria": ["c"], "implementation": ["i"]}"#,
                ),
            ),
            (
                "empty_criteria",
                Some(
                    r#"{"goal": "g", "files_to_change": ["a"], "acceptance_criteria": [], "implementation": ["i"]}"#,
                ),
            ),
            (
                "empty_implementation",
                Some(r#"{"goal": "g", "files_to_change": ["a"], "acceptance_criteria": ["c"]}"#),
            ),
        ];
        for (name, brief) in cases {
            insta::assert_snapshot!(format!("brief_{name}"), message(check(brief)));
        }
    }
}

mod test_report_valid {
    use super::*;

    const BRIEF: &str = r#"{"goal": "g", "files_to_change": ["src/add.rs", "tests/add_test.rs"], "acceptance_criteria": ["adds", "stores"], "implementation": ["x"]}"#;
    const TEST_FILE: &str = "#[test]\nfn adds() { assert!(add(1, 1) == 2); }\n";
    const REPORT: &str = r#"{"results": [
        {"criterion": "adds", "status": "PASS", "command": "cargo test test_add_command -- --nocapture", "exit_code": 0},
        {"criterion": "stores", "status": "PASS", "command": "cargo test stores"}], "fake_test_files": []}"#;
    const CHANGES: &str = r#"{"Entries": [{"Agent": "Tester", "SessionId": "s", "CommandsRun": [
        {"Command": "cargo test test_add_command -- --nocapture", "succeeded": true, "Output": "ok"},
        {"Command": "cargo test stores", "succeeded": true, "Output": "ok"}]}], "ActiveSessionId": "s"}"#;

    /// A project where every check passes; each case breaks one thing.
    fn project() -> Project {
        let p = Project::with_route(REVIEWER, "Validator: TestReportValid", "");
        p.file(".fuseraft/artifacts/brief.json", BRIEF)
            .file("tests/add_test.rs", TEST_FILE)
            .file(".fuseraft/artifacts/test-report.json", REPORT)
            .file(".fuseraft/state/changes.json", CHANGES);
        p
    }

    fn check(p: &Project) -> vouch_gate::Verdict {
        p.check(REVIEWER, &S::default().user("test it").session())
    }

    #[test]
    fn a_complete_backed_report_passes() {
        passes(check(&project()));
    }

    #[test]
    fn each_check_fails_alone() {
        let cases: [(&str, &str, &str); 10] = [
            ("1_missing", ".fuseraft/artifacts/test-report.json", ""),
            (
                "2_not_json",
                ".fuseraft/artifacts/test-report.json",
                "{\"results\": [",
            ),
            (
                "2_no_results",
                ".fuseraft/artifacts/test-report.json",
                r#"{"results": []}"#,
            ),
            (
                "3_fail",
                ".fuseraft/artifacts/test-report.json",
                r#"{"results": [{"criterion": "adds", "status": "FAIL", "command": "cargo test", "output": "1 failed"}, {"criterion": "stores", "status": "PASS", "command": "cargo test stores"}]}"#,
            ),
            (
                "4_empty_command",
                ".fuseraft/artifacts/test-report.json",
                r#"{"results": [{"criterion": "adds", "status": "PASS", "command": ""}, {"criterion": "stores", "status": "PASS", "command": "cargo test stores"}]}"#,
            ),
            (
                "4b_tool_call",
                ".fuseraft/artifacts/test-report.json",
                r#"{"results": [{"criterion": "adds", "status": "PASS", "command": "FileSystem-read_file path=tests/add_test.rs"}, {"criterion": "stores", "status": "PASS", "command": "cargo test stores"}]}"#,
            ),
            (
                "5_fake_files",
                ".fuseraft/artifacts/test-report.json",
                r#"{"results": [{"criterion": "adds", "status": "PASS", "command": "cargo test test_add_command -- --nocapture"}, {"criterion": "stores", "status": "PASS", "command": "cargo test stores"}], "fake_test_files": ["tests/add_test.rs"]}"#,
            ),
            (
                "6_coverage",
                ".fuseraft/artifacts/test-report.json",
                r#"{"results": [{"criterion": "adds", "status": "PASS", "command": "cargo test test_add_command -- --nocapture"}]}"#,
            ),
            (
                "7_fake_test",
                "tests/add_test.rs",
                "fn adds() { println!(\"looks fine\"); }\n",
            ),
            (
                "8_unbacked",
                ".fuseraft/state/changes.json",
                r#"{"Entries": [{"Agent": "Tester", "SessionId": "s", "CommandsRun": [{"Command": "go test ./...", "succeeded": true}, {"Command": "cargo test stores", "succeeded": true}]}], "ActiveSessionId": "s"}"#,
            ),
        ];
        for (name, file, content) in cases {
            let p = project();
            if content.is_empty() {
                std::fs::remove_file(p.path().join(file)).unwrap();
            } else {
                p.file(file, content);
            }
            insta::assert_snapshot!(format!("report_{name}"), message(check(&p)));
        }
    }

    #[test]
    fn no_successful_command_at_all_rejects_every_pass() {
        let p = project();
        p.file(".fuseraft/state/changes.json", r#"{"Entries": [{"Agent": "Tester", "SessionId": "s", "CommandsRun": [{"Command": "cargo test", "succeeded": false}]}], "ActiveSessionId": "s"}"#);
        insta::assert_snapshot!("report_8_nothing_ran", message(check(&p)));
    }

    #[test]
    fn without_a_brief_or_change_log_their_checks_are_skipped() {
        let p = project();
        std::fs::remove_file(p.path().join(".fuseraft/artifacts/brief.json")).unwrap();
        std::fs::remove_file(p.path().join(".fuseraft/state/changes.json")).unwrap();
        passes(check(&p));
    }

    #[test]
    fn assertion_patterns_come_from_the_config() {
        let p = Project::with_route(
            REVIEWER,
            "Validator: TestReportValid",
            "Validation:\n  TestAssertionPatterns:\n    - 'should\\.equal'\n",
        );
        p.file(".fuseraft/artifacts/brief.json", BRIEF)
            .file(
                "tests/add_test.rs",
                "it('adds', () => add(1,1).should.equal(2))",
            )
            .file(".fuseraft/artifacts/test-report.json", REPORT);
        passes(check(&p));
        p.file("tests/add_test.rs", TEST_FILE);
        assert!(
            !check(&p).is_pass(),
            "`assert` is not one of the configured patterns"
        );
    }
}

mod require_review_judgement {
    use super::*;

    const APPROVED: &str = "APPROVED";

    fn project(brief: Option<&str>) -> Project {
        let p = Project::with_route(APPROVED, "Validator: RequireReviewJudgement", "");
        if let Some(brief) = brief {
            p.file(".fuseraft/artifacts/brief.json", brief);
        }
        p
    }

    fn review(verdicts: &[(&str, &str)], fenced: bool) -> String {
        let entries: Vec<_> = verdicts
            .iter()
            .map(|(c, v)| json!({"criterion": c, "verdict": v, "evidence": "ran cargo test"}))
            .collect();
        let block = json!({ "review": entries }).to_string();
        if fenced {
            format!("Looks right.\n```json\n{block}\n```\nAPPROVED")
        } else {
            format!("Looks right. {block}\nAPPROVED")
        }
    }

    #[test]
    fn fenced_and_bare_blocks_pass_after_a_run() {
        for fenced in [true, false] {
            let s = S::default()
                .user("review")
                .shell("c1", "cargo test", Outcome::Ok, "ok")
                .say(&review(&[("adds", "PASS")], fenced))
                .session();
            passes(project(None).check(APPROVED, &s));
        }
    }

    #[test]
    fn each_rule_has_its_message() {
        let brief = r#"{"goal": "g", "files_to_change": ["a"], "acceptance_criteria": ["adds", "stores", "lists", "deletes"], "implementation": ["i"]}"#;
        let cases = [
            ("no_block", S::default().user("r").shell("c1", "cargo test", Outcome::Ok, "").say("APPROVED"), None),
            ("incomplete_entry", S::default().user("r").say("```json\n{\"review\": [{\"criterion\": \"adds\", \"verdict\": \"PASS\", \"evidence\": \"\"}]}\n```\nAPPROVED"), None),
            ("fail_verdict", S::default().user("r").shell("c1", "cargo test", Outcome::Ok, "").say(&review(&[("adds", "PASS"), ("stores", "FAIL")], true)), None),
            ("coverage", S::default().user("r").shell("c1", "cargo test", Outcome::Ok, "").say(&review(&[("adds", "PASS"), ("stores", "PASS")], true)), Some(brief)),
            ("pass_without_run", S::default().user("r").shell("c1", "cargo test", failed(101), "").say(&review(&[("adds", "PASS")], true)), None),
        ];
        for (name, s, brief) in cases {
            insta::assert_snapshot!(
                format!("review_{name}"),
                message(project(brief).check(APPROVED, &s.session()))
            );
        }
    }

    #[test]
    fn only_the_last_message_of_this_turn_is_read() {
        let s = S::default()
            .user("r")
            .shell("c1", "cargo test", Outcome::Ok, "")
            .say(&review(&[("adds", "PASS")], true))
            .say("APPROVED")
            .session();
        assert!(!project(None).check(APPROVED, &s).is_pass());
    }
}

mod require_acceptance_criteria_passed {
    use super::*;

    const BRIEF: &str = r#"{"goal": "g", "files_to_change": ["a"], "implementation": ["i"], "acceptance_criteria": [
        "reads well",
        {"criterion": "x.sqrt(16) prints 4.0", "test_command": "kiwi test_include.ki", "expected_output_contains": "4.0"},
        {"criterion": "build.sh succeeds", "expected_output_contains": "BUILD SUCCEEDED"}]}"#;

    fn project(changes: &str) -> Project {
        let p = Project::with_route(
            REVIEWER,
            "Validator: RequireAcceptanceCriteriaPassedValidator",
            "",
        );
        p.file(".fuseraft/artifacts/brief.json", BRIEF)
            .file(".fuseraft/state/changes.json", changes);
        p
    }

    #[test]
    fn sentinels_in_successful_output_pass_case_insensitively() {
        let p = project(
            r#"{"Entries": [{"Agent": "Dev", "CommandsRun": [
            {"Command": "kiwi test_include.ki", "succeeded": true, "Output": "result: 4.0\n"},
            {"Command": "./build.sh", "succeeded": true, "Output": "build succeeded"}]}]}"#,
        );
        passes(p.check(REVIEWER, &S::default().user("go").session()));
    }

    #[test]
    fn unmet_criteria_are_listed_with_their_commands() {
        let p = project(
            r#"{"Entries": [{"Agent": "Dev", "CommandsRun": [
            {"Command": "kiwi test_include.ki", "succeeded": false, "Output": "4.0 but crashed"},
            {"Command": "./build.sh", "succeeded": true, "Output": "BUILD SUCCEEDED"}]}]}"#,
        );
        insta::assert_snapshot!(
            "acceptance_criteria",
            message(p.check(REVIEWER, &S::default().user("go").session()))
        );
    }

    #[test]
    fn without_a_change_log_it_passes() {
        let p = project("{}");
        std::fs::remove_file(p.path().join(".fuseraft/state/changes.json")).unwrap();
        passes(p.check(REVIEWER, &S::default().user("go").session()));
    }
}

mod block_on_consecutive_fail {
    use super::*;

    fn project() -> Project {
        Project::with_route(
            TESTER,
            "Validator: BlockOnConsecutiveFail\nRequiredCommandPattern: \"cargo test\"",
            "",
        )
    }

    #[test]
    fn three_failing_turns_block_and_a_pass_breaks_the_run() {
        let three = S::default()
            .user("t1")
            .shell("a", "cargo test", failed(101), "")
            .user("t2")
            .shell("b", "cargo test", failed(101), "")
            .shell("b2", "ls", Outcome::Ok, "")
            .user("t3")
            .shell("c", "cargo test --all", failed(101), "")
            .session();
        insta::assert_snapshot!("consecutive_fail", message(project().check(TESTER, &three)));
        let recovered = S::default()
            .user("t1")
            .shell("a", "cargo test", failed(101), "")
            .user("t2")
            .shell("b", "cargo test", failed(101), "")
            .shell("b2", "cargo test", Outcome::Ok, "")
            .user("t3")
            .shell("c", "cargo test", failed(101), "")
            .session();
        passes(project().check(TESTER, &recovered));
        let idle_turn = S::default()
            .user("t1")
            .shell("a", "cargo test", failed(101), "")
            .user("t2")
            .say("thinking")
            .user("t3")
            .shell("c", "cargo test", failed(101), "")
            .session();
        passes(project().check(TESTER, &idle_turn));
    }
}

mod routes {
    use super::*;

    #[test]
    fn every_validator_of_every_matching_route_runs_first_failure_wins() {
        let p = Project::with_route(
            TESTER,
            "Validators: [RequireWriteFile, RequireShellPass]\nSourceAgents: [Developer]",
            "    - Keyword: \"HANDOFF TO TESTER\"\n      Agent: Tester\n      Validator: RequireShellPass\n      RequiredCommandPattern: \"go test\"\n",
        );
        let wrote_and_built = S::default()
            .user("go")
            .write("w", "a.go")
            .shell("c1", "go build", Outcome::Ok, "")
            .session();
        let gates = vouch_gate::GateSet::load(&p.path().join("pipeline.yaml")).unwrap();
        assert_eq!(
            gates.handoff(TESTER, Some("Developer")).unwrap().names(),
            vec!["RequireWriteFile", "RequireShellPass", "RequireShellPass"]
        );
        let verdict = p.check(TESTER, &wrote_and_built);
        assert!(message(verdict).contains("no matching (go test) shell_run passed this turn"));
        let tested = S::default()
            .user("go")
            .write("w", "a.go")
            .shell("c1", "go test ./...", Outcome::Ok, "")
            .session();
        passes(p.check(TESTER, &tested));
        assert!(
            gates.handoff(TESTER, Some("Planner")).unwrap().names() == vec!["RequireShellPass"],
            "SourceAgents filter routes"
        );
    }
}
