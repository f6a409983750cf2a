//! The fluent API: the assertions of the YAML tests, for Rust `#[test]`s.
//!
//! ```
//! use vouch_harness::{Session, expect, glob};
//!
//! let log = r#"
//! {"type":"user","sessionId":"s","uuid":"u1","message":{"role":"user","content":"run the tests"}}
//! {"type":"assistant","sessionId":"s","uuid":"a1","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"cargo test --all"}}]}}
//! {"type":"user","sessionId":"s","uuid":"u2","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"test result: ok"}]}}
//! {"type":"assistant","sessionId":"s","uuid":"a2","message":{"id":"m2","role":"assistant","content":[{"type":"text","text":"All tests pass."}]}}
//! "#;
//! let session = Session::parse(log)?;
//! expect(&session)
//!     .tool("Bash")
//!     .with_param("command", glob("cargo test*"))
//!     .succeeded()
//!     .to_be_called();
//! expect(&session).tool("Read").with_param("file_path", glob("*.env")).not_to_be_called();
//! let outcome = expect(&session).tool("Write").evaluate();
//! assert!(!outcome.passed);
//! assert_eq!(outcome.reason.as_deref(), Some("Write was never called"));
//! # Ok::<(), vouch_session::Error>(())
//! ```
//!
//! The final answer, graded by an LLM (here a scripted grader, which signs its reply with the
//! prompt's nonce as a model does):
//!
//! ```
//! use std::sync::Arc;
//! use vouch_harness::{Session, expect};
//! use vouch_judge::Judge;
//! use vouch_llm::{Scripted, ScriptedReply};
//!
//! # let log = r#"{"type":"assistant","sessionId":"s","uuid":"a2","message":{"id":"m2","role":"assistant","content":[{"type":"text","text":"Fixed the total (price times quantity); npm test passes, 12 tests."}]}}"#;
//! let session = Session::parse(log)?;
//! let grader = Scripted::new("demo", vec![ScriptedReply {
//!     matches: Some("price times quantity".into()),
//!     reply: r#"{"score": 9, "reasoning": "Names the fix and the passing tests.", "nonce": "{{nonce}}"}"#.into(),
//!     delay_ms: 0,
//! }]);
//! let judge = Judge::single("demo", Arc::new(grader));
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! let graded = expect(&session)
//!     .final_answer()
//!     .review("Says what was fixed and that the tests pass")
//!     .threshold(8)
//!     .grade(&judge)
//!     .await;
//! assert!(graded.passed());
//! assert_eq!(graded.score, Some(9.0));
//! # });
//! # Ok::<(), vouch_session::Error>(())
//! ```

use std::ops::Deref;
use std::path::{Path, PathBuf};

use vouch_evidence::{ArtifactPaths, EvidenceView};
use vouch_gate::assertions::{
    CallAssertion, Matcher, Param, Params, Scope, SequenceAssertion, ToolMatch, ToolName,
};
use vouch_gate::{GateContext, Predicate, Verdict};
use vouch_judge::{Graded, Judge, ReviewSpec};
use vouch_session::ReadOptions;

/// A session to assert on: a recorded log, read in any format vouch reads.
#[derive(Debug, Clone)]
pub struct Session {
    inner: vouch_session::Session,
    workdir: PathBuf,
}

impl Session {
    /// Reads the session log at `path` (its subagents too).
    pub fn load(path: impl AsRef<Path>) -> Result<Session, vouch_session::Error> {
        let path = path.as_ref();
        let report = vouch_session::read_path(path, &ReadOptions::default())?;
        Ok(Session {
            inner: report.session,
            workdir: path
                .parent()
                .map_or_else(|| PathBuf::from("."), Path::to_path_buf),
        })
    }

    /// Reads a session log from text.
    pub fn parse(text: &str) -> Result<Session, vouch_session::Error> {
        let report = vouch_session::read_from(
            text.trim_start().as_bytes(),
            "<text>",
            &ReadOptions::default(),
        )?;
        Ok(Session {
            inner: report.session,
            workdir: PathBuf::from("."),
        })
    }

    /// Wraps a session already read.
    pub fn from_session(session: vouch_session::Session) -> Session {
        Session {
            inner: session,
            workdir: PathBuf::from("."),
        }
    }
}

impl Deref for Session {
    type Target = vouch_session::Session;
    fn deref(&self) -> &vouch_session::Session {
        &self.inner
    }
}

/// Returns a glob matcher (`*` crosses `/`). Panics on an invalid glob, with its reason.
pub fn glob(pattern: &str) -> Matcher {
    Matcher::glob(pattern).unwrap_or_else(|e| panic!("{e}"))
}

/// Returns a regex matcher over the whole value. Panics on an invalid regex, with its reason.
pub fn regex(pattern: &str) -> Matcher {
    Matcher::regex(pattern, true).unwrap_or_else(|e| panic!("{e}"))
}

/// Returns a regex matcher that may match anywhere in the value.
pub fn search(pattern: &str) -> Matcher {
    Matcher::regex(pattern, false).unwrap_or_else(|e| panic!("{e}"))
}

/// Returns a matcher of exactly `value`.
pub fn exact(value: &str) -> Matcher {
    Matcher::Exact(value.to_owned())
}

/// Returns a matcher of values containing `part`.
pub fn contains(part: &str) -> Matcher {
    Matcher::Contains(part.to_owned())
}

/// What a matcher can be written as: a [`Matcher`], or a bare string read by its shape (see
/// docs/agent-tests.md).
pub trait IntoMatcher {
    /// Returns the matcher.
    fn into_matcher(self) -> Matcher;
}

impl IntoMatcher for Matcher {
    fn into_matcher(self) -> Matcher {
        self
    }
}

impl IntoMatcher for &str {
    fn into_matcher(self) -> Matcher {
        Matcher::bare(self).unwrap_or_else(|e| panic!("{e}"))
    }
}

/// The outcome of an assertion that was evaluated without panicking.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Outcome {
    /// Whether it held.
    pub passed: bool,
    /// What was checked.
    pub description: String,
    /// Why it did not hold.
    pub reason: Option<String>,
}

/// Starts an assertion on `session`.
pub fn expect(session: &Session) -> Expectation<'_> {
    Expectation {
        session,
        scope: Scope::default(),
    }
}

/// Assertions on a session, possibly scoped to one agent's or subagent's calls.
#[derive(Debug, Clone)]
pub struct Expectation<'s> {
    session: &'s Session,
    scope: Scope,
}

impl<'s> Expectation<'s> {
    /// Looks only at the calls made inside the subagent with this name or id.
    #[must_use]
    pub fn in_subagent(mut self, name: &str) -> Expectation<'s> {
        self.scope.subagent = Some(name.to_owned());
        self
    }

    /// Looks only at the calls of the agent with this name.
    #[must_use]
    pub fn by_agent(mut self, name: &str) -> Expectation<'s> {
        self.scope.agent = Some(name.to_owned());
        self
    }

    /// Starts an assertion on calls of `tool` (its name in any agent's spelling). Panics on an
    /// empty name.
    pub fn tool(&self, tool: &str) -> ToolExpectation<'s> {
        let name = ToolName::new(tool).unwrap_or_else(|e| panic!("{e}"));
        let mut assertion = CallAssertion::new(ToolMatch {
            tool: name,
            params: Params::default(),
            succeeded: None,
        });
        assertion.scope = self.scope.clone();
        ToolExpectation {
            session: self.session,
            assertion,
        }
    }

    /// Starts a review of the agent's final answer (the last thing the main agent said), to be
    /// graded by an LLM against criteria in words.
    pub fn final_answer(&self) -> Answer<'s> {
        Answer {
            text: self.session.final_answer(),
        }
    }

    /// Asserts that calls of these tools happened in this order (others may come between).
    pub fn sequence(&self, tools: &[&str]) -> Outcome {
        let steps = tools
            .iter()
            .map(|t| ToolMatch {
                tool: ToolName::new(t).unwrap_or_else(|e| panic!("{e}")),
                params: Params::default(),
                succeeded: None,
            })
            .collect();
        run(
            self.session,
            &SequenceAssertion::new(steps, self.scope.clone()),
        )
    }
}

/// The agent's final answer, about to be reviewed.
#[derive(Debug, Clone, Copy)]
pub struct Answer<'s> {
    text: Option<&'s str>,
}

impl<'s> Answer<'s> {
    /// Returns the answer's text; `None` when the session ends without one.
    pub fn text(&self) -> Option<&'s str> {
        self.text
    }

    /// Starts a review of the answer against `criteria`: threshold 7, one sample, the judge's
    /// default grader, until said otherwise.
    pub fn review(self, criteria: &str) -> AnswerReview<'s> {
        AnswerReview {
            text: self.text,
            spec: ReviewSpec::new(criteria),
        }
    }
}

/// A review of a final answer, built step by step and graded by a [`Judge`].
#[derive(Debug, Clone)]
pub struct AnswerReview<'s> {
    text: Option<&'s str>,
    spec: ReviewSpec,
}

impl AnswerReview<'_> {
    /// The lowest passing score, 1–10. Panics outside that range.
    #[must_use]
    pub fn threshold(mut self, threshold: u8) -> Self {
        assert!(
            (1..=10).contains(&threshold),
            "a review's threshold is a score from 1 to 10, not {threshold}"
        );
        self.spec.threshold = threshold;
        self
    }

    /// Grades `n` times and decides by the median (at least 1).
    #[must_use]
    pub fn samples(mut self, n: u32) -> Self {
        self.spec.samples = n.max(1);
        self
    }

    /// Grades with the judge's grader of this name instead of its default.
    #[must_use]
    pub fn grader(mut self, name: &str) -> Self {
        self.spec.grader = Some(name.to_owned());
        self
    }

    /// Grades with this model instead of the grader's own.
    #[must_use]
    pub fn model(mut self, model: &str) -> Self {
        self.spec.model = Some(model.to_owned());
        self
    }

    /// Returns what will be graded.
    pub fn spec(&self) -> &ReviewSpec {
        &self.spec
    }

    /// Grades the answer. A session without a final answer is [`Outcome::Skipped`]; a grader
    /// that fails or replies with no readable grade is [`Outcome::Error`] — neither passes.
    ///
    /// [`Outcome::Skipped`]: vouch_judge::Outcome::Skipped
    /// [`Outcome::Error`]: vouch_judge::Outcome::Error
    pub async fn grade(&self, judge: &Judge) -> Graded {
        judge.review(&self.spec, self.text).await
    }

    /// Grades the answer and panics, with the score and the grader's reasoning, unless it
    /// passed.
    pub async fn to_pass(&self, judge: &Judge) -> Graded {
        let graded = self.grade(judge).await;
        assert!(
            graded.passed(),
            "review failed: {:?}\nscore {}, threshold {}, {:?} by {} ({}): {}",
            self.spec.criteria,
            graded
                .score
                .map_or_else(|| "none".to_owned(), |s| s.to_string()),
            graded.threshold,
            graded.outcome,
            graded.grader,
            graded.model,
            graded.reasoning
        );
        graded
    }
}

/// An assertion on calls of one tool, built step by step.
#[derive(Debug, Clone)]
pub struct ToolExpectation<'s> {
    session: &'s Session,
    assertion: CallAssertion,
}

impl<'s> ToolExpectation<'s> {
    /// Only calls whose parameter `key` (a dotted path: `edits.0.new_string`) matches.
    #[must_use]
    pub fn with_param(mut self, key: &str, matcher: impl IntoMatcher) -> ToolExpectation<'s> {
        self.assertion.target.params.0.push(Param {
            key: key.to_owned(),
            matcher: matcher.into_matcher(),
        });
        self
    }

    /// Only calls that succeeded.
    #[must_use]
    pub fn succeeded(mut self) -> ToolExpectation<'s> {
        self.assertion.target.succeeded = Some(true);
        self
    }

    /// Only calls that failed.
    #[must_use]
    pub fn failed(mut self) -> ToolExpectation<'s> {
        self.assertion.target.succeeded = Some(false);
        self
    }

    /// Every matching call comes after the first call of `tool`.
    #[must_use]
    pub fn after(mut self, tool: &str) -> ToolExpectation<'s> {
        self.assertion.called_after = Some(plain(tool));
        self
    }

    /// Every matching call comes before the last call of `tool`.
    #[must_use]
    pub fn before(mut self, tool: &str) -> ToolExpectation<'s> {
        self.assertion.called_before = Some(plain(tool));
        self
    }

    /// The `n`th call of the tool (from 1) has parameter `key` matching.
    #[must_use]
    pub fn nth_call_with(
        mut self,
        n: u32,
        key: &str,
        matcher: impl IntoMatcher,
    ) -> ToolExpectation<'s> {
        let param = Param {
            key: key.to_owned(),
            matcher: matcher.into_matcher(),
        };
        self.assertion
            .positions
            .push((n.max(1), Params(vec![param])));
        self
    }

    /// Exactly `n` matching calls.
    #[must_use]
    pub fn times(mut self, n: u32) -> ToolExpectation<'s> {
        self.assertion.call_count = Some(n);
        self
    }

    /// At least `n` matching calls.
    #[must_use]
    pub fn at_least(mut self, n: u32) -> ToolExpectation<'s> {
        self.assertion.min_calls = Some(n);
        self
    }

    /// At most `n` matching calls.
    #[must_use]
    pub fn at_most(mut self, n: u32) -> ToolExpectation<'s> {
        self.assertion.max_calls = Some(n);
        self
    }

    /// Evaluates the assertion as built (called at least once, unless a count says
    /// otherwise), without panicking.
    pub fn evaluate(&self) -> Outcome {
        run(self.session, &self.assertion)
    }

    /// Panics unless the assertion holds.
    pub fn to_pass(self) {
        check(&self.evaluate());
    }

    /// Panics unless a matching call happened (and every other condition holds).
    pub fn to_be_called(mut self) {
        self.assertion.called = Some(true);
        check(&self.evaluate());
    }

    /// Panics if a matching call happened.
    pub fn not_to_be_called(mut self) {
        self.assertion.called = Some(false);
        check(&self.evaluate());
    }
}

fn plain(tool: &str) -> ToolMatch {
    ToolMatch {
        tool: ToolName::new(tool).unwrap_or_else(|e| panic!("{e}")),
        params: Params::default(),
        succeeded: None,
    }
}

fn run(session: &Session, predicate: &dyn Predicate) -> Outcome {
    let view = EvidenceView::new(&session.inner, &session.workdir, ArtifactPaths::default());
    let cx = GateContext {
        view: &view,
        keyword: "Completion",
    };
    let description = predicate.describe();
    match predicate.evaluate(&cx) {
        Verdict::Pass => Outcome {
            passed: true,
            description,
            reason: None,
        },
        Verdict::Block(b) => Outcome {
            passed: false,
            description,
            reason: Some(b.message),
        },
    }
}

fn check(outcome: &Outcome) {
    assert!(
        outcome.passed,
        "assertion failed: {}\n{}",
        outcome.description,
        outcome.reason.as_deref().unwrap_or("")
    );
}
