//! Crashes, and runs resumed after them: a journal torn at every byte of its last records
//! (ASCII and multi-byte), a crash right after each side effect of the bundled pipeline and of
//! a commit. Each resumed run must end with the transcript and the change log of the run
//! nobody interrupted.

use std::path::{Path, PathBuf};

use vouch_pipeline::{Ended, RunConfig, models, resume, run, verify_run};

use crate::support::Project;

fn example() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/pipeline")
}

/// The bundled pipeline in a fresh project, its Reviewer's last words multi-byte.
fn pipeline_project() -> Project {
    let dir = Project::new();
    for name in ["calc.sh", "test.sh"] {
        dir.write(
            name,
            &std::fs::read_to_string(example().join("project").join(name)).unwrap(),
        );
    }
    dir.write(
        "pipeline/run.yaml",
        &std::fs::read_to_string(example().join("run.yaml")).unwrap(),
    );
    let replies = std::fs::read_to_string(example().join("replies.yaml"))
        .unwrap()
        .replace(
            "        APPROVED\n",
            "        Vérifié ✓ — «3 passed»\n        APPROVED\n",
        );
    assert!(replies.contains("Vérifié"));
    dir.write("pipeline/replies.yaml", &replies);
    dir
}

/// What a run recorded, without times and hashes: its transcript (each event as text) and
/// its change log (each entry's agent, files and commands with their exit codes and output).
#[derive(Debug, PartialEq, Eq)]
struct Record {
    transcript: Vec<String>,
    changes: Vec<String>,
}

/// Reads and verifies the run of `dir`.
fn recorded(dir: &Project, change_log: &str) -> Record {
    let run = verify_run(dir.path(), Some(dir.state()), Path::new(change_log))
        .unwrap_or_else(|e| panic!("{e}"));
    let hashes = regex::Regex::new("[0-9a-f]{40}").unwrap();
    let transcript = run
        .session
        .events
        .iter()
        .map(|e| run.session.event_line(e))
        .map(|line| hashes.replace_all(&line, "<hash>").into_owned())
        .collect();
    let changes = run
        .change_log
        .entries
        .iter()
        .map(|e| {
            let commands: Vec<String> = e
                .commands_run
                .iter()
                .map(|c| format!("{} → {:?}: {}", c.command, c.exit_code, c.output))
                .collect();
            format!(
                "{} turn {:?} wrote {:?} deleted {:?} ran {:?} commits {}",
                e.agent,
                e.turn_index,
                e.files_written,
                e.files_deleted,
                commands,
                e.git_commits.len()
            )
        })
        .collect();
    Record {
        transcript,
        changes,
    }
}

fn load(dir: &Project, pipeline: &str) -> (RunConfig, vouch_pipeline::Models) {
    let config = RunConfig::load(&dir.path().join(pipeline)).unwrap_or_else(|e| panic!("{e}"));
    let models = models::build(&config).unwrap();
    (config, models)
}

const TASK: &str = "add() subtracts; make it add.";
const CHANGE_LOG: &str = ".fuseraft/state/changes.json";

/// Runs the project's pipeline to its end.
fn whole(dir: &Project, pipeline: &str) -> Record {
    let (config, models) = load(dir, pipeline);
    let summary = run(&config, &models, &dir.options(TASK), &mut |_| {}).unwrap();
    assert!(
        matches!(summary.ended, Ended::Terminated { .. }),
        "{:?}",
        summary.ended
    );
    recorded(dir, CHANGE_LOG)
}

/// Resumes the project's run to its end.
fn resumed(dir: &Project, pipeline: &str) -> Record {
    let (config, models) = load(dir, pipeline);
    let summary =
        resume(&config, &models, &dir.options(""), &mut |_| {}).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        matches!(summary.ended, Ended::Terminated { .. }),
        "{:?}",
        summary.ended
    );
    recorded(dir, CHANGE_LOG)
}

fn journal_of(dir: &Project) -> PathBuf {
    vouch_pipeline::run_dir(dir.state(), &dir.path().canonicalize().unwrap()).join("journal.jsonl")
}

#[test]
fn a_journal_torn_at_every_byte_of_its_last_records_resumes_to_the_same_run() {
    let dir = pipeline_project();
    let reference = whole(&dir, "pipeline/run.yaml");
    let journal = journal_of(&dir);
    let bytes = std::fs::read(&journal).unwrap();
    let log = dir.path().join(CHANGE_LOG);
    let full_log = std::fs::read(&log).unwrap();
    // The change log without the Reviewer's entry: what it held before that entry was
    // journaled and appended.
    let mut before: serde_json::Value = serde_json::from_slice(&full_log).unwrap();
    before["Entries"].as_array_mut().unwrap().pop();
    let before_log = serde_json::to_vec(&before).unwrap();
    // The last three records: the Reviewer's last reply (multi-byte), its turn's entry, and
    // the decision that ended the run.
    let starts: Vec<usize> = std::iter::once(0)
        .chain(
            bytes
                .iter()
                .enumerate()
                .filter(|(_, b)| **b == b'\n')
                .map(|(i, _)| i + 1),
        )
        .collect();
    let n = starts.len() - 1;
    let records = [
        (starts[n - 3], starts[n - 2], &before_log),
        (starts[n - 2], starts[n - 1], &before_log),
        (starts[n - 1], starts[n], &full_log),
    ];
    let step = String::from_utf8_lossy(&bytes[records[0].0..records[0].1]).into_owned();
    assert!(
        step.contains("\"record\":\"step\"") && step.contains("Vérifié ✓"),
        "{step}"
    );
    let mut resumes = 0;
    for (start, end, change_log) in records {
        for cut in start..end {
            std::fs::write(&journal, &bytes[..cut]).unwrap();
            std::fs::write(&log, change_log).unwrap();
            assert_eq!(
                resumed(&dir, "pipeline/run.yaml"),
                reference,
                "torn at byte {} of a record of {} bytes",
                cut - start,
                end - start
            );
            resumes += 1;
        }
    }
    assert!(resumes > 600, "{resumes}");
}

#[test]
fn a_crash_right_after_each_side_effect_resumes_to_the_same_run() {
    let reference = whole(&pipeline_project(), "pipeline/run.yaml");
    // The brief written, the patch, three test runs and the report: six side effects.
    for effect in 1..=6 {
        let dir = pipeline_project();
        let (config, models) = load(&dir, "pipeline/run.yaml");
        let mut options = dir.options(TASK);
        options.crash_after_effects = Some(effect);
        let crashed = run(&config, &models, &options, &mut |_| {});
        assert!(crashed.is_err(), "effect {effect}: the crash happened");
        assert_eq!(
            resumed(&dir, "pipeline/run.yaml"),
            reference,
            "a crash after side effect {effect}"
        );
    }
}

/// A project whose one agent writes a file, commits, and says it is done.
fn commit_project() -> Project {
    let dir = Project::new();
    dir.write(
        "pipeline.yaml",
        "Models:\n  m: {Provider: scripted, Script: script.yaml}\nAgents:\n  - {Name: Developer, Instructions: Commit., Model: m, Tools: [FileSystem, Git]}\nSelection:\n  Type: keyword\n  Routes:\n    - {Keyword: DONE, Agent: Developer}\nTermination: {Type: regex, Pattern: '(?m)^DONE$'}\nBudget: {MaxTurns: 3}\n",
    );
    dir.write(
        "script.yaml",
        "agents:\n  Developer:\n    - calls:\n        - {tool: write_file, args: {path: notes.txt, content: \"done\\n\"}}\n        - {tool: git_commit, args: {message: Add the notes.}}\n    - text: \"DONE\"\n",
    );
    dir.write(".gitignore", "pipeline.yaml\nscript.yaml\n");
    let git = |args: &[&str]| {
        let ok = std::process::Command::new("git")
            .args(args)
            .current_dir(dir.path())
            .output()
            .unwrap()
            .status
            .success();
        assert!(ok, "git {args:?}");
    };
    git(&["init", "-q"]);
    git(&["config", "user.email", "dev@example.com"]);
    git(&["config", "user.name", "Dev"]);
    git(&["add", ".gitignore"]);
    git(&["commit", "-q", "-m", "Start."]);
    dir
}

fn commits(dir: &Project) -> usize {
    let out = std::process::Command::new("git")
        .args(["rev-list", "--count", "HEAD"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).trim().parse().unwrap()
}

#[test]
fn a_crash_right_after_a_commit_or_a_write_is_not_repeated() {
    let reference = whole(&commit_project(), "pipeline.yaml");
    for effect in 1..=2 {
        let dir = commit_project();
        let (config, models) = load(&dir, "pipeline.yaml");
        let mut options = dir.options(TASK);
        options.crash_after_effects = Some(effect);
        assert!(run(&config, &models, &options, &mut |_| {}).is_err());
        assert_eq!(resumed(&dir, "pipeline.yaml"), reference, "effect {effect}");
        assert_eq!(commits(&dir), 2, "the commit was made once");
    }
}

#[test]
fn a_change_made_by_someone_else_while_the_run_was_down_is_not_overwritten() {
    let dir = pipeline_project();
    let (config, models) = load(&dir, "pipeline/run.yaml");
    let mut options = dir.options(TASK);
    // The crash comes right after the Developer's patch.
    options.crash_after_effects = Some(2);
    assert!(run(&config, &models, &options, &mut |_| {}).is_err());
    dir.write("calc.sh", "add() { echo 42; }\n");
    let (config, models) = load(&dir, "pipeline/run.yaml");
    let mut answers = Vec::new();
    let _ = resume(&config, &models, &dir.options(""), &mut |p| {
        if let vouch_pipeline::Progress::ToolCall { result, .. } = p {
            answers.push(result.output.preview().to_owned());
        }
    })
    .unwrap();
    assert!(
        answers[0].starts_with("[ERROR] the run stopped while this call changed `calc.sh`"),
        "{answers:?}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("calc.sh")).unwrap(),
        "add() { echo 42; }\n",
        "the resumed run did not make the change over someone else's"
    );
}

#[test]
fn a_journal_torn_inside_a_correction_resumes_with_the_correction() {
    let reference = whole(&pipeline_project(), "pipeline/run.yaml");
    // A run stopped by its cap right after the router corrected the Developer: the last
    // record is the correction's decision, which carries the message the Developer gets.
    let dir = pipeline_project();
    let (config, models) = load(&dir, "pipeline/run.yaml");
    let mut options = dir.options(TASK);
    options.max_turns = Some(2);
    let capped = run(&config, &models, &options, &mut |_| {}).unwrap();
    assert_eq!(capped.ended, Ended::TurnCap { cap: 2 });
    let journal = journal_of(&dir);
    let bytes = std::fs::read(&journal).unwrap();
    let start = bytes[..bytes.len() - 1]
        .iter()
        .rposition(|b| *b == b'\n')
        .map_or(0, |i| i + 1);
    let last = String::from_utf8_lossy(&bytes[start..]).into_owned();
    assert!(
        last.contains("\"record\":\"decided\"") && last.contains("RequireWriteFile"),
        "{last}"
    );
    let log = dir.path().join(CHANGE_LOG);
    let log_bytes = std::fs::read(&log).unwrap();
    let artifacts = dir.path().join(".fuseraft/artifacts");
    // Every byte of the record's two ends, every seventh between (each resume runs the rest
    // of the run; the test above tears every byte of the run's last records).
    let end = bytes.len();
    let cuts = (start..end).filter(|c| c - start < 64 || end - c <= 64 || (c - start) % 7 == 0);
    for cut in cuts {
        std::fs::write(&journal, &bytes[..cut]).unwrap();
        std::fs::write(&log, &log_bytes).unwrap();
        // What the rest of the run changes is put back as it was at the cut.
        dir.write(
            "calc.sh",
            &std::fs::read_to_string(example().join("project/calc.sh")).unwrap(),
        );
        let _ = std::fs::remove_file(artifacts.join("test-report.json"));
        assert_eq!(
            resumed(&dir, "pipeline/run.yaml"),
            reference,
            "torn at byte {} of {}",
            cut - start,
            bytes.len() - start
        );
    }
}
