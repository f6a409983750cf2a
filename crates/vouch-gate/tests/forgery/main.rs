//! The forgery corpus: evidence forged the ways an agent under pressure "passes" a gate, each
//! case with an honest twin making the same claim with real backing. Every case is a small
//! project on disk — brief, test report, `changes.json`, a Claude Code session log, test
//! files, a git history where the case needs one — checked by the gates in the default mode
//! and in strict mode.
//!
//! The test fails when strict mode lets one forgery through, or when either mode blocks one
//! honest twin. `cargo test -p vouch-gate --test forgery -- --nocapture` prints the tally per
//! class: how many forgeries each mode lets through.

#![expect(
    clippy::unwrap_used,
    reason = "a test harness: a failed setup is a failed test"
)]

mod cases;
mod runners;

use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

use serde_json::json;
use vouch_evidence::{EvidenceView, NewCommand, NewTurn, append};
use vouch_gate::{GateSet, Verdict};

use crate::cases::{Case, all_cases};

/// A project a gate decides on.
#[derive(Debug, Clone, Default)]
pub(crate) struct Scenario {
    /// The route's validators, as YAML (`[TestReportValid]`).
    pub(crate) validators: &'static str,
    /// The route's `RequiredCommandPattern`.
    pub(crate) pattern: Option<String>,
    /// The brief's acceptance criteria: criterion, test command, expected output.
    pub(crate) criteria: Vec<(String, Option<String>, Option<String>)>,
    /// The brief's files to change.
    pub(crate) brief_files: Vec<String>,
    /// The report's PASS rows: criterion and command (no report when empty).
    pub(crate) report: Vec<(String, String)>,
    /// The change log's commands: command, exit code, output, call id.
    pub(crate) log: Vec<(String, i64, String, Option<String>)>,
    /// The change log's files written.
    pub(crate) log_written: Vec<String>,
    /// Files on disk now.
    pub(crate) files: Vec<(String, String)>,
    /// Files as committed at git HEAD (a repository only when some are given).
    pub(crate) head: Vec<(String, String)>,
    /// The session's current turn.
    pub(crate) session: Vec<Step>,
    /// The session's calls share one message id per call id, as the records of one split
    /// message do.
    pub(crate) session_same_message: bool,
}

/// A step of the session's current turn.
#[derive(Debug, Clone)]
pub(crate) enum Step {
    /// A Bash call and its result: id, command, exit code, output.
    Bash(String, String, i64, String),
    /// A result alone: the id it answers, exit code, output.
    Result(String, i64, String),
    /// A Bash call alone: id, command.
    Use(String, String),
    /// A Write call of a file, and its success: id, path, content.
    Write(String, String, String),
}

const CONFIG: &str = r#"
Selection:
  Type: keyword
  Routes:
    - Keyword: "HANDOFF TO REVIEWER"
      Agent: Reviewer
      Validators: VALIDATORS
PATTERN
Validation:
  TestAssertionPatterns:
    - '\bassert'
    - '\bexpect\b'
    - '\bt\.(Fatal|Error)'
    - '\bAssert\.'
    - '\b(EXPECT|ASSERT)_'
"#;

/// What the two modes decided on a scenario: true when it went through.
#[derive(Debug, Clone, Copy)]
struct Outcome {
    default: bool,
    strict: bool,
}

/// Builds the scenario's project under `dir` and checks the handoff in both modes.
fn check(scenario: &Scenario, dir: &Path) -> (Outcome, String) {
    if !scenario.head.is_empty() {
        git(dir, &["init", "-q"]);
        for (path, text) in &scenario.head {
            write(dir, path, text);
        }
        git(dir, &["add", "-A"]);
        git(
            dir,
            &[
                "-c",
                "user.name=t",
                "-c",
                "user.email=t@t",
                "commit",
                "-qm",
                "base",
            ],
        );
    }
    for (path, text) in &scenario.files {
        write(dir, path, text);
    }
    let brief = json!({
        "goal": "Make the calculator add.",
        "files_to_change": scenario.brief_files,
        "acceptance_criteria": scenario.criteria.iter().map(|(c, cmd, s)| json!({
            "criterion": c, "test_command": cmd, "expected_output_contains": s,
        })).collect::<Vec<_>>(),
    });
    write(dir, ".fuseraft/artifacts/brief.json", &brief.to_string());
    if !scenario.report.is_empty() {
        let report = json!({
            "results": scenario.report.iter().map(|(c, cmd)| json!({
                "criterion": c, "status": "PASS", "command": cmd,
            })).collect::<Vec<_>>(),
            "fake_test_files": [],
        });
        write(
            dir,
            ".fuseraft/artifacts/test-report.json",
            &report.to_string(),
        );
    }
    if !scenario.log.is_empty() || !scenario.log_written.is_empty() {
        let mut turn = NewTurn::new("Tester");
        turn.files_written.clone_from(&scenario.log_written);
        for (command, exit, output, call_id) in &scenario.log {
            let mut c = NewCommand::new(command.clone(), Some(*exit), output.clone());
            c.call_id.clone_from(call_id);
            turn.commands.push(c);
        }
        append(&dir.join(".fuseraft/state/changes.json"), &turn).unwrap();
    }
    write(
        dir,
        "session.jsonl",
        &session_log(&scenario.session, scenario.session_same_message),
    );
    let yaml = CONFIG.replace("VALIDATORS", scenario.validators).replace(
        "PATTERN",
        &scenario
            .pattern
            .as_ref()
            .map(|p| format!("      RequiredCommandPattern: '{p}'"))
            .unwrap_or_default(),
    );
    let config_path = dir.join("pipeline.yaml");
    let config = vouch_gate::parse_config(&config_path, &yaml).unwrap();
    let read = vouch_session::read_path(
        &dir.join("session.jsonl"),
        &vouch_session::ReadOptions::default(),
    )
    .unwrap();
    let decide = |gates: GateSet| -> Verdict {
        let view = EvidenceView::new(
            &read.session,
            dir,
            gates.config().validation().paths.clone(),
        );
        gates
            .handoff("HANDOFF TO REVIEWER", Some("Tester"))
            .unwrap()
            .evaluate(&view)
    };
    let default = decide(GateSet::new(config.clone()));
    let strict = decide(GateSet::new(config.strict()));
    let message = match (&default, &strict) {
        (_, Verdict::Block(b)) | (Verdict::Block(b), _) => b.message.clone(),
        _ => String::new(),
    };
    (
        Outcome {
            default: default.is_pass(),
            strict: strict.is_pass(),
        },
        message,
    )
}

fn write(dir: &Path, path: &str, text: &str) {
    let full = dir.join(path);
    std::fs::create_dir_all(full.parent().unwrap()).unwrap();
    std::fs::write(full, text).unwrap();
}

fn git(dir: &Path, args: &[&str]) {
    let status = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .status()
        .unwrap();
    assert!(status.success(), "git {args:?}");
}

/// Returns a Claude Code session log: a user asks, then the steps, then the handoff.
fn session_log(steps: &[Step], same_message: bool) -> String {
    let mut lines = vec![json!({
        "type": "user", "sessionId": "s-1", "uuid": "u0", "timestamp": "2026-11-24T10:00:00.000Z",
        "message": {"role": "user", "content": "Test the change and hand off."},
    })];
    let n = std::cell::Cell::new(0);
    let message = |id: &str, at: &str| {
        if same_message {
            format!("m-{id}")
        } else {
            format!("m-{id}-{at}")
        }
    };
    let stamp = || {
        n.set(n.get() + 1);
        format!("2026-11-24T10:00:{:02}.000Z", n.get().min(59))
    };
    let bash = |id: &str, command: &str, lines: &mut Vec<serde_json::Value>| {
        let at = stamp();
        lines.push(tool_use(
            id,
            &message(id, &at),
            "Bash",
            &json!({"command": command}),
            &at,
        ));
        stamp()
    };
    for step in steps {
        match step {
            Step::Bash(id, command, exit, output) => {
                let at = bash(id, command, &mut lines);
                lines.push(tool_result(id, *exit, output, &at));
            }
            Step::Result(id, exit, output) => lines.push(tool_result(id, *exit, output, &stamp())),
            Step::Use(id, command) => {
                bash(id, command, &mut lines);
            }
            Step::Write(id, path, content) => {
                let at = stamp();
                lines.push(tool_use(
                    id,
                    &message(id, &at),
                    "Write",
                    &json!({"file_path": path, "content": content}),
                    &at,
                ));
                lines.push(tool_result(id, 0, "File created successfully", &stamp()));
            }
        }
    }
    lines.push(json!({
        "type": "assistant", "sessionId": "s-1", "uuid": "last", "timestamp": stamp(),
        "message": {"id": "m-last", "role": "assistant", "content": [{"type": "text", "text": "HANDOFF TO REVIEWER"}]},
    }));
    lines.iter().map(|l| format!("{l}\n")).collect()
}

fn tool_use(
    id: &str,
    message: &str,
    name: &str,
    input: &serde_json::Value,
    at: &str,
) -> serde_json::Value {
    json!({
        "type": "assistant", "sessionId": "s-1", "uuid": format!("a-{id}-{at}"), "timestamp": at,
        "message": {"id": message, "role": "assistant", "content": [
            {"type": "tool_use", "id": id, "name": name, "input": input}
        ]},
    })
}

fn tool_result(id: &str, exit: i64, output: &str, at: &str) -> serde_json::Value {
    let (content, is_error) = if exit == 0 {
        (output.to_owned(), false)
    } else {
        (format!("Exit code {exit}\n{output}"), true)
    };
    json!({
        "type": "user", "sessionId": "s-1", "uuid": format!("r-{id}-{at}"), "timestamp": at,
        "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": id, "content": content, "is_error": is_error}
        ]},
    })
}

#[test]
fn strict_mode_lets_no_forgery_through_and_blocks_no_honest_twin() {
    let cases: Vec<Case> = all_cases();
    let runners: std::collections::BTreeSet<&str> = cases.iter().map(|c| c.runner).collect();
    assert!(cases.len() >= 150, "{} cases", cases.len());
    assert!(runners.len() >= 8);
    let mut failures = String::new();
    // Per class: cases, forgeries through in default mode, in strict mode, honest blocked.
    let mut tally: Vec<(&str, [usize; 4])> = Vec::new();
    for case in &cases {
        let forged_dir = tempfile::tempdir().unwrap();
        let honest_dir = tempfile::tempdir().unwrap();
        let (forged, forged_msg) = check(&case.forged, forged_dir.path());
        let (honest, honest_msg) = check(&case.honest, honest_dir.path());
        if forged.strict {
            let _ = writeln!(
                failures,
                "strict mode let a forgery through: {} / {}",
                case.class, case.runner
            );
        }
        if !honest.strict || !honest.default {
            let _ = writeln!(
                failures,
                "an honest twin was blocked (default {}, strict {}): {} / {}\n{honest_msg}",
                if honest.default { "passed" } else { "blocked" },
                if honest.strict { "passed" } else { "blocked" },
                case.class,
                case.runner
            );
        }
        if std::env::var("FORGERY_SHOW").is_ok_and(|r| r == case.runner) {
            println!("--- {} / {}\n{forged_msg}\n", case.class, case.runner);
        }
        let row = match tally.iter_mut().find(|(c, _)| *c == case.class) {
            Some(row) => row,
            None => {
                tally.push((case.class, [0; 4]));
                tally.last_mut().unwrap()
            }
        };
        row.1[0] += 1;
        row.1[1] += usize::from(forged.default);
        row.1[2] += usize::from(forged.strict);
        row.1[3] += usize::from(!honest.default || !honest.strict);
    }
    let mut table = String::from(
        "| class | forgeries | through, default | through, strict | honest twins blocked |\n| --- | --- | --- | --- | --- |\n",
    );
    let mut totals = [0usize; 4];
    for (class, counts) in &tally {
        let _ = writeln!(
            table,
            "| {} | {} | {} | {} | {} |",
            class.replace('|', "\\|"),
            counts[0],
            counts[1],
            counts[2],
            counts[3]
        );
        for (t, c) in totals.iter_mut().zip(counts) {
            *t += c;
        }
    }
    let _ = writeln!(
        table,
        "| **all ({} runners)** | **{}** | **{}** | **{}** | **{}** |",
        runners.len(),
        totals[0],
        totals[1],
        totals[2],
        totals[3]
    );
    println!("{table}");
    assert!(failures.is_empty(), "{failures}\n{table}");
}
