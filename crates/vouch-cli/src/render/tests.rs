//! Agent test results for people: a line per test (`✓`/`✗`, name, file, time), its rows
//! (`✓`/`✗` with the reason, a graded row's score), a line per run when it repeats, and a
//! summary.

use std::io::{self, Write};
use std::time::Duration;

use vouch_harness::suite::{RunResult, TestResult};

use crate::ui::{Styles, plural};

/// Writes every test's result and the summary.
pub(crate) fn write(
    out: &mut impl Write,
    styles: &Styles,
    results: &[TestResult],
    wall: Duration,
) -> io::Result<()> {
    for test in results {
        test_line(out, styles, test)?;
    }
    let failed = results.iter().filter(|t| !t.passed).count();
    let passed = results.len() - failed;
    let (s, word) = if failed == 0 {
        (styles.pass, "passed")
    } else {
        (styles.fail, "failed")
    };
    writeln!(
        out,
        "\n{s}{word}{s:#}: {} passed, {} failed ({} in {:.2}s)",
        passed,
        failed,
        plural(results.len(), "test", "tests"),
        wall.as_secs_f64()
    )
}

fn test_line(out: &mut impl Write, styles: &Styles, test: &TestResult) -> io::Result<()> {
    let (mark, s) = if test.passed {
        ("✓", styles.pass)
    } else {
        ("✗", styles.fail)
    };
    let d = styles.dim;
    let seconds: f64 = test.runs.iter().map(|r| r.seconds).sum();
    let runs = if test.runs.len() > 1 {
        format!(
            " — {}/{} runs passed (pass_rate {})",
            test.passed_runs(),
            test.runs.len(),
            test.pass_rate
        )
    } else {
        String::new()
    };
    writeln!(
        out,
        "{s}{mark}{s:#} {}{runs} {d}{} {:.2}s{d:#}",
        test.name,
        test.path.display(),
        seconds
    )?;
    for run in &test.runs {
        if test.runs.len() > 1 {
            let (mark, rs) = if run.passed {
                ("✓", styles.pass)
            } else {
                ("✗", styles.fail)
            };
            writeln!(
                out,
                "    {rs}{mark}{rs:#} run {} {d}{:.2}s{d:#}",
                run.run, run.seconds
            )?;
            // Rows of passing repeats are the same as the first: show the failing runs' rows.
            if run.passed {
                continue;
            }
        }
        rows(out, styles, run, if test.runs.len() > 1 { 6 } else { 4 })?;
    }
    Ok(())
}

fn rows(out: &mut impl Write, styles: &Styles, run: &RunResult, indent: usize) -> io::Result<()> {
    let pad = " ".repeat(indent);
    let d = styles.dim;
    if let Some(error) = &run.error {
        let s = styles.fail;
        writeln!(out, "{pad}{s}✗{s:#} {error}")?;
        if !run.stderr.trim().is_empty() {
            for line in run.stderr.trim().lines().take(5) {
                writeln!(out, "{pad}    {d}{line}{d:#}")?;
            }
        }
    }
    for row in &run.rows {
        let (mark, s) = if row.skipped {
            ("-", styles.dim)
        } else if row.passed {
            ("✓", styles.pass)
        } else {
            ("✗", styles.fail)
        };
        let score = row
            .grading_note()
            .map(|note| format!(" {d}({note}){d:#}"))
            .unwrap_or_default();
        writeln!(out, "{pad}{s}{mark}{s:#} {}{score}", row.description)?;
        if let Some(reason) = &row.reason {
            for line in reason.lines() {
                writeln!(out, "{pad}    {line}")?;
            }
        }
    }
    Ok(())
}
