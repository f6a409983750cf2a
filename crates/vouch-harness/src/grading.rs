//! Grading `stdout:` reviews with the graders of `vouch.yaml`: a [`Judge`] built from the
//! configuration, run on a runtime of its own so that the synchronous suite can use it from
//! any of its threads, every review of a test graded at once.

use futures_util::future::join_all;
use vouch_judge::registry::{self, BlockingJudge};
use vouch_judge::{Graded, Judge, Outcome, ReviewSpec};

use crate::evaluate::{Grader, Grading, Review, Row};

/// Grades with a [`Judge`] on a runtime of its own.
#[derive(Debug)]
pub struct JudgeGrader {
    judge: BlockingJudge,
}

impl JudgeGrader {
    /// Returns a grader using `judge`, with a runtime of its own.
    pub fn new(judge: Judge) -> std::io::Result<JudgeGrader> {
        Ok(JudgeGrader {
            judge: BlockingJudge::new(judge)?,
        })
    }

    /// Returns the judge.
    pub fn judge(&self) -> &Judge {
        self.judge.judge()
    }
}

impl From<BlockingJudge> for JudgeGrader {
    fn from(judge: BlockingJudge) -> JudgeGrader {
        JudgeGrader { judge }
    }
}

impl Grader for JudgeGrader {
    fn grade(&self, reviews: &[Review<'_>]) -> Vec<Row> {
        let specs: Vec<ReviewSpec> = reviews.iter().map(|r| spec_of(r.spec)).collect();
        let judge = self.judge.judge();
        let graded = self.judge.block_on(join_all(
            specs
                .iter()
                .zip(reviews)
                .map(|(spec, r)| judge.review(spec, r.answer)),
        ));
        graded
            .iter()
            .zip(reviews)
            .map(|(g, r)| row_of(g, r))
            .collect()
    }
}

/// Returns, for every review of `tests` that names a grader `judge` does not have, where it is
/// and what is wrong (`path:line:column: …`), so that a run stops before any agent is started.
pub fn unknown_graders(tests: &[crate::TestFile], judge: &Judge) -> Vec<String> {
    let mut problems = Vec::new();
    for test in tests {
        for a in &test.assertions {
            if let crate::spec::AssertionKind::Stdout(review) = &a.kind
                && let Some(problem) = review
                    .agent
                    .as_deref()
                    .and_then(|name| registry::unknown_grader(judge, name))
            {
                problems.push(format!("{}:{}: {problem}", test.path.display(), a.location));
            }
        }
    }
    problems
}

/// The judge's view of a test's `stdout:` review.
pub fn spec_of(review: &crate::spec::StdoutReview) -> ReviewSpec {
    ReviewSpec {
        criteria: review.review.clone(),
        threshold: review.threshold,
        model: review.model.clone(),
        grader: review.agent.clone(),
        samples: review.samples,
    }
}

/// The row of a graded review: passed, failed with the grader's reasoning, skipped with why,
/// or failed because it could not be graded.
pub fn row_of(graded: &Graded, review: &Review<'_>) -> Row {
    let description = review.describe();
    let mut row = match graded.outcome {
        Outcome::Passed => Row::pass(description, review.line),
        Outcome::Failed | Outcome::Error => {
            Row::fail(description, graded.reasoning.clone(), review.line)
        }
        Outcome::Skipped => {
            let mut row = Row::fail(description, graded.reasoning.clone(), review.line);
            row.skipped = true;
            row
        }
    };
    if graded.outcome == Outcome::Passed && !graded.reasoning.is_empty() {
        row.reason = Some(graded.reasoning.clone());
    }
    row.score = graded.score;
    if matches!(graded.outcome, Outcome::Passed | Outcome::Failed) || !graded.samples.is_empty() {
        row.grading = Some(Grading {
            threshold: graded.threshold,
            samples: graded.samples.iter().map(|s| s.score).collect(),
            borderline: graded.borderline,
            cached: graded.cached(),
            grader: graded.grader.clone(),
            model: graded.model.clone(),
            usage: graded.usage(),
        });
    }
    row
}
