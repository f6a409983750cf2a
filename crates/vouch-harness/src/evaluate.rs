//! Evaluating a test's assertions on a session: one row per assertion, in the test's order.

use std::fmt::Write as _;
use std::path::Path;

use rayon::prelude::*;
use serde::Serialize;
use vouch_evidence::EvidenceView;
use vouch_gate::{GateContext, PipelineConfig, Predicate, Verdict, evaluate_gate};
use vouch_session::ReadReport;

use crate::spec::{Assertion, AssertionKind, StdoutReview, TestFile};

/// The result of one assertion.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct Row {
    /// What was checked (`Read not called with file_path glob *.env`).
    pub description: String,
    /// Whether it held.
    pub passed: bool,
    /// Why it did not (or, for a graded row, the grader's reasoning).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// A graded row's score, 1–10.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub score: Option<f64>,
    /// True for a row that was not graded (nothing to grade), which neither passes nor fails
    /// the test.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub skipped: bool,
    /// The line of the test file the assertion is on.
    pub line: u64,
    /// A graded row's grading: threshold, samples, grader; `None` for other rows.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub grading: Option<Grading>,
}

/// How a graded row was graded.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct Grading {
    /// The threshold, 1–10.
    pub threshold: u8,
    /// Every sample's score, in index order.
    pub samples: Vec<f64>,
    /// True when the samples fell on both sides of the threshold.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub borderline: bool,
    /// How many samples were replayed from the cache.
    pub cached: usize,
    /// The grader's name.
    pub grader: String,
    /// The model that graded.
    pub model: String,
    /// The tokens the grading cost, when the grader said (none when replayed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub usage: Option<vouch_llm::Usage>,
}

impl Row {
    /// A row that held.
    pub fn pass(description: String, line: u64) -> Row {
        Row {
            description,
            passed: true,
            reason: None,
            score: None,
            skipped: false,
            line,
            grading: None,
        }
    }

    /// What a graded row says of its grading: `score 9/10, threshold 7; by demo (demo-model);
    /// replayed from the cache`, with the samples' range and a borderline mark when sampled.
    pub fn grading_note(&self) -> Option<String> {
        let g = self.grading.as_ref()?;
        let score = |s: f64| {
            if s.fract() == 0.0 {
                format!("{s:.0}")
            } else {
                format!("{s:.1}")
            }
        };
        let mut note = match self.score {
            Some(s) => format!("score {}/10, threshold {}", score(s), g.threshold),
            None => format!("threshold {}", g.threshold),
        };
        if g.samples.len() > 1 {
            let lo = g.samples.iter().copied().fold(f64::INFINITY, f64::min);
            let hi = g.samples.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let _ = write!(
                note,
                ", median of {} samples ({}–{})",
                g.samples.len(),
                score(lo),
                score(hi)
            );
        }
        if g.borderline {
            note.push_str(", borderline");
        }
        let _ = write!(note, "; by {} ({})", g.grader, g.model);
        if g.cached > 0 {
            if g.cached == g.samples.len() {
                note.push_str("; replayed from the cache");
            } else {
                let _ = write!(
                    note,
                    "; {} of {} samples from the cache",
                    g.cached,
                    g.samples.len()
                );
            }
        }
        Some(note)
    }

    /// A row that did not hold, and why.
    pub fn fail(description: String, reason: String, line: u64) -> Row {
        Row {
            description,
            passed: false,
            reason: Some(reason),
            score: None,
            skipped: false,
            line,
            grading: None,
        }
    }
}

/// A `stdout:` review to grade, and what it grades.
#[derive(Debug, Clone, Copy)]
pub struct Review<'a> {
    /// The review.
    pub spec: &'a StdoutReview,
    /// The agent's final answer, when there is one.
    pub answer: Option<&'a str>,
    /// The line of the test file it is on.
    pub line: u64,
    /// The test's `description:` of it, when it gives one.
    pub description: Option<&'a str>,
}

impl Review<'_> {
    /// Returns the row's description: the test's, or `stdout review: "<criteria>"`.
    pub fn describe(&self) -> String {
        self.description.map_or_else(
            || format!("stdout review: \"{}\"", self.spec.review),
            str::to_owned,
        )
    }
}

/// Grades the agent's final answer against `stdout:` reviews.
pub trait Grader: Send + Sync {
    /// Grades every review of a test (together, so that they can be graded at once); one row
    /// each, in their order, saying the verdict, the score and the reasoning.
    fn grade(&self, reviews: &[Review<'_>]) -> Vec<Row>;
}

/// The grader of a run with no LLM grader configured: every review fails, loudly.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoGrader;

impl Grader for NoGrader {
    fn grade(&self, reviews: &[Review<'_>]) -> Vec<Row> {
        reviews
            .iter()
            .map(|r| {
                Row::fail(
                    r.describe(),
                    "no grader configured: stdout reviews are graded by an LLM, and none is configured (vouch.yaml `graders:`)".to_owned(),
                    r.line,
                )
            })
            .collect()
    }
}

/// Evaluates every assertion of `test` on the session `log` read, whose artifacts (for gates)
/// are under `workdir`. A `gate:` assertion decides as a gate does, so it never passes over
/// lines the read skipped.
pub fn evaluate(
    test: &TestFile,
    log: &ReadReport,
    workdir: &Path,
    config: &PipelineConfig,
    grader: &dyn Grader,
) -> Vec<Row> {
    let session = &log.session;
    let view = EvidenceView::new(session, workdir, config.validation().paths.clone())
        .with_diagnostics(&log.diagnostics);
    // Built once, before the assertions share them.
    let _ = view.call_index();
    let cx = GateContext {
        view: &view,
        keyword: "Completion",
    };
    // The reviews are graded together, the other assertions on every core.
    let answer = session.final_answer();
    let reviews: Vec<(usize, Review<'_>)> = test
        .assertions
        .iter()
        .enumerate()
        .filter_map(|(i, a)| match &a.kind {
            AssertionKind::Stdout(spec) => Some((
                i,
                Review {
                    spec,
                    answer,
                    line: a.location.line,
                    description: a.description.as_deref(),
                },
            )),
            _ => None,
        })
        .collect();
    let mut graded = if reviews.is_empty() {
        Vec::new()
    } else {
        let only: Vec<Review<'_>> = reviews.iter().map(|(_, r)| *r).collect();
        grader.grade(&only)
    }
    .into_iter();
    let row = |a: &Assertion| -> Option<Row> {
        let line = a.location.line;
        let predicate: Box<dyn Predicate> = match &a.kind {
            AssertionKind::Call(c) => Box::new(c.as_ref().clone()),
            AssertionKind::Sequence(s) => Box::new(s.as_ref().clone()),
            AssertionKind::Gate(g) => g.kind.build("the test", config),
            AssertionKind::Stdout(_) => return None,
        };
        let description = a.description.clone().unwrap_or_else(|| match &a.kind {
            AssertionKind::Gate(_) => format!("gate {}", predicate.describe()),
            _ => predicate.describe(),
        });
        let verdict = match &a.kind {
            AssertionKind::Gate(_) => evaluate_gate([predicate.as_ref()], &cx),
            _ => predicate.evaluate(&cx),
        };
        Some(match verdict {
            Verdict::Pass => Row::pass(description, line),
            Verdict::Block(b) => Row::fail(description, b.message, line),
        })
    };
    test.assertions
        .par_iter()
        .map(row)
        .collect::<Vec<_>>()
        .into_iter()
        .zip(&test.assertions)
        .map(|(row, a)| {
            row.or_else(|| graded.next()).unwrap_or_else(|| {
                Row::fail(
                    "stdout review".to_owned(),
                    "the grader returned no row for this review".to_owned(),
                    a.location.line,
                )
            })
        })
        .collect()
}
