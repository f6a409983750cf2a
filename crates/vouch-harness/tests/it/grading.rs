//! `stdout:` reviews graded by a judge: rows for a pass, a fail, an unreadable reply, no final
//! answer and a borderline grader; the fluent review API.

use std::sync::Arc;

use vouch_harness::grading::JudgeGrader;
use vouch_harness::{Session, expect};
use vouch_judge::{Judge, Outcome};
use vouch_llm::{Scripted, ScriptedReply};

use crate::support::{fixtures, graded_rows, render};

fn reply(matches: &str, reply: &str) -> ScriptedReply {
    ScriptedReply {
        matches: Some(matches.to_owned()),
        reply: reply.to_owned(),
        delay_ms: 0,
    }
}

/// A judge whose grader answers by the criteria it is asked about.
fn judge() -> Judge {
    let grader = Scripted::new(
        "script-1",
        vec![
            reply(
                "Says that the tests pass",
                r#"{"score": 9, "reasoning": "It says all 5 tests pass.", "nonce": "{{nonce}}"}"#,
            ),
            reply(
                "Names the file it changed",
                r#"{"score": 3, "reasoning": "No file is named.", "nonce": "{{nonce}}"}"#,
            ),
            reply("Answers in English", "Looks fine to me, 10/10!"),
            reply(
                "Is polite",
                r#"{"score": 6.5, "reasoning": "Terse.", "nonce": "{{nonce}}"}"#,
            ),
        ],
    );
    Judge::single("script", Arc::new(grader))
}

const REVIEWS: &str = r#"
  - stdout:
      review: "Says that the tests pass"
      threshold: 8
  - stdout:
      review: "Names the file it changed"
  - stdout:
      review: "Answers in English"
  - stdout:
      review: "Is polite"
      agent: nobody
"#;

#[test]
fn reviews_become_rows_in_their_order() {
    let grader = JudgeGrader::new(judge()).unwrap();
    let rows = graded_rows("work.jsonl", REVIEWS, &grader);
    insta::assert_snapshot!(render(&rows), @r#"
    PASS [line 5] stdout review: "Says that the tests pass"
        It says all 5 tests pass.
    FAIL [line 8] stdout review: "Names the file it changed"
        No file is named.
    FAIL [line 10] stdout review: "Answers in English"
        the grader's reply cannot be read: it holds no JSON object with a score: "Looks fine to me, 10/10!"
    FAIL [line 12] stdout review: "Is polite"
        no grader named `nobody` is configured (graders: script)
    "#);
    let scores: Vec<Option<f64>> = rows.iter().map(|r| r.score).collect();
    assert_eq!(scores, [Some(9.0), Some(3.0), None, None]);
    let first = rows[0].grading.as_ref().unwrap();
    assert_eq!(
        (first.threshold, first.grader.as_str(), first.model.as_str()),
        (8, "script", "script-1")
    );
}

#[test]
fn a_session_without_a_final_answer_skips_its_reviews() {
    let grader = JudgeGrader::new(judge()).unwrap();
    let rows = graded_rows("no-answer.jsonl", REVIEWS, &grader);
    assert!(rows.iter().all(|r| r.skipped && !r.passed), "{rows:?}");
    assert_eq!(
        rows[0].reason.as_deref(),
        Some("no final answer to grade: the session ends without one")
    );
}

fn run<F: std::future::Future>(future: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(future)
}

#[test]
fn the_fluent_review_grades_the_final_answer() {
    let session = Session::load(fixtures().join("sessions/work.jsonl")).unwrap();
    let judge = judge();
    let review = expect(&session)
        .final_answer()
        .review("Says that the tests pass")
        .threshold(9);
    let graded = run(review.to_pass(&judge));
    assert_eq!((graded.score, graded.threshold), (Some(9.0), 9));
    let strict = expect(&session)
        .final_answer()
        .review("Says that the tests pass")
        .threshold(10);
    assert_eq!(run(strict.grade(&judge)).outcome, Outcome::Failed);
}

#[test]
#[should_panic(
    expected = "review failed: \"Names the file it changed\"\nscore 3, threshold 7, Failed by script (script-1): No file is named."
)]
fn a_failed_fluent_review_panics_with_the_reasoning() {
    let session = Session::load(fixtures().join("sessions/work.jsonl")).unwrap();
    let judge = judge();
    run(expect(&session)
        .final_answer()
        .review("Names the file it changed")
        .to_pass(&judge));
}

#[test]
fn a_fluent_review_of_no_answer_is_skipped_not_passed() {
    let session = Session::load(fixtures().join("sessions/no-answer.jsonl")).unwrap();
    let answer = expect(&session).final_answer();
    assert_eq!(answer.text(), None);
    let graded = run(answer.review("Says that the tests pass").grade(&judge()));
    assert_eq!(graded.outcome, Outcome::Skipped);
}

#[test]
#[should_panic(expected = "a review's threshold is a score from 1 to 10, not 11")]
fn a_fluent_threshold_out_of_range_panics() {
    let session = Session::load(fixtures().join("sessions/work.jsonl")).unwrap();
    let _ = expect(&session).final_answer().review("x").threshold(11);
}
