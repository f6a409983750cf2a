//! A judge whose default grader talks to a stand-in server.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use vouch_judge::Judge;
use vouch_llm::{
    Anthropic, Limits, ModelClient, OpenAiCompatible, RetryPolicy, Structured, Transport,
};
use vouch_standin::{Request, Server};

/// Returns the nonce of a grading request (the 32 hex digits after `BEGIN-OUTPUT-`).
pub(crate) fn nonce_of(request: &Request) -> String {
    request
        .prompt()
        .split("BEGIN-OUTPUT-")
        .nth(1)
        .map(|rest| rest.chars().take(32).collect())
        .unwrap_or_default()
}

/// Returns the graded output as the request fenced it.
pub(crate) fn output_of(request: &Request) -> String {
    let prompt = request.prompt();
    let n = nonce_of(request);
    prompt
        .split(&format!("BEGIN-OUTPUT-{n}\n"))
        .nth(1)
        .and_then(|rest| rest.split(&format!("\nEND-OUTPUT-{n}")).next())
        .unwrap_or_default()
        .to_owned()
}

/// A grade reply signed with the request's nonce.
pub(crate) fn signed(request: &Request, score: &str, reasoning: &str) -> String {
    format!(
        r#"{{"score": {score}, "reasoning": "{reasoning}", "nonce": "{}"}}"#,
        nonce_of(request)
    )
}

fn transport(limits: &Limits) -> Transport {
    let retry = RetryPolicy {
        max_retries: 2,
        base: Duration::from_millis(10),
        max_delay: Duration::from_secs(2),
    };
    Transport::new(
        "openai",
        Duration::from_secs(10),
        retry,
        limits.of("openai", vouch_llm::DEFAULT_CONCURRENCY),
    )
    .unwrap()
}

/// A judge whose only grader, `default`, is an OpenAI-compatible client of `server`.
pub(crate) fn openai_judge(server: &Server) -> Judge {
    let limits = Limits::default();
    let client: Arc<dyn ModelClient> = Arc::new(OpenAiCompatible::new(
        &server.url(),
        None,
        Some("gpt-test".into()),
        Structured::Off,
        transport(&limits),
    ));
    Judge::new(BTreeMap::from([("default".to_owned(), client)]), "default")
}

/// A judge whose only grader, `default`, is an Anthropic client of `server`.
pub(crate) fn anthropic_judge(server: &Server) -> Judge {
    let limits = Limits::default();
    let client: Arc<dyn ModelClient> = Arc::new(Anthropic::new(
        &server.url(),
        Some("k".into()),
        Some("claude-test".into()),
        transport(&limits),
    ));
    Judge::new(BTreeMap::from([("default".to_owned(), client)]), "default")
}
