//! `vouch run` end to end: the bundled offline pipeline, its record checked by `vouch gate
//! check`, and the other ways a run ends.

use std::path::{Path, PathBuf};

use crate::support::{command_in, render, run_record, vouch_in};

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
    let shown = render(&out)
        .replace(&*run_record(dir.path()).to_string_lossy(), "<record>")
        .replace(&*dir.path().to_string_lossy(), "<project>");
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
            "--run",
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

/// A pipeline whose Developer's command waits on a FIFO until the test lets it go.
const WAITING: &str = r#"
Models:
  demo: {Provider: scripted, Script: script.yaml}
Agents:
  - {Name: Developer, Instructions: Fix add(), Model: demo, Tools: [FileSystem, Shell]}
  - {Name: Tester, Instructions: Test add(), Model: demo, Tools: [Shell]}
Selection:
  Type: keyword
  Routes:
    - {Keyword: "HANDOFF TO TESTER", Agent: Tester, Validators: [RequireWriteFile, RequireShellPass], SourceAgents: [Developer]}
    - {Keyword: APPROVED, Agent: Tester, Validator: RequireShellPass, SourceAgents: [Tester]}
Termination: {Type: regex, Pattern: '(?m)^APPROVED$', AgentNames: [Tester]}
Budget: {MaxTurns: 6}
"#;

const WAITING_SCRIPT: &str = r#"
agents:
  Developer:
    - calls:
        - {tool: write_file, args: {path: calc.sh, content: "add() { echo $(( $1 + $2 )); }\n"}}
        - {tool: shell_run, args: {command: "cat $(cat which) && sh test.sh"}}
    - text: "HANDOFF TO TESTER"
  Tester:
    - calls: [{tool: shell_run, args: {command: "sh test.sh"}}]
    - text: "APPROVED"
"#;

/// A project whose command waits on the FIFO `which` names (`a.fifo` at first): a killed
/// run's command, orphaned, keeps waiting on its own FIFO, never on the resumed run's.
fn waiting_project() -> tempfile::TempDir {
    let dir = project();
    std::fs::write(dir.path().join("pipeline.yaml"), WAITING).unwrap();
    std::fs::write(dir.path().join("script.yaml"), WAITING_SCRIPT).unwrap();
    for fifo in ["a.fifo", "b.fifo"] {
        let made = std::process::Command::new("mkfifo")
            .arg(dir.path().join(fifo))
            .status()
            .unwrap();
        assert!(made.success());
    }
    std::fs::write(dir.path().join("which"), "a.fifo").unwrap();
    dir
}

/// Opens FIFO `name` for writing, which returns once a command reads it.
fn writer(dir: &Path, name: &str) -> std::fs::File {
    std::fs::OpenOptions::new()
        .write(true)
        .open(dir.join(name))
        .unwrap()
}

/// Lets the next reader of FIFO `name` go, from a thread of its own.
fn release(dir: &Path, name: &str) -> std::thread::JoinHandle<()> {
    let dir = dir.to_owned();
    let name = name.to_owned();
    std::thread::spawn(move || drop(writer(&dir, &name)))
}

/// What a run's session says, event by event, without its id.
fn events(dir: &Path) -> Vec<String> {
    let session = vouch_session::read_path(
        &run_record(dir).join("session.jsonl"),
        &vouch_session::ReadOptions::default(),
    )
    .unwrap()
    .session;
    session
        .events
        .iter()
        .map(|e| session.event_line(e))
        .collect()
}

#[test]
fn a_run_killed_mid_command_resumes_to_the_same_transcript() {
    // The run nobody interrupts.
    let whole = waiting_project();
    let go = release(whole.path(), "a.fifo");
    let out = run(whole.path(), &whole.path().join("pipeline.yaml"), &[]);
    go.join().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", render(&out));

    // The same run, killed while its command waits, then resumed.
    let cut = waiting_project();
    let mut child = command_in(cut.path())
        .args([
            "run",
            "pipeline.yaml",
            "--task",
            "add() subtracts; make it add.",
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Opening the FIFO returns once the command reads it: the run is inside its tool call.
    let fifo = writer(cut.path(), "a.fifo");
    child.kill().unwrap();
    child.wait().unwrap();
    drop(fifo);
    std::fs::write(cut.path().join("which"), "b.fifo").unwrap();
    let go = release(cut.path(), "b.fifo");
    let resumed = vouch_in(cut.path(), &["run", "pipeline.yaml", "--resume"]);
    go.join().unwrap();
    assert_eq!(resumed.status.code(), Some(0), "{}", render(&resumed));
    assert_eq!(events(cut.path()), events(whole.path()));
    // Nothing is left to resume.
    let again = vouch_in(cut.path(), &["run", "pipeline.yaml", "--resume"]);
    assert_eq!(again.status.code(), Some(2), "{}", render(&again));
}

#[test]
fn a_run_stopped_by_its_cap_resumes_with_a_higher_one() {
    let dir = project();
    let capped = run(
        dir.path(),
        &example().join("run.yaml"),
        &["--max-turns", "3"],
    );
    assert_eq!(capped.status.code(), Some(1), "{}", render(&capped));
    let config = example().join("run.yaml");
    let resumed = vouch_in(
        dir.path(),
        &[
            "run",
            &config.to_string_lossy(),
            "--resume",
            "--format",
            "json",
        ],
    );
    assert_eq!(resumed.status.code(), Some(0), "{}", render(&resumed));
    let summary: serde_json::Value = serde_json::from_slice(&resumed.stdout).unwrap();
    assert_eq!(
        (summary["turns"].as_u64(), summary["corrections"].as_u64()),
        (Some(5), Some(1))
    );
}

#[test]
fn ctrl_c_stops_the_running_command_and_leaves_a_resumable_run() {
    let dir = waiting_project();
    std::fs::write(
        dir.path().join("script.yaml"),
        WAITING_SCRIPT.replace(
            "    - text: \"HANDOFF TO TESTER\"\n",
            "    - calls: [{tool: shell_run, args: {command: \"sh test.sh\"}}]\n    - text: \"HANDOFF TO TESTER\"\n",
        ),
    )
    .unwrap();
    let child = command_in(dir.path())
        .args([
            "run",
            "pipeline.yaml",
            "--task",
            "add() subtracts; make it add.",
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let fifo = writer(dir.path(), "a.fifo");
    let interrupt = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(interrupt.success());
    let out = child.wait_with_output().unwrap();
    drop(fifo);
    assert_eq!(out.status.code(), Some(130));
    assert!(
        String::from_utf8_lossy(&out.stdout)
            .starts_with("interrupted: resume with `vouch run --resume`")
    );
    let journal = std::fs::read_to_string(run_record(dir.path()).join("journal.jsonl")).unwrap();
    assert!(
        journal.contains("[ERROR] the command was stopped: the run was interrupted"),
        "{journal}"
    );
    let resumed = vouch_in(dir.path(), &["run", "pipeline.yaml", "--resume"]);
    assert_eq!(resumed.status.code(), Some(0), "{}", render(&resumed));
}
