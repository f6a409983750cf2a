//! `vouch gate check` and `vouch changes record`.

use crate::support::{render, vouch_in};

const PIPELINE: &str = r#"Orchestration:
  Selection:
    Type: keyword
    Routes:
      - Keyword: "HANDOFF TO TESTER"
        Agent: Tester
        Validators: [RequireWriteFile, RequireShellPass]
        RequiredCommandPattern: "pytest"
        SourceAgents: [Developer]
  Termination:
    Type: composite
    Strategies:
      - Type: regex
        Pattern: '(?m)^\s*APPROVED\s*$'
        AgentNames: [Reviewer]
        Validator: RequireReviewJudgement
      - Type: maxiterations
        MaxIterations: 40
"#;

fn chat(messages: &serde_json::Value) -> String {
    messages.to_string()
}

fn project(session: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("pipeline.yaml"), PIPELINE).unwrap();
    std::fs::write(dir.path().join("session.json"), session).unwrap();
    dir
}

fn developer_turn(test_output: &str) -> String {
    developer_turn_running("pytest -q", test_output)
}

/// A developer turn that writes a file and runs `command`, which printed `test_output`.
fn developer_turn_running(command: &str, test_output: &str) -> String {
    let run = serde_json::json!({"command": command}).to_string();
    chat(&serde_json::json!([
        {"role": "user", "content": "Add /health"},
        {"role": "assistant", "name": "Developer", "tool_calls": [
            {"id": "w", "type": "function", "function": {"name": "FileSystem-write_file", "arguments": "{\"path\": \"health.py\"}"}},
            {"id": "t", "type": "function", "function": {"name": "Shell-shell_run", "arguments": run}}]},
        {"role": "tool", "tool_call_id": "w", "content": "wrote"},
        {"role": "tool", "tool_call_id": "t", "content": test_output},
        {"role": "assistant", "name": "Developer", "content": "HANDOFF TO TESTER"}
    ]))
}

#[test]
fn a_backed_handoff_passes() {
    let dir = project(&developer_turn("4 passed"));
    let out = gate_check(
        &dir,
        &["--keyword", "HANDOFF TO TESTER", "--agent", "Developer"],
    );
    insta::assert_snapshot!(render(&out), @r"
    exit: 0
    ----- stdout -----
    pass
    ----- stderr -----
    ");
}

#[test]
fn a_failing_test_run_blocks_with_the_spec_message() {
    let dir = project(&developer_turn("[EXIT 1] 1 failed, 3 passed"));
    let out = gate_check(
        &dir,
        &["--keyword", "HANDOFF TO TESTER", "--agent", "Developer"],
    );
    insta::assert_snapshot!(render(&out), @r"
    exit: 1
    ----- stdout -----
    Handoff blocked: no matching (pytest) shell_run passed this turn.
    The validator checks THIS TURN ONLY — prior-turn runs do not carry forward.
    1. Call shell_run to run the required command (exit 0).
    2. Emit the handoff keyword in the same response.
    ----- stderr -----
    warning: blocked by RequireShellPass
    ");
    let json = gate_check(
        &dir,
        &["--keyword", "handoff to tester", "--format", "json"],
    );
    let doc: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(doc["verdict"], "block");
    assert_eq!(doc["route"], "HANDOFF TO TESTER");
    assert_eq!(doc["validator"], "RequireShellPass");
    assert!(
        doc["message"]
            .as_str()
            .unwrap()
            .starts_with("Handoff blocked: no matching (pytest)")
    );
}

#[test]
fn strict_mode_rejects_a_masked_test_run() {
    // The test run is piped into `tail`: its status is tail's.
    let dir = project(&developer_turn_running(
        "pytest -q | tail -3",
        "1 failed, 3 passed",
    ));
    let args = ["--keyword", "HANDOFF TO TESTER", "--agent", "Developer"];
    assert_eq!(
        gate_check(&dir, &args).status.code(),
        Some(0),
        "default mode: the spec's rule"
    );
    let strict = gate_check(&dir, &[&args[..], &["--strict"]].concat());
    insta::assert_snapshot!(render(&strict), @r"
    exit: 1
    ----- stdout -----
    Handoff blocked: no matching (pytest) shell_run passed this turn.
    The validator checks THIS TURN ONLY — prior-turn runs do not carry forward.
    1. Call shell_run to run the required command (exit 0).
    2. Emit the handoff keyword in the same response.
    Rejected (strict evidence):
    - `pytest -q | tail -3` (session line 1, call t) does not count: it exits 0 whatever `pytest -q` does: `| tail -3` decides the pipeline's status (pipefail is off)
    ----- stderr -----
    warning: blocked by RequireShellPass
    ");
    // `Validation.Strict: true` in the configuration does the same.
    let yaml = format!("{PIPELINE}  Validation:\n    Strict: true\n");
    std::fs::write(dir.path().join("pipeline.yaml"), yaml).unwrap();
    assert_eq!(gate_check(&dir, &args).stdout, strict.stdout);
}

#[test]
fn completion_runs_the_termination_validators() {
    let session = chat(&serde_json::json!([
        {"role": "user", "content": "review"},
        {"role": "assistant", "name": "Reviewer", "content": "Looks good.\nAPPROVED"}
    ]));
    let dir = project(&session);
    let out = gate_check(&dir, &["--terminate", "--agent", "Reviewer"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stdout)
            .starts_with("APPROVED blocked: response has no structured review block.")
    );
}

#[test]
fn usage_and_configuration_errors_exit_2() {
    let dir = project(&developer_turn("ok"));
    let out = gate_check(&dir, &["--keyword", "SHIP IT"]);
    insta::assert_snapshot!(render(&out), @r"
    exit: 2
    ----- stdout -----
    ----- stderr -----
    error: no route takes `SHIP IT` in `pipeline.yaml` (hint: the routes' keywords are HANDOFF TO TESTER)
    ");
    std::fs::write(
        dir.path().join("broken.yaml"),
        "Selection:\n  Routes:\n    - Keyword: X\n      Validator: RequireMagic\n",
    )
    .unwrap();
    let out = vouch_in(
        dir.path(),
        &[
            "gate",
            "check",
            "--config",
            "broken.yaml",
            "--session",
            "session.json",
            "--keyword",
            "X",
        ],
    );
    insta::assert_snapshot!("broken_config", render(&out));
    let out = gate_check(&dir, &[]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "--keyword or --terminate is required"
    );
}

#[test]
fn changes_record_appends_turns() {
    let dir = tempfile::tempdir().unwrap();
    let out = vouch_in(
        dir.path(),
        &[
            "changes",
            "record",
            "--agent",
            "Developer",
            "--session-id",
            "s1",
            "--written",
            "src/a.rs",
            "--command",
            "cargo test",
            "--exit-code",
            "0",
            "--output",
            "test result: ok",
            "--format",
            "json",
        ],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (doc["turn_index"].as_i64(), doc["entries"].as_i64()),
        (Some(1), Some(1))
    );
    let turn = r#"{"agent": "Tester", "commands": [{"command": "cargo test -- --nocapture", "exit_code": 101, "output": "1 failed"}]}"#;
    let out = crate::support::vouch_in_with_stdin(
        dir.path(),
        &["changes", "record", "--json", "-"],
        turn.as_bytes(),
    );
    assert_eq!(out.status.code(), Some(0));
    insta::assert_snapshot!(String::from_utf8_lossy(&out.stderr), @"recorded turn 2 of Tester (session s1) in .fuseraft/state/changes.json: 0 files written, 1 command");
    let log =
        vouch_evidence::ChangeLog::read(&dir.path().join(".fuseraft/state/changes.json")).unwrap();
    assert_eq!(log.entries.len(), 2);
    assert!(!log.entries[1].commands_run[0].succeeded);
    let bad = crate::support::vouch_in_with_stdin(
        dir.path(),
        &["changes", "record", "--json", "-"],
        br#"{"agent": "T", "comands": []}"#,
    );
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("unknown field `comands`"));
}

/// Runs `vouch gate check --config pipeline.yaml --session session.json` with `args` in `dir`.
fn gate_check(dir: &tempfile::TempDir, args: &[&str]) -> std::process::Output {
    let mut all = vec![
        "gate",
        "check",
        "--config",
        "pipeline.yaml",
        "--session",
        "session.json",
    ];
    all.extend_from_slice(args);
    vouch_in(dir.path(), &all)
}
