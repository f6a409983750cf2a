//! OpenAI-compatible and Anthropic clients: wire formats, structured output, retries, timeouts,
//! limits.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::json;
use vouch_llm::{
    Anthropic, Error, Limits, ModelClient, OpenAiCompatible, Request, RetryPolicy, Schema,
    Structured, Transport, Usage,
};
use vouch_standin::{Reply, Server, anthropic, openai};

fn transport(
    name: &str,
    timeout: Duration,
    retries: u32,
    limits: &Limits,
    permits: usize,
) -> Transport {
    let retry = RetryPolicy {
        max_retries: retries,
        base: Duration::from_millis(20),
        max_delay: Duration::from_secs(5),
    };
    Transport::new(name, timeout, retry, limits.of(name, permits)).unwrap()
}

fn openai_client(server: &Server, structured: Structured, timeout: Duration) -> OpenAiCompatible {
    let limits = Limits::default();
    OpenAiCompatible::new(
        &format!("{}/v1", server.url()),
        Some("sk-test".into()),
        Some("gpt-test".into()),
        structured,
        transport("openai", timeout, 3, &limits, 8),
    )
}

fn grade_request() -> Request {
    let mut r = Request::new("Grade this.");
    r.system = Some("You grade.".into());
    r.schema = Some(Schema {
        name: "grade".into(),
        description: "The grade".into(),
        schema: json!({"type": "object", "properties": {"score": {"type": "number"}}, "required": ["score"]}),
    });
    r
}

#[tokio::test]
async fn openai_chat_completions_with_a_json_schema() {
    let server = Server::start(|_, _| Reply::json(200, &openai::chat(r#"{"score": 9}"#)));
    let reply = openai_client(&server, Structured::Auto, Duration::from_secs(5))
        .complete(&grade_request())
        .await
        .unwrap();
    assert_eq!(reply.text, r#"{"score": 9}"#);
    assert_eq!(reply.model, "standin-model");
    assert!(reply.structured);
    assert_eq!(
        reply.usage,
        Some(Usage {
            input: 10,
            output: 10
        })
    );
    let seen = server.seen();
    assert_eq!(seen[0].path, "/v1/chat/completions");
    assert_eq!(seen[0].header("authorization"), Some("Bearer sk-test"));
    let body = seen[0].json();
    assert_eq!(body["model"], "gpt-test");
    assert_eq!(body["messages"][0]["role"], "system");
    assert_eq!(body["messages"][1]["content"], "Grade this.");
    assert_eq!(body["response_format"]["type"], "json_schema");
    assert_eq!(body["response_format"]["json_schema"]["name"], "grade");
}

#[tokio::test]
async fn a_server_without_json_schema_is_asked_in_plain_words_and_it_is_remembered() {
    let server = Server::start(|request, _| {
        if request.json().get("response_format").is_some() {
            Reply::json(
                400,
                &openai::error(
                    "response_format json_schema is not supported",
                    "invalid_request_error",
                ),
            )
        } else {
            Reply::json(200, &openai::chat(r#"{"score": 4}"#))
        }
    });
    let client = openai_client(&server, Structured::Auto, Duration::from_secs(5));
    let reply = client.complete(&grade_request()).await.unwrap();
    assert_eq!(reply.text, r#"{"score": 4}"#);
    assert!(!reply.structured);
    assert_eq!(server.requests(), 2);
    client.complete(&grade_request()).await.unwrap();
    assert_eq!(server.requests(), 3, "the refusal was not remembered");
}

#[tokio::test]
async fn a_429_is_retried_after_the_servers_retry_after() {
    let server = Server::start(|_, n| {
        if n == 0 {
            Reply::json(429, &openai::error("Rate limit reached", "rate_limit"))
                .with_header("retry-after", "1")
        } else {
            Reply::json(200, &openai::chat(r#"{"score": 7}"#))
        }
    });
    let started = Instant::now();
    let reply = openai_client(&server, Structured::Off, Duration::from_secs(5))
        .complete(&grade_request())
        .await
        .unwrap();
    assert_eq!(reply.text, r#"{"score": 7}"#);
    assert_eq!(server.requests(), 2);
    // The backoff alone is 10–20 ms: waiting a second is the server's Retry-After.
    assert!(
        started.elapsed() >= Duration::from_millis(950),
        "{:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn a_500_then_success() {
    let server = Server::start(|_, n| {
        if n == 0 {
            Reply::text(500, "upstream exploded")
        } else {
            Reply::json(200, &openai::chat("{\"score\": 5}"))
        }
    });
    let reply = openai_client(&server, Structured::Off, Duration::from_secs(5))
        .complete(&grade_request())
        .await
        .unwrap();
    assert_eq!(reply.text, "{\"score\": 5}");
    assert_eq!(server.requests(), 2);
}

#[tokio::test]
async fn errors_that_will_not_pass_are_not_retried_and_say_why() {
    let server = Server::start(|_, _| {
        Reply::json(
            401,
            &openai::error("Incorrect API key provided", "invalid_request_error"),
        )
    });
    let e = openai_client(&server, Structured::Off, Duration::from_secs(5))
        .complete(&grade_request())
        .await
        .unwrap_err();
    assert_eq!(server.requests(), 1);
    assert_eq!(
        e.to_string(),
        "openai answered 401: Incorrect API key provided"
    );
}

#[tokio::test]
async fn a_server_that_never_answers_times_out_after_the_retries() {
    let server =
        Server::start(|_, _| Reply::json(200, &openai::chat("late")).after(Duration::from_secs(3)));
    let limits = Limits::default();
    let client = OpenAiCompatible::new(
        &server.url(),
        None,
        Some("m".into()),
        Structured::Off,
        transport("openai", Duration::from_millis(200), 1, &limits, 8),
    );
    // A client that waited for the late answer would have read it; a timeout means it gave up.
    let e = client.complete(&Request::new("x")).await.unwrap_err();
    assert!(matches!(e, Error::Timeout { .. }), "{e}");
    assert_eq!(e.to_string(), "openai did not answer within 0.2s");
    assert_eq!(server.requests(), 2);
}

#[tokio::test]
async fn a_server_that_is_not_there_is_a_connection_error() {
    let limits = Limits::default();
    let client = OpenAiCompatible::new(
        "http://127.0.0.1:9",
        None,
        Some("m".into()),
        Structured::Off,
        transport("ollama", Duration::from_secs(1), 0, &limits, 8),
    );
    let e = client.complete(&Request::new("x")).await.unwrap_err();
    assert!(e.to_string().starts_with("cannot reach ollama:"), "{e}");
}

#[tokio::test]
async fn anthropic_messages_with_a_forced_tool_call() {
    let server = Server::start(|_, _| {
        Reply::json(
            200,
            &anthropic::tool_use("grade", &json!({"score": 8, "reasoning": "ok"})),
        )
    });
    let limits = Limits::default();
    let client = Anthropic::new(
        &server.url(),
        Some("sk-ant".into()),
        Some("claude-test".into()),
        transport("anthropic", Duration::from_secs(5), 3, &limits, 8),
    );
    let reply = client.complete(&grade_request()).await.unwrap();
    let parsed: serde_json::Value = serde_json::from_str(&reply.text).unwrap();
    assert_eq!(parsed, json!({"score": 8, "reasoning": "ok"}));
    assert!(reply.structured);
    assert_eq!(reply.model, "standin-claude");
    assert_eq!(
        reply.usage,
        Some(Usage {
            input: 10,
            output: 10
        })
    );
    let seen = &server.seen()[0];
    assert_eq!(seen.path, "/v1/messages");
    assert_eq!(seen.header("x-api-key"), Some("sk-ant"));
    assert_eq!(seen.header("anthropic-version"), Some("2023-06-01"));
    let body = seen.json();
    assert_eq!(body["system"], "You grade.");
    assert_eq!(
        body["tool_choice"],
        json!({"type": "tool", "name": "grade"})
    );
    assert_eq!(
        body["tools"][0]["input_schema"]["required"],
        json!(["score"])
    );
}

#[tokio::test]
async fn anthropic_overloaded_is_retried_and_text_replies_are_read() {
    let server = Server::start(|_, n| {
        if n == 0 {
            Reply::json(529, &anthropic::error("overloaded_error", "Overloaded"))
        } else {
            Reply::json(200, &anthropic::text("{\"score\": 3}"))
        }
    });
    let limits = Limits::default();
    let client = Anthropic::new(
        &server.url(),
        None,
        Some("m".into()),
        transport("anthropic", Duration::from_secs(5), 3, &limits, 8),
    );
    let reply = client.complete(&grade_request()).await.unwrap();
    assert_eq!(reply.text, "{\"score\": 3}");
    assert!(!reply.structured);
}

#[tokio::test]
async fn a_provider_limit_bounds_simultaneous_requests() {
    let server = Server::start(|_, _| {
        Reply::json(200, &openai::chat("{}"))
            .after(Duration::from_millis(100))
            .once_in_flight(3)
    });
    let limits = Limits::default();
    let client = Arc::new(OpenAiCompatible::new(
        &server.url(),
        None,
        Some("m".into()),
        Structured::Off,
        transport("openai", Duration::from_secs(5), 0, &limits, 3),
    ));
    let done = Arc::new(AtomicUsize::new(0));
    let mut tasks = Vec::new();
    for _ in 0..12 {
        let client = Arc::clone(&client);
        let done = Arc::clone(&done);
        tasks.push(tokio::spawn(async move {
            client.complete(&Request::new("x")).await.unwrap();
            done.fetch_add(1, Ordering::SeqCst);
        }));
    }
    for t in tasks {
        t.await.unwrap();
    }
    assert_eq!(done.load(Ordering::SeqCst), 12);
    assert_eq!(server.most_in_flight(), 3);
}

#[tokio::test]
async fn a_model_is_needed() {
    let server = Server::start(|_, _| Reply::json(200, &openai::chat("{}")));
    let limits = Limits::default();
    let client = OpenAiCompatible::new(
        &server.url(),
        None,
        None,
        Structured::Off,
        transport("openai", Duration::from_secs(5), 0, &limits, 8),
    );
    let e = client.complete(&Request::new("x")).await.unwrap_err();
    assert!(e.to_string().contains("give the grader a `model`"), "{e}");
    assert_eq!(server.requests(), 0);
}
