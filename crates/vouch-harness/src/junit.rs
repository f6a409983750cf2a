//! Results as JUnit XML: one `testsuite`, one `testcase` per test, a `failure` for a failed
//! test with its failing rows, each run's rows in `system-out`.

use std::fmt::Write as _;
use std::time::Duration;

use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};

use crate::suite::TestResult;

/// Returns the JUnit XML of `results`.
pub fn to_junit(results: &[TestResult]) -> Result<String, quick_junit::SerializeError> {
    let mut report = Report::new("vouch");
    let mut suite = TestSuite::new("vouch agent tests");
    for test in results {
        let mut out = String::new();
        let mut failures = Vec::new();
        for run in &test.runs {
            let _ = writeln!(
                out,
                "run {}: {}",
                run.run,
                if run.passed { "passed" } else { "failed" }
            );
            if let Some(e) = &run.error {
                let _ = writeln!(out, "  error: {e}");
                failures.push(format!("run {}: {e}", run.run));
            }
            for row in &run.rows {
                let mark = if row.passed {
                    "✓"
                } else if row.skipped {
                    "-"
                } else {
                    "✗"
                };
                let note = row
                    .grading_note()
                    .map(|n| format!(" ({n})"))
                    .unwrap_or_default();
                let _ = writeln!(out, "  {mark} {}{note}", row.description);
                if let Some(reason) = &row.reason {
                    let _ = writeln!(out, "      {reason}");
                }
                if !row.passed && !row.skipped {
                    failures.push(format!(
                        "run {}: {}: {}",
                        run.run,
                        row.description,
                        row.reason.as_deref().unwrap_or("")
                    ));
                }
            }
        }
        let status = if test.passed {
            TestCaseStatus::success()
        } else {
            let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
            let message = failures
                .first()
                .cloned()
                .unwrap_or_else(|| "too few runs passed".to_owned());
            status.set_message(message);
            status.set_type("vouch.assertion");
            status.set_description(failures.join("\n"));
            status
        };
        let mut case = TestCase::new(test.name.clone(), status);
        case.set_classname(test.path.display().to_string());
        case.set_time(Duration::from_secs_f64(
            test.runs.iter().map(|r| r.seconds).sum(),
        ));
        case.set_system_out(out);
        suite.add_test_case(case);
    }
    report.add_test_suite(suite);
    report.to_string()
}
