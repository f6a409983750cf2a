//! A validator that cannot decide blocks and names the cause (decision G4).

use vouch_session::Outcome;

use crate::support::{Project, S, message, passes};

const KW: &str = "HANDOFF TO REVIEWER";

#[test]
fn an_unreadable_brief_blocks() {
    let p = Project::with_route(KW, "Validator: RequireAllFilesWritten", "");
    // A folder where the brief should be cannot be read as a file.
    std::fs::create_dir_all(p.path().join(".fuseraft/artifacts/brief.json")).unwrap();
    let m = message(p.check(KW, &S::default().user("go").session()));
    assert!(
        m.contains("RequireAllFilesWritten could not check the brief"),
        "{m}"
    );
    assert!(m.contains("failed to read"), "{m}");
}

#[test]
fn a_corrupted_change_log_blocks() {
    let p = Project::with_route(KW, "Validator: RequireAllFilesWritten", "");
    p.file(
        ".fuseraft/artifacts/brief.json",
        r#"{"goal": "g", "files_to_change": ["a.rs"]}"#,
    )
    .file(
        ".fuseraft/state/changes.json",
        "{\"Entries\": [ {\"Agent\": \"Dev\"",
    );
    let s = S::default().user("go").write("w", "a.rs").session();
    let m = message(p.check(KW, &s));
    insta::assert_snapshot!(m.replace(&*p.path().to_string_lossy(), "<project>"));
}

/// A project whose test selector names each changed file's test, and whose suite is
/// `suite.sh`: it records its arguments and exits with the code in `exit-code`.
fn related(exit_code: &str, timeout: u32) -> Project {
    let selector = format!(
        "TestSelector:\n  FindRelatedCommand: echo tests/test_{{file}}\n  FullSuiteCommand: sh suite.sh\n  TimeoutSeconds: {timeout}\n"
    );
    let p = Project::with_route(KW, "Validator: RequireRelatedTestsPass", &selector);
    p.file(
        ".fuseraft/state/changes.json",
        r#"{"Entries": [{"Agent": "Dev", "SessionId": "s", "FilesWritten": ["a.py", "b.py", "a.py"]}], "ActiveSessionId": "s"}"#,
    )
    .file("suite.sh", "echo \"$@\" > ran.txt\necho \"running $# targets\"\nexit $(cat exit-code)\n")
    .file("exit-code", exit_code);
    p
}

#[test]
fn related_tests_run_with_their_discovered_targets() {
    let p = related("0", 30);
    passes(p.check(KW, &S::default().user("go").session()));
    let ran = std::fs::read_to_string(p.path().join("ran.txt")).unwrap();
    assert_eq!(
        ran.trim(),
        "tests/test_a.py tests/test_b.py",
        "each changed file once"
    );
    let p = related("1", 30);
    insta::assert_snapshot!(message(p.check(KW, &S::default().user("go").session())));
}

#[test]
fn a_hanging_test_command_blocks_at_its_timeout() {
    let p = related("0", 1);
    p.file("suite.sh", "sleep 30 & sleep 30\n");
    let m = message(p.check(KW, &S::default().user("go").session()));
    assert!(m.contains("ran past 1 s and were killed"), "{m}");
    assert!(
        m.starts_with("[RequireRelatedTestsPass]\nHandoff blocked:"),
        "{m}"
    );
}

#[test]
fn missing_test_selector_blocks() {
    let p = Project::with_route(KW, "Validator: RequireRelatedTestsPass", "");
    let m = message(
        p.check(
            KW,
            &S::default()
                .user("go")
                .shell("c", "pytest", Outcome::Ok, "")
                .session(),
        ),
    );
    assert!(
        m.contains("RequireRelatedTestsPass is not configured"),
        "{m}"
    );
}
