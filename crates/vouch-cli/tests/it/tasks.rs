//! `vouch tasks`: validate, transition, ready and schema through the built binary.

use std::path::PathBuf;

use crate::support::{render, vouch_in, vouch_in_with_stdin};

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tasks")
}

#[test]
fn an_invalid_document_is_reported_by_task() {
    insta::assert_snapshot!(
        "tasks_invalid_human",
        render(&vouch_in(&dir(), &["tasks", "validate", "invalid.json"]))
    );
    insta::assert_snapshot!(
        "tasks_invalid_json",
        render(&vouch_in(
            &dir(),
            &["tasks", "validate", "--format", "json", "invalid.json"]
        ))
    );
}

#[test]
fn a_valid_document_with_a_warning() {
    insta::assert_snapshot!(
        "tasks_valid_human",
        render(&vouch_in(&dir(), &["tasks", "validate", "plan.json"]))
    );
    let json = vouch_in(
        &dir(),
        &["tasks", "validate", "--format", "json", "plan.json"],
    );
    assert_eq!(json.status.code(), Some(0));
    let out: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(out["result"]["valid"], true);
    assert_eq!(out["result"]["warnings"][0]["path"], "$[3].created_at");
    // The warning becomes an error on request.
    let strict = vouch_in(
        &dir(),
        &[
            "tasks",
            "validate",
            "--warnings-as-errors",
            "--format",
            "json",
            "plan.json",
        ],
    );
    assert_eq!(strict.status.code(), Some(1));
    let out: serde_json::Value = serde_json::from_slice(&strict.stdout).unwrap();
    assert_eq!(out["error"]["code"], -32005);
}

#[test]
fn text_that_is_not_json_exits_2_with_its_place() {
    let out = vouch_in_with_stdin(&dir(), &["tasks", "validate", "-"], b"[\n  {\"id\": 1,}\n]");
    insta::assert_snapshot!("tasks_syntax_error", render(&out));
    let out = vouch_in_with_stdin(
        &dir(),
        &["tasks", "validate", "--format", "json", "-"],
        b"[{",
    );
    assert_eq!(out.status.code(), Some(2));
    let out: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(out["error"]["code"], -32700);
    assert_eq!(
        vouch_in(&dir(), &["tasks", "validate", "missing.json"])
            .status
            .code(),
        Some(2)
    );
}

#[test]
fn transitions_follow_the_table() {
    let ok = vouch_in(
        &dir(),
        &["tasks", "transition", "--from", "failed", "--to", "pending"],
    );
    assert_eq!(ok.status.code(), Some(0), "{}", render(&ok));
    insta::assert_snapshot!(
        "tasks_transition_refused",
        render(&vouch_in(
            &dir(),
            &[
                "tasks",
                "transition",
                "--from",
                "completed",
                "--to",
                "in_progress"
            ]
        ))
    );
    let json = vouch_in(
        &dir(),
        &[
            "tasks",
            "transition",
            "--from",
            "pending",
            "--to",
            "completed",
            "--format",
            "json",
        ],
    );
    assert_eq!(json.status.code(), Some(1));
    let out: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(out["error"]["code"], -32006);
    let bad = vouch_in(
        &dir(),
        &["tasks", "transition", "--from", "done", "--to", "pending"],
    );
    assert_eq!(bad.status.code(), Some(2));
}

#[test]
fn readiness_of_a_plan() {
    insta::assert_snapshot!(
        "tasks_ready_human",
        render(&vouch_in(&dir(), &["tasks", "ready", "plan.json"]))
    );
    let invalid = vouch_in(&dir(), &["tasks", "ready", "invalid.json"]);
    assert_eq!(invalid.status.code(), Some(1));
}

#[test]
fn the_schema_is_draft_07() {
    let out = vouch_in(&dir(), &["tasks", "schema"]);
    assert_eq!(out.status.code(), Some(0));
    let schema: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(schema["$schema"], "http://json-schema.org/draft-07/schema#");
    assert_eq!(
        schema["required"],
        serde_json::json!(["id", "name", "status"])
    );
}
