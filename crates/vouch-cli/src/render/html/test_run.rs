//! The test-run view: a summary (tests passed and failed, time, gradings and their tokens),
//! then each test with its runs and their assertion rows. A failing row's `(line N)` links to
//! that call in the run's session, shown below the rows when its log can be read again; graded
//! rows show score, threshold, grader, samples and reasoning; repeats their pass rate.

use std::fmt::Write as _;
use std::path::Path;
use std::time::Duration;

use vouch_harness::suite::RunResult;
use vouch_harness::{Row, TestResult};
use vouch_session::ReadOptions;

use super::page::{escape, escape_text, page};
use super::session::session_view;
use crate::render::text::{count, count_u64, duration, plural_count};

/// Returns the report of a test run as a whole page.
pub(crate) fn tests_page(results: &[TestResult], wall: Duration) -> String {
    let mut body = String::new();
    summary(&mut body, results, wall);
    let _ = write!(body, "<main>");
    for (t, test) in results.iter().enumerate() {
        self::test(&mut body, t, test);
    }
    let _ = write!(body, "</main>");
    page("vouch · tests", &body)
}

fn summary(out: &mut String, results: &[TestResult], wall: Duration) {
    let passed = results.iter().filter(|t| t.passed).count();
    let failed = results.len() - passed;
    let rows = || results.iter().flat_map(|t| &t.runs).flat_map(|r| &r.rows);
    let gradings = rows().filter(|r| r.grading.is_some()).count();
    let (input, output) = rows()
        .filter_map(|r| r.grading.as_ref()?.usage)
        .fold((0, 0), |(i, o), u| (i + u.input, o + u.output));
    let verdict = if failed == 0 { "passed" } else { "failed" };
    let _ = write!(
        out,
        "<header><h1>Tests {verdict}</h1><p class=\"meta\"><span>{} passed</span><span>{} failed</span><span>{}</span><span>{}</span>",
        count(passed),
        count(failed),
        plural_count(results.len(), "test", "tests"),
        duration(wall.as_secs_f64())
    );
    if gradings > 0 {
        let replayed = rows()
            .filter(|r| r.grading.as_ref().is_some_and(|g| g.cached > 0))
            .count();
        let _ = write!(
            out,
            "<span>{}</span>",
            plural_count(gradings, "graded review", "graded reviews")
        );
        if replayed > 0 {
            let _ = write!(
                out,
                "<span>{} replayed from the cache</span>",
                count(replayed)
            );
        }
        if input + output > 0 {
            let _ = write!(
                out,
                "<span>grading cost {} tokens in, {} out</span>",
                count_u64(input),
                count_u64(output)
            );
        }
    }
    let _ = write!(out, "</p></header>");
}

fn test(out: &mut String, t: usize, test: &TestResult) {
    let (class, mark) = if test.passed {
        ("ok", "✓")
    } else {
        ("failed", "✗")
    };
    let seconds: f64 = test.runs.iter().map(|r| r.seconds).sum();
    let _ = write!(
        out,
        "<details class=\"call test {class}\" id=\"test-{t}\"{open}><summary><span class=\"mark\" aria-hidden=\"true\">{mark}</span>\
         <span class=\"tool\">{name}</span><span class=\"outcome\">{verdict}</span><span class=\"arg\">{path}</span>\
         <span class=\"kind\">{agent}</span><span class=\"dur\">{time}</span>",
        open = if test.passed { "" } else { " open" },
        name = escape_text(&test.name),
        verdict = if test.passed { "passed" } else { "failed" },
        path = escape_text(&test.path.display().to_string()),
        agent = escape_text(&test.agent),
        time = duration(seconds),
    );
    if test.runs.len() > 1 {
        let _ = write!(
            out,
            "<span class=\"outcome\">{} of {} runs passed (pass rate {})</span>",
            test.passed_runs(),
            test.runs.len(),
            test.pass_rate
        );
    }
    let _ = write!(out, "</summary><div class=\"body\">");
    for run in &test.runs {
        self::run(out, t, test, run);
    }
    let _ = write!(out, "</div></details>");
}

fn run(out: &mut String, t: usize, test: &TestResult, run: &RunResult) {
    let prefix = format!("t{t}-r{}-", run.run);
    if test.runs.len() > 1 {
        let _ = write!(
            out,
            "<h4>Run {} — {}</h4>",
            run.run,
            if run.passed {
                "✓ passed"
            } else {
                "✗ failed"
            }
        );
    }
    if let Some(error) = &run.error {
        let _ = write!(
            out,
            "<p class=\"msg system\"><span class=\"who\">✗ no session</span>{}</p>",
            escape_text(error)
        );
    }
    // The session, when its log can be read again, for the rows to point into.
    let session = run
        .session
        .as_deref()
        .map(Path::new)
        .filter(|p| p.is_file())
        .and_then(|p| vouch_session::read_path(p, &ReadOptions::default()).ok());
    let _ = write!(out, "<ul class=\"rows\">");
    for row in &run.rows {
        self::row(out, row, session.is_some().then_some(prefix.as_str()));
    }
    let _ = write!(out, "</ul>");
    if let Some(report) = &session {
        let _ = write!(
            out,
            "<details class=\"session\" id=\"{p}session\"><summary>The session: <code>{path}</code></summary>",
            p = escape(&prefix),
            path = escape_text(run.session.as_deref().unwrap_or_default())
        );
        session_view(out, &report.session, &prefix);
        let _ = write!(out, "</details>");
    }
}

fn row(out: &mut String, row: &Row, prefix: Option<&str>) {
    let (class, mark) = match (row.skipped, row.passed) {
        (true, _) => ("none", "–"),
        (false, true) => ("ok", "✓"),
        (false, false) => ("failed", "✗"),
    };
    let _ = write!(
        out,
        "<li class=\"row {class}\" data-line=\"{line}\"><span class=\"mark\" aria-hidden=\"true\">{mark}</span>{}",
        escape_text(&row.description),
        line = row.line
    );
    if let (Some(score), Some(g)) = (row.score, &row.grading) {
        let _ = write!(
            out,
            " <span class=\"outcome\">score {score}/10, threshold {}; by {} ({}){}{}</span>",
            g.threshold,
            escape_text(&g.grader),
            escape_text(&g.model),
            if g.borderline { "; borderline" } else { "" },
            if g.cached > 0 {
                "; replayed from the cache"
            } else {
                ""
            }
        );
        if g.samples.len() > 1 {
            let samples: Vec<String> = g.samples.iter().map(ToString::to_string).collect();
            let _ = write!(
                out,
                " <span class=\"size\">samples {}</span>",
                samples.join(", ")
            );
        }
    }
    if let Some(reason) = &row.reason {
        let _ = write!(
            out,
            "<div class=\"reason\">{}</div>",
            linked(reason, prefix)
        );
    }
    let _ = write!(out, "</li>");
}

/// Returns `reason` escaped, its `(line N)` references linked to the calls of the session
/// shown under the rows (ids starting with `prefix`), when one is.
fn linked(reason: &str, prefix: Option<&str>) -> String {
    let Some(prefix) = prefix else {
        return escape_text(reason);
    };
    let mut out = String::new();
    let mut rest = reason;
    while let Some(at) = rest.find("(line ") {
        let after = &rest[at + "(line ".len()..];
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 || !after[digits..].starts_with(')') {
            out.push_str(&escape_text(&rest[..=at]));
            rest = &rest[at + 1..];
            continue;
        }
        let line = &after[..digits];
        out.push_str(&escape_text(&rest[..at]));
        let _ = write!(
            out,
            "<a href=\"#{}line-{line}\">(line {line})</a>",
            escape(prefix)
        );
        rest = &after[digits + 1..];
    }
    out.push_str(&escape_text(rest));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_references_become_links() {
        assert_eq!(
            linked(
                "none succeeded: Bash x [failed] (line 12); (line x) <b>",
                Some("t0-r1-")
            ),
            "none succeeded: Bash x [failed] <a href=\"#t0-r1-line-12\">(line 12)</a>; (line x) &lt;b&gt;"
        );
        assert_eq!(linked("(line 3)", None), "(line 3)");
    }
}
