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
    )?;
    if let Some(line) = grading_summary(results) {
        let d = styles.dim;
        writeln!(out, "{d}{line}{d:#}")?;
    }
    Ok(())
}

/// What grading the run's reviews took: `graded 6 reviews: 2 gradings asked (1,204 tokens in,
/// 96 out), 4 gradings replayed from the cache`; `None` when there were none.
fn grading_summary(results: &[TestResult]) -> Option<String> {
    let gradings: Vec<_> = results
        .iter()
        .flat_map(|t| &t.runs)
        .flat_map(|r| &r.rows)
        .filter_map(|row| row.grading.as_ref())
        .collect();
    if gradings.is_empty() {
        return None;
    }
    let samples: usize = gradings.iter().map(|g| g.samples.len()).sum();
    let cached: usize = gradings.iter().map(|g| g.cached).sum();
    let asked = samples - cached;
    let usage = gradings.iter().filter_map(|g| g.usage).reduce(|a, b| a + b);
    let count = |n: usize, one: &str, many: &str| {
        let word = if n == 1 { one } else { many };
        format!("{} {word}", thousands(u64::try_from(n).unwrap_or(u64::MAX)))
    };
    let mut line = format!("graded {}: ", count(gradings.len(), "review", "reviews"));
    let mut parts = Vec::new();
    if asked > 0 || cached == 0 {
        let tokens = usage.map_or_else(String::new, |u| {
            format!(
                " ({} tokens in, {} out)",
                thousands(u.input),
                thousands(u.output)
            )
        });
        parts.push(format!(
            "{} asked{tokens}",
            count(asked, "grading", "gradings")
        ));
    }
    if cached > 0 {
        parts.push(format!(
            "{} replayed from the cache",
            count(cached, "grading", "gradings")
        ));
    }
    line.push_str(&parts.join(", "));
    Some(line)
}

/// Writes `n` with a comma between each group of three digits.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
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

#[cfg(test)]
mod unit {
    use super::thousands;

    #[test]
    fn token_counts_are_grouped_by_thousands() {
        let cases = [0, 7, 999, 1_000, 12_345, 1_234_567];
        let shown: Vec<String> = cases.into_iter().map(thousands).collect();
        assert_eq!(shown, ["0", "7", "999", "1,000", "12,345", "1,234,567"]);
    }
}
