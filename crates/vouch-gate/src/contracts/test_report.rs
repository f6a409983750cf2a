//! `TestReport`: the test report has no failures, and every PASS is backed by a real run.

use vouch_evidence::TestResultRow;

use crate::backing::backs;
use crate::predicate::{GateContext, Predicate, Verdict, blocked_word, fail_closed};

/// Reads the test report (`Validation.TestReportPath`); with `NoFailures`, holds when no result
/// is FAIL; with `HasAssertions`, when every PASS row names a command backed by a command that
/// succeeded this session (recorded in the change log, or a shell call of the session) — the
/// backing rule of `TestReportValid`'s check 8, applied row by row.
///
/// **Passes**: two PASS rows whose commands both ran and passed. **Blocked**: a FAIL row, or a
/// PASS row whose command never ran.
///
/// **Strict** (`Validation.Strict`): a PASS row is backed only by a passing run of the same
/// command (see [`vouch_evidence::backing`]).
///
/// **Options**: `NoFailures` (default true), `HasAssertions` (default true),
/// `Validation.Strict`.
#[derive(Debug, Clone)]
pub struct TestReportPredicate {
    /// What requires it, as messages name it (`contract TestsValid`).
    pub owner: String,
    /// `NoFailures`.
    pub no_failures: bool,
    /// `HasAssertions`.
    pub has_assertions: bool,
    /// `Validation.Strict`.
    pub strict: bool,
}

impl Predicate for TestReportPredicate {
    fn name(&self) -> &'static str {
        "TestReport"
    }

    fn turns_needed(&self) -> Option<usize> {
        if self.has_assertions { None } else { Some(0) }
    }

    fn evaluate(&self, cx: &GateContext<'_, '_>) -> Verdict {
        let kw = cx.keyword;
        let word = blocked_word(kw);
        let report = match cx.view.test_report() {
            Ok(Some(report)) => report,
            Ok(None) => {
                return Verdict::block(
                    self.name(),
                    format!(
                        "{word} blocked: {} requires a test report at {}, and there is none.\nRun the tests, write the report, then retry.",
                        self.owner,
                        cx.view.paths().test_report.display()
                    ),
                );
            }
            Err(e) => return fail_closed(self.name(), kw, "the test report", e),
        };
        let list = |rows: &[&TestResultRow]| -> String {
            rows.iter()
                .map(|r| match r.command.trim() {
                    "" => format!("✗ {} — no command given\n", r.criterion),
                    c => format!("✗ {} — `{c}`\n", r.criterion),
                })
                .collect()
        };
        if self.no_failures {
            let failing: Vec<&TestResultRow> =
                report.results.iter().filter(|r| r.failed()).collect();
            if !failing.is_empty() {
                return Verdict::block(
                    self.name(),
                    format!(
                        "{word} blocked: {} requires a test report without failures; {} result(s) FAIL:\n{}Fix them before handing off.",
                        self.owner,
                        failing.len(),
                        list(&failing)
                    ),
                );
            }
        }
        if self.has_assertions && self.strict {
            let receipts = match crate::strict::receipts(cx.view, cx.view.all_calls()) {
                Ok(r) => r,
                Err(e) => return fail_closed(self.name(), kw, "the change log", e),
            };
            let (count, unbacked) = crate::strict::unbacked_rows(
                report.results.iter().filter(|r| r.passed()),
                &receipts,
            );
            if count > 0 {
                return Verdict::block(
                    self.name(),
                    format!(
                        "{word} blocked: {} requires every PASS to be backed by a passing run of the same command this session; {count} PASS result(s) are not:\n{unbacked}{}\
                         Run each command with shell_run exactly as the report names it, then write the report again.",
                        self.owner,
                        crate::strict::ignored_lines(&receipts)
                    ),
                );
            }
        } else if self.has_assertions {
            let commands = match cx.view.successful_commands() {
                Ok(commands) => commands,
                Err(e) => return fail_closed(self.name(), kw, "the change log", e),
            };
            let unbacked: Vec<&TestResultRow> = report
                .results
                .iter()
                .filter(|r| r.passed())
                .filter(|r| {
                    let c = r.command.trim();
                    c.is_empty() || !commands.iter().any(|run| backs(run, c))
                })
                .collect();
            if !unbacked.is_empty() {
                return Verdict::block(
                    self.name(),
                    format!(
                        "{word} blocked: {} requires every PASS to be backed by a command that ran and succeeded this session; {} PASS result(s) are not:\n{}\
                         Run each command with shell_run, put it in 'command', and write the report again.",
                        self.owner,
                        unbacked.len(),
                        list(&unbacked)
                    ),
                );
            }
        }
        Verdict::Pass
    }
}
