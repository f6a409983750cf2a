//! Whatever the grader replies, the review says something true: fenced or bare JSON, decimal
//! or out-of-range scores, prose, errors, samples that disagree.

use serde_json::json;
use vouch_judge::{Outcome, ReviewSpec};
use vouch_standin::{Reply, Server, anthropic, openai};

use crate::support::{anthropic_judge, nonce_of, openai_judge, signed};

fn spec() -> ReviewSpec {
    ReviewSpec::new("Says the tests pass")
}

#[tokio::test]
async fn fenced_json_and_a_decimal_score() {
    let server = Server::start(|r, _| {
        Reply::json(
            200,
            &openai::chat(&format!(
                "Here is my grade:\n```json\n{}\n```",
                signed(r, "7.5", "close enough")
            )),
        )
    });
    let graded = openai_judge(&server)
        .review(&spec(), Some("All 12 tests pass."))
        .await;
    assert_eq!(graded.outcome, Outcome::Passed);
    assert_eq!(graded.score, Some(7.5));
    assert_eq!(graded.reasoning, "close enough");
    assert_eq!(graded.model, "gpt-test");
}

#[tokio::test]
async fn a_score_of_14_is_clamped_to_10() {
    let server =
        Server::start(|r, _| Reply::json(200, &openai::chat(&signed(r, "14", "excellent"))));
    let graded = openai_judge(&server).review(&spec(), Some("ok")).await;
    assert_eq!(graded.score, Some(10.0));
    assert_eq!(graded.outcome, Outcome::Passed);
}

#[tokio::test]
async fn a_grade_without_the_nonce_is_read() {
    // Servers and models that leave the nonce out (no structured output, a small model) are
    // still graders: their JSON is the grade unless it repeats the graded output.
    let server = Server::start(|_, _| {
        Reply::json(
            200,
            &openai::chat("```json\n{\"score\": 6.5, \"reasoning\": \"vague\"}\n```"),
        )
    });
    let graded = openai_judge(&server)
        .review(&spec(), Some("Fixed it."))
        .await;
    assert_eq!(graded.outcome, Outcome::Failed);
    assert_eq!(graded.score, Some(6.5));
    assert_eq!(graded.reasoning, "vague");
}

#[tokio::test]
async fn prose_without_json_fails_the_row_quoting_the_reply() {
    let server = Server::start(|_, _| {
        Reply::json(200, &openai::chat("Looks great to me, I'd give it a 9!"))
    });
    let graded = openai_judge(&server).review(&spec(), Some("ok")).await;
    assert_eq!(graded.outcome, Outcome::Error);
    assert_eq!(graded.score, None);
    insta::assert_snapshot!(graded.reasoning, @"the grader's reply cannot be read: it holds no JSON object with a score: \"Looks great to me, I'd give it a 9!\"");
}

#[tokio::test]
async fn a_failing_grader_fails_the_row() {
    let server = Server::start(|_, _| {
        Reply::json(
            401,
            &openai::error("Incorrect API key provided", "invalid_request_error"),
        )
    });
    let graded = openai_judge(&server).review(&spec(), Some("ok")).await;
    assert_eq!(graded.outcome, Outcome::Error);
    insta::assert_snapshot!(graded.reasoning, @"grading failed: openai answered 401: Incorrect API key provided");
}

#[tokio::test]
async fn a_low_score_fails_with_the_graders_reasoning() {
    let server = Server::start(|r, _| {
        Reply::json(
            200,
            &openai::chat(&signed(r, "3", "It never mentions the tests.")),
        )
    });
    let graded = openai_judge(&server)
        .review(&spec(), Some("I refactored the parser."))
        .await;
    assert_eq!(graded.outcome, Outcome::Failed);
    assert_eq!(graded.score, Some(3.0));
    assert_eq!(graded.reasoning, "It never mentions the tests.");
}

#[tokio::test]
async fn nothing_to_grade_is_skipped_without_asking() {
    let server = Server::start(|r, _| Reply::json(200, &openai::chat(&signed(r, "9", "x"))));
    let judge = openai_judge(&server);
    for output in [None, Some(""), Some("  \n")] {
        let graded = judge.review(&spec(), output).await;
        assert_eq!(graded.outcome, Outcome::Skipped);
        assert_eq!(
            graded.reasoning,
            "no final answer to grade: the session ends without one"
        );
    }
    assert_eq!(server.requests(), 0);
}

#[tokio::test]
async fn an_unknown_grader_is_an_error() {
    let server = Server::start(|r, _| Reply::json(200, &openai::chat(&signed(r, "9", "x"))));
    let mut s = spec();
    s.grader = Some("gpt-judge".into());
    let graded = openai_judge(&server).review(&s, Some("ok")).await;
    assert_eq!(graded.outcome, Outcome::Error);
    assert_eq!(
        graded.reasoning,
        "no grader named `gpt-judge` is configured (graders: default)"
    );
}

#[tokio::test]
async fn samples_give_the_median_the_spread_and_a_borderline_mark() {
    // Three samples: 6, 9, 8 in whatever order they are asked.
    let server = Server::start(|r, n| {
        let score = ["6", "9", "8"][n % 3];
        Reply::json(
            200,
            &openai::chat(&signed(r, score, &format!("sample scored {score}"))),
        )
    });
    let mut s = spec();
    s.samples = 3;
    let graded = openai_judge(&server).review(&s, Some("ok")).await;
    assert_eq!(server.requests(), 3);
    assert_eq!(graded.score, Some(8.0));
    assert!((graded.spread - 3.0).abs() < f64::EPSILON);
    assert!(graded.borderline);
    assert_eq!(graded.outcome, Outcome::Passed);
    assert_eq!(graded.reasoning, "sample scored 8");
    let indices: Vec<u32> = graded.samples.iter().map(|s| s.index).collect();
    assert_eq!(indices, [0, 1, 2]);
}

#[tokio::test]
async fn anthropic_forced_tool_calls_are_graded() {
    let server = Server::start(|r, _| {
        let nonce = {
            let body = r.json();
            let prompt = body["messages"][0]["content"]
                .as_str()
                .unwrap_or_default()
                .to_owned();
            prompt
                .split("BEGIN-OUTPUT-")
                .nth(1)
                .map(|s| s.chars().take(32).collect::<String>())
                .unwrap_or_default()
        };
        Reply::json(
            200,
            &anthropic::tool_use(
                "grade",
                &json!({"score": 9, "reasoning": "says so", "nonce": nonce}),
            ),
        )
    });
    let graded = anthropic_judge(&server)
        .review(&spec(), Some("All tests pass."))
        .await;
    assert_eq!(graded.outcome, Outcome::Passed, "{}", graded.reasoning);
    assert_eq!(graded.score, Some(9.0));
    let body = server.seen()[0].json();
    assert_eq!(body["tool_choice"]["name"], "grade");
    assert_eq!(
        body["tools"][0]["input_schema"]["required"],
        json!(["score", "reasoning", "nonce"])
    );
    let _ = nonce_of;
}
