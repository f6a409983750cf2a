//! `vouch run` end to end: the bundled offline pipeline, its record checked by `vouch gate
//! check`, and the other ways a run ends.

use std::path::{Path, PathBuf};

use crate::support::{render, vouch_in};

fn example() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/pipeline")
}

/// A copy of the example's project in a fresh folder.
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for name in ["calc.sh", "test.sh"] {
        std::fs::copy(example().join("project").join(name), dir.path().join(name)).unwrap();
    }
    dir
}

fn run(dir: &Path, pipeline: &Path, extra: &[&str]) -> std::process::Output {
    let pipeline = pipeline.to_string_lossy().into_owned();
    let mut args = vec![
        "run",
        pipeline.as_str(),
        "--task",
        "add() subtracts; make it add.",
    ];
    args.extend_from_slice(extra);
    vouch_in(dir, &args)
}

#[test]
fn the_bundled_pipeline_runs_offline_with_every_gate_real() {
    let dir = project();
    let out = run(dir.path(), &example().join("run.yaml"), &[]);
    let shown = render(&out).replace(&*dir.path().to_string_lossy(), "<project>");
    insta::assert_snapshot!(shown);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("calc.sh")).unwrap(),
        "# The calculator: add A B prints their sum.\nadd() {\n  echo $(( $1 + $2 ))\n}\n"
    );
    // The recorded run passes the gates it passed, read back from disk.
    let config = example().join("run.yaml");
    let check = vouch_in(
        dir.path(),
        &[
            "gate",
            "check",
            "--config",
            &config.to_string_lossy(),
            "--session",
            ".vouch/run/session.jsonl",
            "--keyword",
            "APPROVED",
            "--agent",
            "Reviewer",
        ],
    );
    assert_eq!(check.status.code(), Some(0), "{}", render(&check));
}

#[test]
fn json_summary_turn_cap_and_stuck_have_their_exit_codes() {
    let dir = project();
    let capped = run(
        dir.path(),
        &example().join("run.yaml"),
        &["--max-turns", "2", "--format", "json"],
    );
    assert_eq!(capped.status.code(), Some(1), "{}", render(&capped));
    let summary: serde_json::Value = serde_json::from_slice(&capped.stdout).unwrap();
    assert_eq!(summary["ended"], "turn_cap");
    assert_eq!(summary["turns"], 2);
    // A Developer who only ever claims the handoff.
    let dir = project();
    let pipeline = std::fs::read_to_string(example().join("run.yaml")).unwrap();
    std::fs::write(dir.path().join("run.yaml"), &pipeline).unwrap();
    let replies = std::fs::read_to_string(example().join("replies.yaml")).unwrap();
    let (planner, rest) = replies.split_once("  Developer:\n").unwrap();
    let (_, others) = rest.split_once("  Tester:\n").unwrap();
    let forged = "  Developer:\n".to_owned() + &"    - text: \"HANDOFF TO TESTER\"\n".repeat(3);
    std::fs::write(
        dir.path().join("replies.yaml"),
        format!("{planner}{forged}  Tester:\n{others}"),
    )
    .unwrap();
    let stuck = run(dir.path(), &dir.path().join("run.yaml"), &[]);
    assert_eq!(stuck.status.code(), Some(3), "{}", render(&stuck));
    assert!(
        String::from_utf8_lossy(&stuck.stdout)
            .starts_with("stuck: Developer was blocked by RequireWriteFile 3 times in a row")
    );
}

#[test]
fn configuration_errors_are_shown_at_their_places_all_at_once() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("bad.yaml"),
        "Models:\n  m: {Provider: llama}\nAgents:\n  - Name: Dev\n    Model: nope\n    Tools: [FileSystem, Teleport]\n    Colour: blue\nSelection:\n  Type: keyword\n  Routes:\n    - Keyword: DONE\n      Agent: Ghost\n",
    )
    .unwrap();
    let out = vouch_in(dir.path(), &["run", "bad.yaml", "--task", "t"]);
    assert_eq!(out.status.code(), Some(2));
    insta::assert_snapshot!(render(&out).replace(&*dir.path().to_string_lossy(), "<dir>"));
    // `vouch gate lint` reports the runner's problems beside the gates' own.
    let lint = vouch_in(
        dir.path(),
        &["gate", "lint", "bad.yaml", "--format", "json"],
    );
    assert_eq!(lint.status.code(), Some(1));
    let files: serde_json::Value = serde_json::from_slice(&lint.stdout).unwrap();
    let messages: Vec<&str> = files[0]["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["message"].as_str().unwrap())
        .collect();
    assert!(
        messages.contains(&"unknown tool or plugin `Teleport`"),
        "{messages:?}"
    );
    assert!(
        messages.contains(&"unknown provider `llama`"),
        "{messages:?}"
    );
}
