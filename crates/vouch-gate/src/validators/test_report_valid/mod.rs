//! `TestReportValid`: the Tester's report is complete, passing, and backed by real commands.

use regex::Regex;
use vouch_evidence::{Error, TestResultRow, strip_comments};

use crate::backing::backs;
use crate::predicate::{GateContext, Predicate, Verdict, fail_closed};
use crate::strict;

mod weakened;

/// Checks the test report, in the spec's order, and blocks at the first check that fails:
///
/// 1. `test-report.json` exists at `Validation.TestReportPath`;
/// 2. it is valid JSON with at least one entry in `results`;
/// 3. no result has `status: FAIL`;
/// 4. no PASS result has an empty `command` (fabrication guard);
///
///    4b. no PASS result's `command` is a tool call (`FileSystem-read_file path=…`) rather
///    than a shell command;
/// 5. `fake_test_files` is empty or absent;
/// 6. there are at least as many results as `brief.json` has acceptance criteria (when the
///    brief exists);
/// 7. every test file of the brief's `files_to_change` (a path containing `test`) matches one
///    of `TestAssertionPatterns` (static fake-test detection);
/// 8. when the change log exists, every PASS result is backed by a command it recorded for the
///    active session: if no command succeeded at all, every PASS is unverifiable; otherwise each
///    PASS command of 8 characters or more must share a significant token with, or be a
///    substring of, a command that succeeded.
///
/// **Why**: a Tester can write "PASS" without running anything. Each check closes one way of
/// doing so.
///
/// **Passes**: four PASS results for four criteria, each naming `cargo test …` commands the
/// change log recorded as succeeded. **Blocked**: a PASS whose command is `""`, or one the change
/// log never saw.
///
/// **Strict** (`Validation.Strict`): check 7 matches the patterns with comments removed and
/// also blocks a test file (of the brief, or written this session) with fewer assertion
/// matches than at git `HEAD` (or than its first version written this session); check 8
/// takes a PASS as backed only by a passing run of the same command — recorded in the change
/// log or run this turn, exit 0 with its own status, tests actually run (see
/// [`vouch_evidence::backing`]).
///
/// **Options**: `Validation.TestReportPath`, `Validation.BriefPath`,
/// `Validation.ChangeLogPath`, `Validation.TestAssertionPatterns`, `Validation.Strict`.
#[derive(Debug, Clone)]
pub struct TestReportValid {
    /// `Validation.TestAssertionPatterns`.
    pub assertion_patterns: Vec<Regex>,
    /// `Validation.Strict`.
    pub strict: bool,
}

pub(super) const NAME: &str = "TestReportValid";

impl Predicate for TestReportValid {
    fn name(&self) -> &str {
        NAME
    }

    fn turns_needed(&self) -> Option<usize> {
        // Strict mode also reads the current turn's commands and writes.
        Some(usize::from(self.strict))
    }

    fn evaluate(&self, cx: &GateContext<'_, '_>) -> Verdict {
        let kw = cx.keyword;
        let block = |message: String| Verdict::block(NAME, message);
        // Checks 1 and 2: the report exists and parses, with results.
        let report = match cx.view.test_report() {
            Ok(Some(report)) => report,
            Ok(None) => {
                return block(format!(
                    "{kw} blocked: no test report at {}.\n\
                     Run the tests with shell_run, then write test-report.json with write_file: one entry\n\
                     per acceptance criterion, with its criterion, status (PASS or FAIL) and the exact\n\
                     command that verified it.",
                    cx.view.paths().test_report.display()
                ));
            }
            Err(e @ (Error::NotJson { .. } | Error::Shape { .. })) => {
                return block(format!(
                    "{kw} blocked: test-report.json {}.\nFix the file with write_file, then retry the handoff.",
                    e.detail()
                ));
            }
            Err(e) => return fail_closed(NAME, kw, "the test report", e),
        };
        if report.results.is_empty() {
            return block(format!(
                "{kw} blocked: test-report.json has no results.\nAdd one entry per acceptance criterion, then retry the handoff."
            ));
        }
        // Check 3: no FAIL.
        let failing: Vec<&TestResultRow> = report.results.iter().filter(|r| r.failed()).collect();
        if !failing.is_empty() {
            return block(format!(
                "{kw} blocked: test-report.json has {} FAIL result(s).\n\
                 Fix the failures (or route them back to the developer) before handing off.\n\
                 Failing:\n{}",
                failing.len(),
                list(failing.iter().map(|r| r.criterion.as_str()))
            ));
        }
        let passes: Vec<&TestResultRow> = report.results.iter().filter(|r| r.passed()).collect();
        // Check 4: every PASS names a command.
        let unbacked: Vec<&TestResultRow> = passes
            .iter()
            .copied()
            .filter(|r| r.command.trim().is_empty())
            .collect();
        if !unbacked.is_empty() {
            return block(format!(
                "{kw} blocked: {} PASS result(s) have an empty command.\n\
                 A PASS must name the exact shell command that verified it — an empty command\n\
                 is rejected as fabricated. Run the test with shell_run and put that command in\n\
                 'command'.\nMissing a command:\n{}",
                unbacked.len(),
                list(unbacked.iter().map(|r| r.criterion.as_str()))
            ));
        }
        // Check 4b: no PASS backed by a tool call.
        let tool_calls: Vec<&TestResultRow> = passes
            .iter()
            .copied()
            .filter(|r| is_tool_call(&r.command))
            .collect();
        if !tool_calls.is_empty() {
            return block(format!(
                "{kw} blocked: {} PASS result(s) name a tool call, not a shell command.\n\
                 A test result must be backed by a real shell command, not a file read. Run the\n\
                 test with shell_run and put that command in 'command'.\n{}",
                tool_calls.len(),
                list(tool_calls.iter().map(|r| format!(
                    "{} — `{}`",
                    r.criterion,
                    r.command.trim()
                )))
            ));
        }
        // Check 5: no fake test files.
        let fakes: Vec<&str> = report
            .fake_test_files
            .iter()
            .map(String::as_str)
            .filter(|f| !f.trim().is_empty())
            .collect();
        if !fakes.is_empty() {
            return block(format!(
                "{kw} blocked: test-report.json lists {} fake test file(s):\n{}\
                 Add real assertions to each, then clear fake_test_files.",
                fakes.len(),
                list(fakes.iter().copied())
            ));
        }
        // Checks 6 and 7 read the brief, when it exists.
        let brief = match cx.view.brief() {
            Ok(brief) => brief,
            Err(e) => return fail_closed(NAME, kw, "the brief", e),
        };
        if let Some(brief) = brief {
            let criteria = brief.acceptance_criteria.len();
            if report.results.len() < criteria {
                return block(format!(
                    "{kw} blocked: test-report.json has {} result(s) but brief.json lists {criteria} acceptance criteria.\n\
                     Add one result per acceptance criterion — every criterion must be tested.",
                    report.results.len()
                ));
            }
            let mut hollow = Vec::new();
            for path in brief.paths_to_change().filter(|p| self.is_test_file(p)) {
                let full = cx.view.resolve(std::path::Path::new(path));
                match std::fs::read_to_string(&full) {
                    Ok(text) if self.asserts(path, &text) => {}
                    Ok(_) => hollow.push(path.to_owned()),
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                        hollow.push(format!("{path} (not found)"));
                    }
                    Err(e) => return fail_closed(NAME, kw, &format!("the test file {path}"), &e),
                }
            }
            if !hollow.is_empty() {
                let patterns: Vec<&str> =
                    self.assertion_patterns.iter().map(Regex::as_str).collect();
                return block(format!(
                    "{kw} blocked: these test files from brief.json contain no assertion:\n{}\
                     A test must assert something; print statements are not tests. Add assertions\n\
                     (any of: {}), then retry the handoff.",
                    list(hollow.iter().map(String::as_str)),
                    patterns.join(", ")
                ));
            }
        }
        if self.strict {
            if let Some(verdict) = weakened::check(self, cx, brief) {
                return verdict;
            }
            return strict_backing(cx, &passes);
        }
        // Check 8: PASS commands are backed by the change log.
        let log = match cx.view.change_log() {
            Ok(Some(log)) => log,
            Ok(None) => return Verdict::Pass,
            Err(e) => return fail_closed(NAME, kw, "the change log", e),
        };
        let succeeded: Vec<&str> = log
            .session_commands()
            .filter(|c| c.succeeded)
            .map(|c| c.command.as_str())
            .collect();
        if succeeded.is_empty() && !passes.is_empty() {
            return block(format!(
                "{kw} blocked: {} PASS result(s) but no shell commands recorded. Run tests with shell_run before handing off.",
                passes.len()
            ));
        }
        let unverified: Vec<&str> = passes
            .iter()
            .map(|r| r.command.trim())
            .filter(|c| c.chars().count() >= 8 && !succeeded.iter().any(|s| backs(s, c)))
            .collect();
        if unverified.is_empty() {
            return Verdict::Pass;
        }
        let recorded: String = log
            .session_commands()
            .map(|c| format!("- {}\n", c.command))
            .collect();
        block(
            format!(
                "{kw} blocked: {} PASS result(s) not found in the change log.\n\
             Each PASS must be backed by a real shell_run this session:\n\
             1. shell_run the command.\n\
             2. Update 'command' in test-report.json.\n\
             3. write_file the report.\n\
             Unverified:\n{}\
             Commands recorded in changes.json for this session:\n{}",
                unverified.len(),
                list(unverified.iter().copied()),
                if recorded.is_empty() {
                    "(none)\n".to_owned()
                } else {
                    recorded
                }
            )
            .trim_end()
            .to_owned(),
        )
    }
}

impl TestReportValid {
    /// Returns true when `text` (of the file at `path`) matches an assertion pattern — with
    /// its comments removed, in strict mode.
    fn asserts(&self, path: &str, text: &str) -> bool {
        self.assertion_count(path, text) > 0
    }

    /// Returns true when check 7 reads `path` as a test file: a path containing `test` — or,
    /// in strict mode, `spec` too (`spec/calc_spec.rb`, `calc.spec.js`).
    fn is_test_file(&self, path: &str) -> bool {
        let path = path.to_lowercase();
        path.contains("test") || (self.strict && path.contains("spec"))
    }

    /// Returns how many assertion-pattern matches `text` holds — in strict mode, with its
    /// comments removed and its import lines aside (`import { expect } from 'vitest'` is not
    /// an assertion).
    fn assertion_count(&self, path: &str, text: &str) -> usize {
        let stripped;
        let text = if self.strict {
            stripped = without_imports(&strip_comments(path, text));
            stripped.as_str()
        } else {
            text
        };
        self.assertion_patterns
            .iter()
            .map(|re| re.find_iter(text).count())
            .sum()
    }
}

/// Check 8, strict: every PASS names a command a passing run of which was recorded.
fn strict_backing(cx: &GateContext<'_, '_>, passes: &[&TestResultRow]) -> Verdict {
    let kw = cx.keyword;
    let receipts = match strict::receipts(cx.view, &cx.view.turn_calls()) {
        Ok(r) => r,
        Err(e) => return fail_closed(NAME, kw, "the change log", e),
    };
    let (count, unverified) = strict::unbacked_rows(passes.iter().copied(), &receipts);
    if count == 0 {
        return Verdict::Pass;
    }
    Verdict::block(
        NAME,
        format!(
            "{kw} blocked: {count} PASS result(s) not backed by a passing run of the same command.\n\
             Strict evidence counts a PASS only when this session ran exactly its command, and that\n\
             run exited 0 with its own status (no `|| true`, `; exit 0`, `&`, or pipe without\n\
             pipefail) and ran at least one test:\n\
             1. shell_run the command as the report names it.\n\
             2. Update 'command' in test-report.json.\n\
             3. write_file the report.\n\
             Unverified:\n{unverified}{}",
            strict::ignored_lines(&receipts)
        )
        .trim_end()
        .to_owned(),
    )
}

/// Returns `text` without the lines that import or include code: their names are not
/// assertions.
fn without_imports(text: &str) -> String {
    const STARTS: [&str; 8] = [
        "import ", "import{", "from ", "use ", "#include", "using ", "require ", "package ",
    ];
    text.lines()
        .filter(|line| {
            let l = line.trim_start();
            !(STARTS.iter().any(|s| l.starts_with(s))
                || l.contains("= require(")
                || l.starts_with("require(")
                || l.starts_with("require_relative"))
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Returns `✗ item` lines.
fn list<S: AsRef<str>>(items: impl Iterator<Item = S>) -> String {
    items.map(|i| format!("✗ {}\n", i.as_ref())).collect()
}

/// Returns true when a report's `command` is a tool call: a plugin-function name
/// (`FileSystem-read_file`) or a tool name (`read_file`) with `key=value` arguments.
fn is_tool_call(command: &str) -> bool {
    let Some(first) = command.split_whitespace().next() else {
        return false;
    };
    const TOOLS: &[&str] = &[
        "read_file",
        "write_file",
        "patch_file",
        "list_directory",
        "list_dir",
        "search_files",
        "shell_run",
        "git_commit",
    ];
    let plugin_function = first.split_once('-').is_some_and(|(plugin, function)| {
        plugin.chars().next().is_some_and(char::is_uppercase)
            && plugin.chars().all(|c| c.is_ascii_alphanumeric())
            && !function.is_empty()
            && function
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
    });
    plugin_function || TOOLS.iter().any(|t| first.eq_ignore_ascii_case(t))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_calls_are_told_from_shell_commands() {
        assert!(is_tool_call("FileSystem-read_file path=src/lib.rs"));
        assert!(is_tool_call("read_file src/lib.rs"));
        assert!(!is_tool_call("cargo test -- --nocapture"));
        assert!(!is_tool_call("pre-commit run"));
        assert!(!is_tool_call(""));
    }
}
