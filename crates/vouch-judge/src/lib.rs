//! LLM review: an agent's final answer graded against criteria in words, as a test's
//! `stdout: {review, threshold, model, agent, samples}` asks (`llm-review.md`, R1–R6).
//!
//! - [`prompt`]: the grading prompt; the graded output sits between nonce-marked lines it
//!   cannot forge, declared to be data.
//! - [`parse`]: the grader's reply — the JSON object signed with the nonce, else its last one
//!   that does not echo the output — into a score clamped to 1–10; any other reply is an error
//!   quoting it, never a pass.
//! - [`Judge`]: the graders by name, samples graded concurrently, the median and the spread, a
//!   borderline mark when samples straddle the threshold.
//! - [`Cache`]: SQLite, keyed by prompt version, criteria, output, grader, model and sample.
//! - [`calibrate`]: a grader and threshold against cases with known verdicts.
//! - [`registry`]: the graders a project configures, and the judge built from them.

#![deny(missing_docs)]

pub mod cache;
pub mod calibrate;
mod error;
pub mod parse;
pub mod prompt;
pub mod registry;
mod review;

pub use cache::{Cache, CacheError, Cleared, GraderCount, Stats as CacheStats};
pub use error::Error;
pub use registry::{BlockingJudge, GraderConfig, GraderKind, GradingConfig};
pub use review::{Graded, Judge, Outcome, ReviewSpec, Sample};
