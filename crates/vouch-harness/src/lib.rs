//! Agent tests: YAML tests that run a coding agent (Claude Code, Codex) or read a session it
//! recorded, and assert on what it really did — its tool calls, their parameters, order and
//! outcomes, the gates of a pipeline, and (graded by an LLM) its final answer.
//!
//! - [`spec`]: test files (`*.vouch.yaml`, and the peer's `*.aptitude.yaml`).
//! - [`evaluate`]: a test's assertions on a session, one [`Row`] each.
//! - [`runner`]: running Claude Code or Codex on a prompt, reading the session it wrote.
//! - [`suite`]: finding tests, running them in parallel, repeats and pass rates.
//! - [`junit`]: results as JUnit XML.
//! - [`fluent`]: the same assertions for Rust `#[test]`s: [`expect`].

#![deny(missing_docs)]

pub mod config;
mod error;
pub mod evaluate;
pub mod fluent;
pub mod grading;
pub mod junit;
pub mod runner;
pub mod spec;
pub mod suite;

pub use error::Error;
pub use evaluate::{Grader, Grading, NoGrader, Review, Row};
pub use fluent::{Session, contains, exact, expect, glob, regex, search};
pub use spec::{TestFile, load as load_test};
pub use suite::{TestResult, run as run_suite};
