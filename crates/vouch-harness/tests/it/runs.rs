//! Whole runs of stand-in agents (`tests/fake-agents/claude` and `codex`, small shell scripts
//! that take the flags the real CLIs take and print or write what they write): where the
//! session is read from, timeouts, failures, concurrency, repeats, JUnit.

use std::path::{Path, PathBuf};
use std::time::Duration;

use vouch_gate::PipelineConfig;
use vouch_harness::runner::{AgentRunner, ClaudeCode, Codex, Gemini};
use vouch_harness::spec::{AgentKind, parse};
use vouch_harness::suite::{self, Progress, RunOptions, TestResult};
use vouch_harness::{NoGrader, TestFile};
use vouch_session::locations::claude_project_slug;

fn fake(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fake-agents")
        .join(name)
}

fn test(yaml: &str) -> TestFile {
    parse(Path::new("/nowhere/run.vouch.yaml"), yaml).unwrap_or_else(|e| panic!("{e}"))
}

const CHECKS: &str = r#"assertions:
  - tool: Write
    params: {file_path: "*.ts"}
  - tool: Bash
    params: {command: "cargo test"}
    succeeded: true
"#;

/// Runs `tests` as a suite with the fake agents, `jobs` at once; `state` is where FLAKY
/// counts its runs.
fn run_suite(tests: &[TestFile], jobs: usize, state: &Path, config_dir: &Path) -> Vec<TestResult> {
    let state = state.to_owned();
    let config_dir = config_dir.to_owned();
    let runners = move |agent: &AgentKind| -> Result<Box<dyn AgentRunner>, vouch_harness::Error> {
        match agent {
            AgentKind::ClaudeCode => Ok(Box::new(
                ClaudeCode::new(fake("claude"))
                    .env("FAKE_STATE", &state)
                    .env("CLAUDE_CONFIG_DIR", &config_dir),
            )),
            AgentKind::Codex => Ok(Box::new(Codex::new(fake("codex")))),
            AgentKind::Gemini => Ok(Box::new(
                Gemini::new(fake("gemini")).env("GEMINI_CLI_HOME", &config_dir),
            )),
            AgentKind::Other(name) => {
                Err(vouch_harness::Error::NoRunner(format!("no agent {name}")))
            }
        }
    };
    let config = PipelineConfig::empty(Path::new("vouch.yaml"));
    let progress = |_: Progress<'_>| {};
    let options = RunOptions::new(jobs, &config, &NoGrader, &progress).with_runners(&runners);
    suite::run(tests, &options)
}

#[test]
fn the_log_named_by_the_runs_session_id_is_graded_not_a_newer_stale_one() {
    let config = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    // A stale session of an earlier run in the same project folder, newer than the run's own
    // log will be; it wrote a Python file and ran no tests.
    let project = config
        .path()
        .join("projects")
        .join(claude_project_slug(&dir.path().canonicalize().unwrap()));
    std::fs::create_dir_all(&project).unwrap();
    let stale = project.join("00000000-0000-4000-8000-000000000000.jsonl");
    std::fs::write(
        &stale,
        r#"{"type":"assistant","sessionId":"old","uuid":"a","message":{"id":"m","role":"assistant","content":[{"type":"tool_use","id":"t","name":"Write","input":{"file_path":"/x/stale.py","content":""}}]}}
"#,
    )
    .unwrap();
    let later = std::time::SystemTime::now() + Duration::from_secs(3600);
    std::fs::File::options()
        .write(true)
        .open(&stale)
        .unwrap()
        .set_modified(later)
        .unwrap();

    let t = test(&format!("name: log\nprompt: please LOGFILE\n{CHECKS}"));
    let run = ClaudeCode::new(fake("claude"))
        .env("CLAUDE_CONFIG_DIR", config.path())
        .run(&t, dir.path());
    assert_eq!(run.error, None, "{}", run.stderr);
    let source = run.source.unwrap();
    assert!(
        source.starts_with(&project.display().to_string()),
        "{source}"
    );
    assert_ne!(Path::new(&source), stale);
    let session = run.log.unwrap().session;
    let names: Vec<&str> = session.tool_calls().map(|c| c.name.as_ref()).collect();
    assert_eq!(names, ["Write", "Bash"]);
}

#[test]
fn without_a_log_file_the_printed_stream_is_the_session() {
    let config = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let t = test(&format!(
        "name: stream\nprompt: hello\nmodel: fake-model\npermission_mode: acceptEdits\nallowed_tools: [Read, Write]\n{CHECKS}"
    ));
    let run = ClaudeCode::new(fake("claude"))
        .env("CLAUDE_CONFIG_DIR", config.path())
        .run(&t, dir.path());
    assert_eq!(run.error, None, "{}", run.stderr);
    assert_eq!(
        run.source.as_deref(),
        Some("the stream-json claude printed")
    );
    assert_eq!(run.exit_code, Some(0));
    assert!(dir.path().join("hello.ts").is_file());
}

#[test]
fn an_agent_past_its_timeout_is_killed_and_the_run_fails() {
    let dir = tempfile::tempdir().unwrap();
    let t = test(&format!("name: slow\nprompt: SLEEP\ntimeout: 1\n{CHECKS}"));
    let run = ClaudeCode::new(fake("claude")).run(&t, dir.path());
    assert!(run.timed_out);
    assert_eq!(run.exit_code, None);
    // The agent writes its file after its sleep: killed at the deadline, it never does.
    assert!(
        !dir.path().join("hello.ts").exists(),
        "the agent was not killed"
    );
    insta::assert_snapshot!(run.error.unwrap(), @"claude ran past the timeout of 1s and was killed, before writing a session");
}

#[test]
fn an_agent_that_fails_keeps_its_exit_code_and_standard_error() {
    let dir = tempfile::tempdir().unwrap();
    let t = test(&format!("name: fails\nprompt: FAIL\n{CHECKS}"));
    let run = ClaudeCode::new(fake("claude")).run(&t, dir.path());
    assert_eq!(run.exit_code, Some(3));
    assert_eq!(run.stderr.trim(), "fake claude: failing as asked");
    let error = run.error.unwrap();
    assert!(
        error.starts_with("claude exited with code 3 and wrote no session"),
        "{error}"
    );
}

#[test]
fn codex_runs_are_read_from_its_events() {
    let dir = tempfile::tempdir().unwrap();
    let assertions =
        "assertions:\n  - tool: Bash\n    params: {command: \"cargo test\"}\n    succeeded: true\n";
    let passing = test(&format!(
        "name: codex\nagent: codex\nprompt: run the tests\n{assertions}"
    ));
    let failing = test(&format!(
        "name: codex-fails\nagent: codex\nprompt: FAIL_TESTS\n{assertions}"
    ));
    let results = run_suite(&[passing, failing], 2, dir.path(), dir.path());
    assert!(results[0].passed, "{:?}", results[0]);
    assert!(!results[1].passed);
    let row = &results[1].runs[0].rows[0];
    insta::assert_snapshot!(row.reason.as_deref().unwrap(), @r#"Bash was called 1 time with command exactly "cargo test", and none succeeded: command_execution bash -lc 'cargo test' [failed (exit 101)] (line 3)"#);
}

#[test]
fn gemini_runs_are_read_from_the_chat_file_it_saved_or_else_its_stream() {
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let passing = test(&format!(
        "name: gemini\nagent: gemini\nprompt: run the tests\n{CHECKS}"
    ));
    let failing = test(&format!(
        "name: gemini-fails\nagent: gemini\nprompt: FAIL_TESTS\n{CHECKS}"
    ));
    let unsaved = test(&format!(
        "name: gemini-unsaved\nagent: gemini\nprompt: NO_SAVE\n{CHECKS}"
    ));
    let results = run_suite(&[passing, failing, unsaved], 2, dir.path(), home.path());
    assert!(results[0].passed, "{:?}", results[0]);
    let source = results[0].runs[0].session.as_deref().unwrap();
    assert!(
        source.contains("/.gemini/tmp/") && source.contains("/chats/session-"),
        "{source}"
    );
    assert!(!results[1].passed);
    let row = &results[1].runs[0].rows[1];
    assert!(
        row.reason.as_deref().unwrap().contains("failed (exit 101)"),
        "{row:?}"
    );
    assert!(results[2].passed, "{:?}", results[2]);
    assert_eq!(
        results[2].runs[0].session.as_deref(),
        Some("the events gemini printed")
    );
}

#[test]
fn results_keep_the_tests_order_whatever_order_runs_end_in() {
    let dir = tempfile::tempdir().unwrap();
    let tests: Vec<TestFile> = (1..=4)
        .map(|i| test(&format!("name: t{i}\nprompt: SLOW {i}\n{CHECKS}")))
        .collect();
    let results = run_suite(&tests, 4, dir.path(), dir.path());
    let names: Vec<&str> = results.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, ["t1", "t2", "t3", "t4"]);
    assert!(results.iter().all(|r| r.passed), "{results:?}");
}

#[test]
fn repeats_pass_when_the_pass_rate_of_runs_pass() {
    // FLAKY passes its first three runs and fails the others: 3 of 5.
    for (rate, passes) in [(0.6, true), (0.8, false)] {
        let state = tempfile::tempdir().unwrap();
        let t = test(&format!(
            "name: flaky\nprompt: FLAKY\nrepeat: 5\npass_rate: {rate}\n{CHECKS}"
        ));
        let results = run_suite(&[t], 2, state.path(), state.path());
        let r = &results[0];
        assert_eq!(r.runs.len(), 5);
        assert_eq!(r.passed_runs(), 3, "{r:?}");
        assert_eq!(r.passed, passes, "pass_rate {rate}");
        let runs: Vec<u32> = r.runs.iter().map(|run| run.run).collect();
        assert_eq!(runs, [1, 2, 3, 4, 5]);
    }
}

#[test]
fn every_run_gets_a_fresh_directory_with_the_setup() {
    let dir = tempfile::tempdir().unwrap();
    let yaml = r#"name: setup
prompt: WRITE_JS
repeat: 2
setup:
  src/a.ts: "export {};"
assertions:
  - tool: Write
    params: {file_path: "*.js"}
  - gate: {FileExists: {Path: "src/a.ts"}}
  - gate: {FileExists: {Path: "hello.js"}}
"#;
    let results = run_suite(&[test(yaml)], 2, dir.path(), dir.path());
    assert!(results[0].passed, "{:?}", results[0]);
}

#[test]
fn junit_has_a_testcase_per_test_and_a_failure_for_each_failed_one() {
    let dir = tempfile::tempdir().unwrap();
    let tests = [
        test(&format!("name: passes\nprompt: hello\n{CHECKS}")),
        test(&format!("name: writes js\nprompt: WRITE_JS\n{CHECKS}")),
        test(&format!("name: agent fails\nprompt: FAIL\n{CHECKS}")),
    ];
    let results = run_suite(&tests, 3, dir.path(), dir.path());
    let xml = vouch_harness::junit::to_junit(&results).unwrap();
    assert!(
        xml.contains(
            r#"<testsuite name="vouch agent tests" tests="3" skipped="0" errors="0" failures="2">"#
        ),
        "{xml}"
    );
    assert_eq!(xml.matches("<testcase ").count(), 3);
    assert_eq!(xml.matches("<failure ").count(), 2);
    assert!(xml.contains(r#"<failure message="run 1: Write called with file_path glob *.ts: Write was called 1 time, never with file_path glob *.ts: file_path = "#), "{xml}");
    assert!(
        xml.contains(r#"<failure message="run 1: claude exited with code 3 and wrote no session"#),
        "{xml}"
    );
}

/// Runs `tests` tests whose agent cannot start, `jobs` at once, recording how many threads the
/// parallel work of a run would get.
fn threads_seen_by_a_run(tests: usize, jobs: usize) -> usize {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static SEEN: AtomicUsize = AtomicUsize::new(0);
    let runners = |_: &AgentKind| -> Result<Box<dyn AgentRunner>, vouch_harness::Error> {
        SEEN.store(rayon::current_num_threads(), Ordering::SeqCst);
        Err(vouch_harness::Error::NoRunner("none here".into()))
    };
    let config = PipelineConfig::empty(Path::new("vouch.yaml"));
    let progress = |_: Progress<'_>| {};
    let options = RunOptions::new(jobs, &config, &NoGrader, &progress).with_runners(&runners);
    let tests: Vec<TestFile> = (0..tests)
        .map(|i| test(&format!("name: t{i}\nprompt: p\n{CHECKS}")))
        .collect();
    suite::run(&tests, &options);
    SEEN.load(Ordering::SeqCst)
}

#[test]
fn a_run_alone_reads_and_checks_on_every_core() {
    // One run at a time must not confine the reading of its log to a pool of one thread; the
    // two cases share the recording, so they run in one test.
    assert_eq!(threads_seen_by_a_run(1, 1), rayon::current_num_threads());
    assert_eq!(threads_seen_by_a_run(1, 4), rayon::current_num_threads());
    assert_eq!(threads_seen_by_a_run(3, 3), 3);
}

#[test]
fn a_confined_agent_runs_and_writes_its_own_log() {
    if !vouch_process::support()
        .missing(&vouch_process::Sandbox::default().network(true))
        .is_empty()
    {
        eprintln!("skipped: the kernel cannot confine here");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let config = tempfile::tempdir().unwrap();
    let t = test(&format!("name: log\nprompt: please LOGFILE\n{CHECKS}"));
    let run = ClaudeCode::new(fake("claude"))
        .env("CLAUDE_CONFIG_DIR", config.path())
        .confined(true)
        .run(&t, dir.path());
    assert_eq!(run.error, None, "{}", run.stderr);
    assert!(run.log.is_some(), "{}", run.stderr);
}
