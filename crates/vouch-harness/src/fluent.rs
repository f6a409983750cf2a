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

use std::ops::Deref;
use std::path::{Path, PathBuf};

use vouch_evidence::{ArtifactPaths, EvidenceView};
use vouch_gate::assertions::{
    CallAssertion, Matcher, Param, Params, Scope, SequenceAssertion, ToolMatch, ToolName,
};
use vouch_gate::{GateContext, Predicate, Verdict};
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
