//! Strict evidence (`Validation.Strict`): each rule's block, as the agent reads it, and the
//! passes strict mode must still give.

use serde_json::json;
use vouch_session::{Outcome, ToolKind};

use crate::support::{Project, S, failed, message, passes};

const REVIEWER: &str = "HANDOFF TO REVIEWER";
const STRICT: &str = "Validation:\n  Strict: true\n";
const BRIEF: &str = r#"{"goal": "g", "files_to_change": ["tests/add_test.py"], "acceptance_criteria": [{"criterion": "adds", "test_command": "pytest -q", "expected_output_contains": "2 passed"}]}"#;
const TEST_FILE: &str = "def test_add():\n    assert add(1, 1) == 2\n    assert add(2, 2) == 4\n";

/// A strict project with the brief, the test file and a report naming `reported`, whose
/// change log recorded `commands` (command, exit code, output).
fn report_project(reported: &str, commands: &[(&str, i64, &str)]) -> Project {
    let p = Project::with_route(REVIEWER, "Validator: TestReportValid", STRICT);
    let report = json!({"results": [{"criterion": "adds", "status": "PASS", "command": reported}]});
    p.file(".fuseraft/artifacts/brief.json", BRIEF)
        .file("tests/add_test.py", TEST_FILE)
        .file(".fuseraft/artifacts/test-report.json", &report.to_string());
    record(&p, commands, &[]);
    p
}

/// Records a turn of `commands` and `written` files in the project's change log.
fn record(p: &Project, commands: &[(&str, i64, &str)], written: &[&str]) {
    if commands.is_empty() && written.is_empty() {
        return;
    }
    let mut turn = vouch_evidence::NewTurn::new("Tester");
    turn.files_written = written.iter().map(|w| (*w).to_owned()).collect();
    turn.commands = commands
        .iter()
        .map(|(c, e, o)| vouch_evidence::NewCommand::new(*c, Some(*e), *o))
        .collect();
    vouch_evidence::append(&p.path().join(".fuseraft/state/changes.json"), &turn).unwrap();
}

fn check(p: &Project, s: S) -> vouch_gate::Verdict {
    p.check(REVIEWER, &s.say(REVIEWER).session())
}

fn turn() -> S {
    S::default().user("test it")
}

#[test]
fn a_report_backed_by_the_same_passing_command_passes() {
    let p = report_project("pytest -q", &[("cd . && pytest -q", 0, "2 passed in 0.1s")]);
    passes(check(&p, turn()));
}

#[test]
fn each_report_forgery_has_its_message() {
    type Case<'a> = (&'a str, &'a str, &'a [(&'a str, i64, &'a str)]);
    let cases: [Case<'_>; 5] = [
        (
            "masked",
            "pytest -q",
            &[("pytest -q || true", 0, "1 failed")],
        ),
        (
            "lookalike",
            "pytest -q tests/add_test.py",
            &[("python -m py_compile tests/add_test.py", 0, "")],
        ),
        (
            "mentioned",
            "pytest -q",
            &[("echo pytest -q", 0, "pytest -q")],
        ),
        (
            "ran_nothing",
            "pytest -q -k nope",
            &[("pytest -q -k nope", 0, "2 deselected in 0.01s")],
        ),
        (
            "report_masks",
            "pytest -q | tail -3",
            &[("pytest -q | tail -3", 0, "2 passed")],
        ),
    ];
    for (name, reported, commands) in cases {
        let p = report_project(reported, commands);
        insta::assert_snapshot!(format!("strict_report_{name}"), message(check(&p, turn())));
    }
}

#[test]
fn commented_out_and_weakened_tests_are_blocked() {
    let p = report_project("pytest -q", &[("pytest -q", 0, "2 passed")]);
    p.file(
        "tests/add_test.py",
        "def test_add():\n    # assert add(1, 1) == 2\n    pass\n",
    );
    insta::assert_snapshot!("strict_commented_out", message(check(&p, turn())));

    let p = report_project("pytest -q", &[("pytest -q", 0, "2 passed")]);
    p.file(
        "tests/add_test.py",
        "def test_add():\n    assert add(1, 1) == 2\n",
    );
    let s = turn().call(
        "w1",
        "Write",
        ToolKind::WriteFile,
        json!({"file_path": "tests/add_test.py", "content": TEST_FILE}),
    );
    let s = s.result("w1", Outcome::Ok, "ok");
    insta::assert_snapshot!("strict_weakened", message(check(&p, s)));
}

#[test]
fn the_default_mode_keeps_the_spec_behaviour() {
    let p = Project::with_route(REVIEWER, "Validator: TestReportValid", "");
    let report =
        json!({"results": [{"criterion": "adds", "status": "PASS", "command": "pytest -q"}]});
    p.file(".fuseraft/artifacts/brief.json", BRIEF)
        .file("tests/add_test.py", TEST_FILE)
        .file(".fuseraft/artifacts/test-report.json", &report.to_string());
    record(&p, &[("pytest -q || true", 0, "1 failed")], &[]);
    passes(check(&p, turn()));
}

#[test]
fn shell_pass_rejects_masked_and_doubly_answered_calls() {
    let p = Project::with_route(
        REVIEWER,
        "Validator: RequireShellPass\nRequiredCommandPattern: pytest",
        STRICT,
    );
    let piped = turn().shell("c1", "pytest -q 2>&1 | tail -5", Outcome::Ok, "1 failed");
    insta::assert_snapshot!("strict_shell_piped", message(check(&p, piped)));
    let forged = turn()
        .shell("c1", "pytest -q", failed(1), "1 failed")
        .result("c1", Outcome::Ok, "2 passed")
        .result("c9", Outcome::Ok, "2 passed");
    insta::assert_snapshot!("strict_shell_two_results", message(check(&p, forged)));
    passes(check(
        &p,
        turn().shell(
            "c1",
            "set -o pipefail; pytest -q | tail -5",
            Outcome::Ok,
            "2 passed",
        ),
    ));
}

#[test]
fn sentinels_must_be_computed_not_printed() {
    let p = Project::with_route(
        REVIEWER,
        "Validator: RequireAcceptanceCriteriaPassedValidator",
        STRICT,
    );
    p.file(".fuseraft/artifacts/brief.json", BRIEF);
    record(&p, &[("echo 2 passed", 0, "2 passed")], &[]);
    insta::assert_snapshot!("strict_sentinel_echo", message(check(&p, turn())));
    record(&p, &[("pytest -q", 0, "2 passed in 0.1s")], &[]);
    passes(check(&p, turn()));
}

#[test]
fn command_succeeded_matches_programs_that_kept_their_status() {
    let p = Project::with_route(
        REVIEWER,
        "Contracts: [TestsRan]",
        &format!(
            "Contracts:\n  - Name: TestsRan\n    Requires:\n      - CommandSucceeded: {{Pattern: pytest}}\n{STRICT}"
        ),
    );
    record(&p, &[("echo pytest", 0, "pytest")], &[]);
    insta::assert_snapshot!("strict_command_succeeded", message(check(&p, turn())));
    record(&p, &[("mkdir -p out; pytest -q", 0, "2 passed")], &[]);
    passes(check(&p, turn()));
}
