//! `vouch gate route` and `vouch gate lint` through the built binary.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::support::{render, vouch_in};

fn example() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/pipeline/pipeline.yaml")
}

fn write_history(dir: &Path, messages: &Value) {
    std::fs::write(dir.join("history.json"), messages.to_string()).unwrap();
}

fn route(dir: &Path, extra: &[&str]) -> std::process::Output {
    let config = example();
    let mut args = vec![
        "gate",
        "route",
        "--config",
        config.to_str().unwrap(),
        "--session",
        "history.json",
    ];
    args.extend_from_slice(extra);
    vouch_in(dir, &args)
}

fn claim(n: usize) -> Value {
    let mut messages = vec![json!({"role": "user", "content": "Implement the brief."})];
    for i in 0..n {
        if i > 0 {
            messages.push(json!({"role": "user", "content": format!("correction {i}")}));
        }
        messages.push(json!({"role": "assistant", "name": "Developer", "content": "I wrote it.\nHANDOFF TO TESTER"}));
    }
    Value::Array(messages)
}

#[test]
fn a_correction_prints_the_message_and_counts_toward_stuck() {
    let dir = tempfile::tempdir().unwrap();
    write_history(dir.path(), &claim(1));
    let first = route(dir.path(), &[]);
    insta::assert_snapshot!("route_correct", render(&first));
    let state = std::fs::read_to_string(dir.path().join(".vouch/router.json")).unwrap();
    // The same reply again: the same decision, and the state untouched.
    let again = route(dir.path(), &[]);
    assert_eq!(again.status.code(), Some(1));
    assert_eq!(again.stdout, first.stdout);
    assert!(String::from_utf8_lossy(&again.stderr).contains("decided before"));
    assert_eq!(
        std::fs::read_to_string(dir.path().join(".vouch/router.json")).unwrap(),
        state
    );
    write_history(dir.path(), &claim(2));
    assert_eq!(route(dir.path(), &[]).status.code(), Some(1));
    write_history(dir.path(), &claim(3));
    let stuck = route(dir.path(), &["--format", "json"]);
    insta::assert_snapshot!("route_stuck_json", render(&stuck));
}

#[test]
fn a_backed_handoff_routes_and_names_the_agent_given() {
    let dir = tempfile::tempdir().unwrap();
    let messages = json!([
        {"role": "user", "content": "Plan it."},
        {"role": "assistant", "content": "Brief written.\n\n  __HANDOFF TO DEVELOPER__  "}
    ]);
    write_history(dir.path(), &messages);
    let brief = r#"{"goal": "g", "files_to_change": ["a.rs"], "acceptance_criteria": ["c"], "implementation": ["i"]}"#;
    std::fs::create_dir_all(dir.path().join(".fuseraft/artifacts")).unwrap();
    std::fs::write(dir.path().join(".fuseraft/artifacts/brief.json"), brief).unwrap();
    let out = route(dir.path(), &["--agent", "Planner", "--state", "state.json"]);
    insta::assert_snapshot!("route_route", render(&out));
    assert!(dir.path().join("state.json").is_file());
}

#[test]
fn input_problems_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    write_history(dir.path(), &json!([{"role": "user", "content": "hello"}]));
    let out = route(dir.path(), &[]);
    insta::assert_snapshot!("route_no_reply", render(&out));
    write_history(dir.path(), &claim(1));
    std::fs::create_dir_all(dir.path().join(".vouch")).unwrap();
    std::fs::write(dir.path().join(".vouch/router.json"), "{\"counters\": [}").unwrap();
    let out = route(dir.path(), &[]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("router.json:1:"), "{err}");
    // The broken state is left as it was.
    assert_eq!(
        std::fs::read_to_string(dir.path().join(".vouch/router.json")).unwrap(),
        "{\"counters\": [}"
    );
}

#[test]
fn lint_is_clean_on_the_example_and_shows_every_problem_of_a_broken_file() {
    let dir = tempfile::tempdir().unwrap();
    let clean = vouch_in(dir.path(), &["gate", "lint", example().to_str().unwrap()]);
    assert_eq!(clean.status.code(), Some(0), "{}", render(&clean));
    let broken = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../vouch-gate/tests/lint/broken/pipeline.yaml");
    std::fs::copy(broken, dir.path().join("pipeline.yaml")).unwrap();
    let out = vouch_in(dir.path(), &["gate", "lint", "pipeline.yaml"]);
    insta::assert_snapshot!("lint_broken_human", render(&out));
    let out = vouch_in(
        dir.path(),
        &["gate", "lint", "--format", "json", "pipeline.yaml"],
    );
    assert_eq!(out.status.code(), Some(1));
    let files: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(files[0]["problems"].as_array().unwrap().len(), 8);
    let missing = vouch_in(dir.path(), &["gate", "lint", "nope.yaml"]);
    assert_eq!(missing.status.code(), Some(2));
}
