//! Calibration: a grader and a threshold run over cases whose verdicts a person gave, to see
//! whether they can be trusted — agreement, the confusion matrix, the threshold that would have
//! agreed most.
//!
//! ```yaml
//! grader: claude          # optional: the default grader otherwise
//! model: claude-sonnet-4-5  # optional
//! threshold: 7            # optional (7)
//! samples: 1              # optional (1)
//! cases:
//!   - name: names both keys
//!     criteria: Names both API keys the app needs
//!     output: "It needs OPENWEATHER_API_KEY and SENTRY_DSN."
//!     expect: pass
//!   - criteria: Names both API keys the app needs
//!     output: "It needs an API key."
//!     expect: fail
//! ```

use std::path::Path;

use futures_util::future::join_all;
use serde::{Deserialize, Serialize};

use crate::error::Error;
use crate::review::{Graded, Judge, Outcome, ReviewSpec};

/// A verdict a person gave.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Expect {
    /// The output meets the criteria.
    Pass,
    /// It does not.
    Fail,
}

/// One case.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Case {
    /// A name for reports (default: its number).
    #[serde(default)]
    pub name: Option<String>,
    /// The criteria.
    pub criteria: String,
    /// The output to grade.
    pub output: String,
    /// The verdict it deserves.
    pub expect: Expect,
}

/// A cases file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Cases {
    /// The grader, by name.
    #[serde(default)]
    pub grader: Option<String>,
    /// The model.
    #[serde(default)]
    pub model: Option<String>,
    /// The threshold (default 7).
    #[serde(default)]
    pub threshold: Option<u8>,
    /// Samples per case (default 1).
    #[serde(default)]
    pub samples: Option<u32>,
    /// The cases.
    pub cases: Vec<Case>,
}

/// Reads a cases file; errors say where.
pub fn load(path: &Path) -> Result<Cases, Error> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Error::Cases(format!("cannot read {}: {e}", path.display())))?;
    let cases: Cases =
        serde_saphyr::from_str(&text).map_err(|e| Error::Cases(vouch_llm::yaml_error(path, &e)))?;
    if cases.cases.is_empty() {
        return Err(Error::Cases(format!("{}: no cases", path.display())));
    }
    if let Some(t) = cases.threshold
        && !(1..=10).contains(&t)
    {
        return Err(Error::Cases(format!(
            "{}: `threshold` is a whole number from 1 to 10, found {t}",
            path.display()
        )));
    }
    Ok(cases)
}

/// A case graded.
#[derive(Debug, Clone, Serialize)]
pub struct CaseResult {
    /// Its name.
    pub name: String,
    /// The verdict it deserves.
    pub expect: Expect,
    /// How it was graded.
    pub graded: Graded,
    /// Whether the grade agrees with the verdict; `None` when it could not be graded.
    pub agrees: Option<bool>,
}

/// Agreements and disagreements, counting "pass" as positive.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Confusion {
    /// Deserved a pass, passed.
    pub true_pass: usize,
    /// Deserved a fail, passed: the judge was talked into it, or is lenient.
    pub false_pass: usize,
    /// Deserved a pass, failed: the judge is harsh.
    pub false_fail: usize,
    /// Deserved a fail, failed.
    pub true_fail: usize,
}

/// The result of a calibration.
#[derive(Debug, Clone, Serialize)]
pub struct Calibration {
    /// The grader.
    pub grader: String,
    /// The model.
    pub model: String,
    /// The threshold used.
    pub threshold: u8,
    /// Every case, in the file's order.
    pub cases: Vec<CaseResult>,
    /// Cases graded whose verdict agreed, over cases graded.
    pub agreement: f64,
    /// The confusion matrix.
    pub confusion: Confusion,
    /// Cases that could not be graded.
    pub errors: usize,
    /// The threshold that would have agreed most with these scores, and its agreement.
    pub best_threshold: Option<(u8, f64)>,
}

/// Grades every case with `judge` (the file's grader, model, threshold and samples, unless
/// `overrides` replace them), concurrently within the grader's limit.
pub async fn calibrate(
    judge: &Judge,
    cases: &Cases,
    grader: Option<&str>,
    threshold: Option<u8>,
) -> Calibration {
    let threshold = threshold.or(cases.threshold).unwrap_or(7);
    let grader = grader.map(str::to_owned).or_else(|| cases.grader.clone());
    let specs: Vec<ReviewSpec> = cases
        .cases
        .iter()
        .map(|c| ReviewSpec {
            criteria: c.criteria.clone(),
            threshold,
            model: cases.model.clone(),
            grader: grader.clone(),
            samples: cases.samples.unwrap_or(1).max(1),
        })
        .collect();
    let graded = join_all(
        specs
            .iter()
            .zip(&cases.cases)
            .map(|(spec, case)| judge.review(spec, Some(&case.output))),
    )
    .await;
    let mut confusion = Confusion::default();
    let mut errors = 0;
    let results: Vec<CaseResult> = cases
        .cases
        .iter()
        .zip(graded)
        .enumerate()
        .map(|(i, (case, graded))| {
            let agrees = match graded.outcome {
                Outcome::Passed | Outcome::Failed => {
                    let passed = graded.outcome == Outcome::Passed;
                    match (case.expect, passed) {
                        (Expect::Pass, true) => confusion.true_pass += 1,
                        (Expect::Fail, true) => confusion.false_pass += 1,
                        (Expect::Pass, false) => confusion.false_fail += 1,
                        (Expect::Fail, false) => confusion.true_fail += 1,
                    }
                    Some(passed == (case.expect == Expect::Pass))
                }
                Outcome::Error | Outcome::Skipped => {
                    errors += 1;
                    None
                }
            };
            CaseResult {
                name: case
                    .name
                    .clone()
                    .unwrap_or_else(|| format!("case {}", i + 1)),
                expect: case.expect,
                graded,
                agrees,
            }
        })
        .collect();
    let judged = results.iter().filter(|r| r.agrees.is_some()).count();
    let agreed = results.iter().filter(|r| r.agrees == Some(true)).count();
    let share = |n: usize, of: usize| {
        if of == 0 {
            0.0
        } else {
            f64::from(u32::try_from(n).unwrap_or(u32::MAX))
                / f64::from(u32::try_from(of).unwrap_or(u32::MAX))
        }
    };
    let scored: Vec<(f64, Expect)> = results
        .iter()
        .filter_map(|r| {
            r.graded
                .score
                .filter(|_| r.agrees.is_some())
                .map(|s| (s, r.expect))
        })
        .collect();
    let best_threshold = (1..=10u8)
        .map(|t| {
            let right = scored
                .iter()
                .filter(|(s, e)| (*s >= f64::from(t)) == (*e == Expect::Pass))
                .count();
            (t, share(right, scored.len()))
        })
        // The most agreement; among equals, the threshold nearest the one in use.
        .max_by(|a, b| {
            a.1.total_cmp(&b.1).then_with(|| {
                (i16::from(b.0) - i16::from(threshold))
                    .abs()
                    .cmp(&(i16::from(a.0) - i16::from(threshold)).abs())
            })
        })
        .filter(|_| !scored.is_empty());
    let first = results
        .first()
        .map(|r| (r.graded.grader.clone(), r.graded.model.clone()))
        .unwrap_or_default();
    Calibration {
        grader: first.0,
        model: first.1,
        threshold,
        agreement: share(agreed, judged),
        confusion,
        errors,
        best_threshold,
        cases: results,
    }
}
