//! `stdout:` reviews graded from the command line by the graders of a project's `vouch.yaml`:
//! an OpenAI-compatible and an Anthropic stand-in server, a fake `claude` on PATH; the cache
//! across runs, `--no-cache`, `vouch cache stats|clear`, `vouch judge calibrate`.

use std::fmt::Write as _;
use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;
use serde_json::{Value, json};
use vouch_standin::{Reply, Server, anthropic, openai};

use crate::support::{render, vouch_env, vouch_in};

/// A recorded session whose final answer says the tests pass.
const SESSION: &str = r#"{"type":"user","sessionId":"r-1","uuid":"u1","message":{"role":"user","content":"fix the total"}}
{"type":"assistant","sessionId":"r-1","uuid":"a1","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"npm test"}}]}}
{"type":"user","sessionId":"r-1","uuid":"u2","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"12 passing"}]}}
{"type":"assistant","sessionId":"r-1","uuid":"a2","message":{"id":"m2","role":"assistant","content":[{"type":"text","text":"Fixed total(): it multiplies price by quantity now. npm test passes (12 tests)."}]}}
"#;

const TEST: &str = r#"name: Fixes the total
prompt: Fix total().
session: session.jsonl
assertions:
  - tool: Bash
    params: {command: "npm test"}
  - stdout:
      review: "Says what was fixed and that the tests pass"
  - stdout:
      review: "Names the file it changed"
      threshold: 6
"#;

/// The grade a stand-in model gives: 9 when the criteria mention the tests, else 4, signed
/// with the prompt's nonce.
fn grade(prompt: &str) -> Value {
    static NONCE: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"(?m)^END-OUTPUT-([0-9a-f]+)$").unwrap());
    static CRITERIA: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"(?m)^Criteria: (.*)$").unwrap());
    let nonce = NONCE
        .captures_iter(prompt)
        .last()
        .map(|c| c[1].to_owned())
        .unwrap();
    let criteria = &CRITERIA.captures(prompt).unwrap()[1];
    let score = if criteria.contains("tests pass") {
        9
    } else {
        4
    };
    json!({"score": score, "reasoning": format!("graded on: {criteria}"), "nonce": nonce})
}

fn openai_server() -> Server {
    Server::start(|req, _| {
        assert_eq!(req.header("authorization"), Some("Bearer sk-test"));
        let prompt = req.prompt();
        Reply::json(200, &openai::chat(&grade(&prompt).to_string()))
    })
}

/// Writes a project: `vouch.yaml` with `graders`, the session, and the test.
fn project(dir: &Path, graders: &str) {
    std::fs::write(dir.join("vouch.yaml"), graders).unwrap();
    std::fs::write(dir.join("session.jsonl"), SESSION).unwrap();
    std::fs::write(dir.join("fix.vouch.yaml"), TEST).unwrap();
}

fn openai_config(server: &Server) -> String {
    format!(
        "graders:\n  local:\n    kind: openai\n    base_url: {}/v1\n    model: tiny-judge\n    api_key_env: VOUCH_TEST_KEY\n",
        server.url()
    )
}

/// Replaces the run's timings, so that snapshots are stable.
fn stable(text: &str) -> String {
    static TIME: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\d+\.\d+s").unwrap());
    TIME.replace_all(text, "T.TTs").into_owned()
}

fn key() -> [(&'static str, &'static std::ffi::OsStr); 1] {
    [("VOUCH_TEST_KEY", "sk-test".as_ref())]
}

#[test]
fn an_openai_compatible_grader_grades_once_and_the_cache_replays() {
    let server = openai_server();
    let dir = tempfile::tempdir().unwrap();
    project(dir.path(), &openai_config(&server));

    let first = vouch_env(dir.path(), &["test", "fix.vouch.yaml"], &key());
    assert_eq!(first.status.code(), Some(1), "{}", render(&first));
    assert_eq!(server.requests(), 2);
    insta::assert_snapshot!(stable(&render(&first)), @r#"
    exit: 1
    ----- stdout -----
    ✗ Fixes the total fix.vouch.yaml T.TTs
        ✓ Bash called with command exactly "npm test"
        ✓ stdout review: "Says what was fixed and that the tests pass" (score 9/10, threshold 7; by local (tiny-judge))
            graded on: Says what was fixed and that the tests pass
        ✗ stdout review: "Names the file it changed" (score 4/10, threshold 6; by local (tiny-judge))
            graded on: Names the file it changed

    failed: 0 passed, 1 failed (1 test in T.TTs)
    graded 2 reviews: 2 gradings asked (20 tokens in, 20 out)
    ----- stderr -----
    "#);
    assert!(dir.path().join(".vouch/cache.db").is_file());

    let second = vouch_env(dir.path(), &["test", "fix.vouch.yaml"], &key());
    assert_eq!(server.requests(), 2, "a warm cache makes no request");
    let text = render(&second);
    assert_eq!(
        text.matches("; replayed from the cache)").count(),
        2,
        "{text}"
    );
    assert!(
        text.contains("graded 2 reviews: 2 gradings replayed from the cache\n"),
        "{text}"
    );
    assert_eq!(second.status.code(), Some(1));

    let fresh = vouch_env(
        dir.path(),
        &["test", "fix.vouch.yaml", "--no-cache"],
        &key(),
    );
    assert_eq!(server.requests(), 4, "--no-cache grades again");
    assert!(!render(&fresh).contains("replayed"));

    let stats = vouch_in(dir.path(), &["cache", "stats", "--format", "json"]);
    let stats: Value = serde_json::from_slice(&stats.stdout).unwrap();
    assert_eq!(stats["entries"], 2, "{stats}");

    static STAMP: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ").unwrap());
    let human = vouch_in(dir.path(), &["cache", "stats"]);
    let cleared = vouch_in(dir.path(), &["cache", "clear"]);
    assert_eq!(cleared.status.code(), Some(0), "{}", render(&cleared));
    static SIZE: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\(\d+ KiB\)").unwrap());
    let both = format!("{}{}", render(&human), render(&cleared));
    let both = SIZE.replace_all(&both, "(N KiB)");
    insta::assert_snapshot!(
        STAMP
            .replace_all(&both, "<time>")
            .replace(&*dir.path().to_string_lossy(), "<dir>"),
        @r"
        exit: 0
        ----- stdout -----
        <dir>/.vouch/cache.db: 2 gradings (N KiB)
        graded from <time> to <time>
          local            tiny-judge                        2
        ----- stderr -----
        exit: 0
        ----- stdout -----
        cleared 2 gradings from <dir>/.vouch/cache.db
        ----- stderr -----
        "
    );
    let third = vouch_env(dir.path(), &["test", "fix.vouch.yaml"], &key());
    assert_eq!(server.requests(), 6, "a cleared cache grades again");
    assert!(!render(&third).contains("replayed"));
}

#[test]
fn json_results_carry_the_grading() {
    let server = openai_server();
    let dir = tempfile::tempdir().unwrap();
    project(dir.path(), &openai_config(&server));
    let out = vouch_env(
        dir.path(),
        &["test", "fix.vouch.yaml", "--format", "json"],
        &key(),
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let text = report.to_string();
    let row = report
        .pointer("/0/runs/0/rows/1")
        .unwrap_or_else(|| panic!("{text}"));
    assert_eq!(row["score"], 9.0, "{row}");
    assert_eq!(row["grading"]["grader"], "local", "{row}");
    assert_eq!(row["grading"]["model"], "tiny-judge", "{row}");
    assert_eq!(row["grading"]["threshold"], 7, "{row}");

    let junit = dir.path().join("report.xml");
    let _ = vouch_env(
        dir.path(),
        &["test", "fix.vouch.yaml", "--junit", junit.to_str().unwrap()],
        &key(),
    );
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(
        xml.contains("✗ stdout review: &quot;Names the file it changed&quot; (score 4/10, threshold 6; by local (tiny-judge); replayed from the cache)"),
        "{xml}"
    );
}

#[test]
fn an_anthropic_grader_answers_with_a_forced_tool_call() {
    let server = Server::start(|req, _| {
        assert_eq!(req.header("x-api-key"), Some("sk-test"));
        let body = req.json();
        assert_eq!(body["tool_choice"]["type"], "tool", "{body}");
        let prompt = req.prompt();
        Reply::json(200, &anthropic::tool_use("grade", &grade(&prompt)))
    });
    let dir = tempfile::tempdir().unwrap();
    let config = format!(
        "graders:\n  sonnet:\n    kind: anthropic\n    base_url: {}\n    model: claude-test\n    api_key_env: VOUCH_TEST_KEY\n",
        server.url()
    );
    project(dir.path(), &config);
    let out = vouch_env(dir.path(), &["test", "fix.vouch.yaml"], &key());
    let text = render(&out);
    assert_eq!(server.requests(), 2, "{text}");
    assert!(
        text.contains("(score 9/10, threshold 7; by sonnet (claude-test))"),
        "{text}"
    );
    assert!(text.contains("(score 4/10, threshold 6; by sonnet (claude-test))"));
}

#[test]
fn a_grader_that_keeps_failing_fails_the_row_and_says_why() {
    let server = Server::start(|_, _| {
        Reply::json(
            500,
            &openai::error("the model is overloaded", "server_error"),
        )
    });
    let dir = tempfile::tempdir().unwrap();
    let config = format!(
        "graders:\n  local:\n    kind: openai\n    base_url: {}/v1\n    model: tiny-judge\n    api_key_env: VOUCH_TEST_KEY\n    retries: 1\n",
        server.url()
    );
    project(dir.path(), &config);
    let out = vouch_env(dir.path(), &["test", "fix.vouch.yaml"], &key());
    let text = render(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert_eq!(server.requests(), 4, "one retry for each of two reviews");
    assert_eq!(text.matches("500").count(), 2, "{text}");
    assert!(
        !text.contains('✓') || text.matches('✓').count() == 1,
        "{text}"
    );
    assert!(
        !dir.path().join(".vouch/cache.db").exists() || {
            let stats = vouch_in(dir.path(), &["cache", "stats", "--format", "json"]);
            serde_json::from_slice::<Value>(&stats.stdout).unwrap()["entries"] == 0
        }
    );
}

#[test]
fn a_missing_api_key_fails_the_row_and_names_the_variable() {
    let dir = tempfile::tempdir().unwrap();
    project(
        dir.path(),
        "graders:\n  gpt:\n    kind: openai\n    model: gpt-5-mini\n    api_key_env: VOUCH_TEST_NO_SUCH_KEY\n",
    );
    let out = vouch_in(dir.path(), &["test", "fix.vouch.yaml"]);
    let text = render(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert_eq!(
        text.matches("grader `gpt`: the environment variable VOUCH_TEST_NO_SUCH_KEY is not set")
            .count(),
        2,
        "{text}"
    );
}

/// The fake graders of vouch-llm's tests.
fn fake_graders() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../vouch-llm/tests/fake-graders")
}

#[test]
fn claude_on_path_grades_a_review_that_names_it() {
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    project(dir.path(), "{}\n");
    let test = TEST.replace(
        "      threshold: 6\n",
        "      threshold: 6\n      agent: claude\n",
    );
    std::fs::write(dir.path().join("fix.vouch.yaml"), test).unwrap();
    let prompt_file = home.path().join("prompt.txt");
    let path = std::env::join_paths([fake_graders(), "/usr/bin".into(), "/bin".into()]).unwrap();
    let out = vouch_env(
        dir.path(),
        &["test", "fix.vouch.yaml"],
        &[
            ("PATH", path.as_os_str()),
            ("HOME", home.path().as_os_str()),
            ("CLAUDE_CONFIG_DIR", home.path().join(".claude").as_os_str()),
            ("FAKE_PROMPT_FILE", prompt_file.as_os_str()),
            (
                "FAKE_REPLY",
                r#"{"score": 7, "reasoning": "It names src/total.js.", "nonce": "{{nonce}}"}"#
                    .as_ref(),
            ),
        ],
    );
    let text = render(&out);
    // Both reviews went to claude: the first by default (no graders configured), the second by
    // name; both pass (7 ≥ 7, 7 ≥ 6).
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert_eq!(text.matches("by claude").count(), 2, "{text}");
    let prompt = std::fs::read_to_string(&prompt_file).unwrap();
    assert!(prompt.contains("npm test passes (12 tests)"), "{prompt}");
    // The grader's own session was cleaned up: nothing a later test could take for its own.
    let projects = home.path().join(".claude/projects");
    let left: Vec<_> = std::fs::read_dir(&projects)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    assert!(left.is_empty(), "{left:?}");
}

const CASES: &str = r#"grader: local
threshold: 7
cases:
  - name: says the tests pass
    criteria: Says the tests pass
    output: "Fixed it; npm test passes."
    expect: pass
  - name: names the file
    criteria: Names the file it changed
    output: "Changed src/total.js."
    expect: pass
  - name: no tests run
    criteria: Says the tests pass
    output: "Fixed it, did not run anything."
    expect: fail
"#;

#[test]
fn calibrate_prints_agreement_and_the_confusion_matrix() {
    let server = openai_server();
    let dir = tempfile::tempdir().unwrap();
    project(dir.path(), &openai_config(&server));
    std::fs::write(dir.path().join("cases.yaml"), CASES).unwrap();
    let out = vouch_env(dir.path(), &["judge", "calibrate", "cases.yaml"], &key());
    assert_eq!(server.requests(), 3);
    insta::assert_snapshot!(render(&out));
    let strict = vouch_env(
        dir.path(),
        &["judge", "calibrate", "cases.yaml", "--min-agreement", "0.9"],
        &key(),
    );
    assert_eq!(server.requests(), 3, "calibration reads the cache too");
    assert_eq!(strict.status.code(), Some(1), "{}", render(&strict));
}

#[test]
fn cache_stats_and_clear_on_a_project_without_one() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("vouch.yaml"), "{}\n").unwrap();
    let stats = vouch_in(dir.path(), &["cache", "stats"]);
    let clear = vouch_in(dir.path(), &["cache", "clear"]);
    insta::assert_snapshot!(
        format!("{}\n{}", render(&stats), render(&clear))
            .replace(&*dir.path().to_string_lossy(), "<dir>")
    );
    assert!(
        !dir.path().join(".vouch").exists(),
        "stats and clear make no cache"
    );
}

#[test]
fn a_review_naming_an_unknown_grader_stops_before_anything_runs() {
    let dir = tempfile::tempdir().unwrap();
    project(dir.path(), "{}\n");
    let test = TEST.replace(
        "      threshold: 6\n",
        "      threshold: 6\n      agent: gtp\n",
    );
    std::fs::write(dir.path().join("fix.vouch.yaml"), test).unwrap();
    let out = vouch_in(dir.path(), &["test", "fix.vouch.yaml"]);
    insta::assert_snapshot!(render(&out), @r"
    exit: 2
    ----- stdout -----
    ----- stderr -----
    error: fix.vouch.yaml:9:5: no grader named `gtp` (graders: claude, codex; vouch.yaml `graders:` adds more)
    ");
    std::fs::write(dir.path().join("cases.yaml"), CASES).unwrap();
    let out = vouch_in(dir.path(), &["judge", "calibrate", "cases.yaml"]);
    insta::assert_snapshot!(render(&out), @r"
    exit: 2
    ----- stdout -----
    ----- stderr -----
    error: no grader named `local` (graders: claude, codex; vouch.yaml `graders:` adds more)
    ");
}

#[test]
fn graders_of_one_server_share_its_smallest_limit() {
    let server = Server::start(|req, _| {
        let prompt = req.prompt();
        Reply::json(200, &openai::chat(&grade(&prompt).to_string()))
            .after(std::time::Duration::from_millis(150))
            .once_in_flight(2)
    });
    let dir = tempfile::tempdir().unwrap();
    let config = format!(
        "graders:\n  large:\n    kind: openai\n    base_url: {url}/v1\n    model: b\n    api_key_env: VOUCH_TEST_KEY\n  small:\n    kind: openai\n    base_url: {url}/v1\n    model: a\n    api_key_env: VOUCH_TEST_KEY\n    concurrency: 2\ndefault_grader: large\n",
        url = server.url()
    );
    project(dir.path(), &config);
    let mut test = String::from("name: Six reviews\nsession: session.jsonl\nassertions:\n");
    for i in 0..6 {
        let agent = if i % 2 == 0 { "small" } else { "large" };
        let _ = writeln!(
            test,
            "  - stdout:\n      review: \"Says the tests pass ({i})\"\n      agent: {agent}"
        );
    }
    std::fs::write(dir.path().join("fix.vouch.yaml"), test).unwrap();
    let out = vouch_env(dir.path(), &["test", "fix.vouch.yaml"], &key());
    assert_eq!(out.status.code(), Some(0), "{}", render(&out));
    assert_eq!(server.requests(), 6);
    assert_eq!(server.most_in_flight(), 2);
}

#[test]
fn a_broken_cache_is_warned_of_and_graded_without() {
    let server = openai_server();
    let dir = tempfile::tempdir().unwrap();
    project(dir.path(), &openai_config(&server));
    std::fs::create_dir(dir.path().join(".vouch")).unwrap();
    std::fs::write(dir.path().join(".vouch/cache.db"), "not a database\n").unwrap();
    let out = vouch_env(dir.path(), &["test", "fix.vouch.yaml"], &key());
    assert_eq!(server.requests(), 2);
    let stderr =
        String::from_utf8_lossy(&out.stderr).replace(&*dir.path().to_string_lossy(), "<dir>");
    insta::assert_snapshot!(stderr, @"warning: the grading cache <dir>/.vouch/cache.db: file is not a database; graded without a cache");
    assert_eq!(
        out.status.code(),
        Some(1),
        "the verdicts stand: {}",
        render(&out)
    );
    let stats = vouch_in(dir.path(), &["cache", "stats"]);
    assert_eq!(stats.status.code(), Some(2), "{}", render(&stats));
    let clear = vouch_in(dir.path(), &["cache", "clear"]);
    insta::assert_snapshot!(render(&clear).replace(&*dir.path().to_string_lossy(), "<dir>"), @r"
    exit: 0
    ----- stdout -----
    removed <dir>/.vouch/cache.db: it was not a usable cache (file is not a database)
    ----- stderr -----
    ");
    assert!(!dir.path().join(".vouch/cache.db").exists());
    let _ = vouch_env(dir.path(), &["test", "fix.vouch.yaml"], &key());
    let again = vouch_env(dir.path(), &["test", "fix.vouch.yaml"], &key());
    assert_eq!(server.requests(), 4, "a new cache was made and replayed");
    assert!(
        String::from_utf8_lossy(&again.stderr).is_empty(),
        "{}",
        render(&again)
    );
}

#[test]
fn calibration_cases_that_do_not_load_say_where() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("vouch.yaml"), "{}\n").unwrap();
    std::fs::write(
        dir.path().join("cases.yaml"),
        "cases:\n  - criteria: x\n    output: y\n    expect: maybe\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("none.yaml"), "cases: []\n").unwrap();
    let bad = vouch_in(dir.path(), &["judge", "calibrate", "cases.yaml"]);
    let none = vouch_in(dir.path(), &["judge", "calibrate", "none.yaml"]);
    insta::assert_snapshot!(format!("{}{}", render(&bad), render(&none)), @r"
    exit: 2
    ----- stdout -----
    ----- stderr -----
    error: cases.yaml:4:13: unknown variant `maybe`, expected one of pass, fail
    exit: 2
    ----- stdout -----
    ----- stderr -----
    error: none.yaml: no cases
    ");
}

#[test]
fn four_processes_share_a_new_cache() {
    let server = openai_server();
    let dir = tempfile::tempdir().unwrap();
    project(dir.path(), &openai_config(&server));
    let children: Vec<_> = (0..4)
        .map(|_| {
            std::process::Command::new(assert_cmd::cargo::cargo_bin("vouch"))
                .current_dir(dir.path())
                .args(["test", "fix.vouch.yaml"])
                .env("VOUCH_TEST_KEY", "sk-test")
                .env("NO_COLOR", "1")
                .env_remove("VOUCH_LOG")
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{}", render(&out));
        assert!(out.stderr.is_empty(), "{}", render(&out));
    }
    let asked = server.requests();
    assert!((2..=8).contains(&asked), "{asked}");
    let again = vouch_env(dir.path(), &["test", "fix.vouch.yaml"], &key());
    assert_eq!(server.requests(), asked, "{}", render(&again));
}
