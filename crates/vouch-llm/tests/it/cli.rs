//! Agent CLIs as graders, run as stand-in executables that refuse any argument they do not
//! know — a prompt passed as an argument is refused.

use std::path::PathBuf;
use std::time::Duration;

use vouch_llm::{AgentCli, CliKind, Limits, ModelClient, Request};
use vouch_session::locations::claude_project_slug;

fn fake(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fake-graders")
        .join(name)
}

fn grader(kind: CliKind, config: &std::path::Path) -> AgentCli {
    AgentCli::new(
        kind,
        Some(fake(kind.program())),
        Some("sonnet".into()),
        Duration::from_secs(10),
        Limits::default().of(kind.program(), 4),
    )
    .env("CLAUDE_CONFIG_DIR", config.join("claude"))
    .env("CODEX_HOME", config.join("codex"))
}

#[tokio::test]
async fn claude_reads_the_prompt_on_standard_input_and_leaves_no_session() {
    let config = tempfile::tempdir().unwrap();
    let prompt_file = config.path().join("prompt.txt");
    let mut request =
        Request::new("Grade THIS output; it is long and has 'quotes' and $(subshells).");
    request.system = Some("You grade.".into());
    let client = grader(CliKind::Claude, config.path()).env("FAKE_PROMPT_FILE", &prompt_file);
    let reply = client.complete(&request).await.unwrap();
    assert_eq!(reply.text, r#"{"score": 8, "reasoning": "fine"}"#);
    assert_eq!(reply.model, "sonnet");
    let seen = std::fs::read_to_string(&prompt_file).unwrap();
    assert_eq!(
        seen,
        "You grade.\n\nGrade THIS output; it is long and has 'quotes' and $(subshells)."
    );
    let projects = config.path().join("claude/projects");
    let left: Vec<_> = std::fs::read_dir(&projects)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    assert!(left.is_empty(), "sessions left behind: {left:?}");
    assert!(
        claude_project_slug(std::path::Path::new("/tmp/vouch-grade-x"))
            .starts_with("-tmp-vouch-grade-x")
    );
}

#[tokio::test]
async fn codex_answers_through_its_events_and_its_rollout_is_removed() {
    let config = tempfile::tempdir().unwrap();
    let reply = grader(CliKind::Codex, config.path())
        .complete(&Request::new("Grade it."))
        .await
        .unwrap();
    assert_eq!(reply.text, r#"{"score": 6, "reasoning": "partly"}"#);
    let rollout = config
        .path()
        .join("codex/sessions/2026/11/21/rollout-2026-11-21T00-00-00-th-grade-1.jsonl");
    assert!(!rollout.exists(), "the grading's rollout was left behind");
}

#[tokio::test]
async fn a_missing_grader_and_a_failing_one_are_errors() {
    let config = tempfile::tempdir().unwrap();
    let missing = AgentCli::new(
        CliKind::Claude,
        None,
        None,
        Duration::from_secs(5),
        Limits::default().of("claude", 1),
    )
    .env("PATH", config.path());
    let e = missing.complete(&Request::new("x")).await.unwrap_err();
    assert_eq!(
        e.to_string(),
        "grader `claude` was not found on PATH (install it, or configure another grader in vouch.yaml: docs/llm-review.md)"
    );
    let failing =
        grader(CliKind::Claude, config.path()).env("FAKE_FAIL", "Credit balance is too low");
    let e = failing.complete(&Request::new("x")).await.unwrap_err();
    assert_eq!(
        e.to_string(),
        "claude exited with code 1: claude reported an error: Credit balance is too low"
    );
}
