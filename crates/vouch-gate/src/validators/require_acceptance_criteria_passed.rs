//! `RequireAcceptanceCriteriaPassedValidator`: every machine-testable criterion was verified
//! by a command whose output showed the expected sentinel.

use std::fmt::Write;

use vouch_evidence::{Criterion, same_file, sentinel_source};

use crate::predicate::{GateContext, Predicate, Verdict, blocked_word, fail_closed};

/// For every acceptance criterion of `brief.json` that has `expected_output_contains`, checks
/// that a successful command recorded in `changes.json` for the active session produced output
/// containing that sentinel (case-insensitive). Criteria without a sentinel are left to the
/// Reviewer. Without a change log there is nothing to check against, and it passes.
///
/// **Why**: a criterion that says what its output must show can be checked mechanically, so it
/// is.
///
/// **Passes**: `kiwi test_include.ki` succeeded with output containing `4.0`.
/// **Blocked**: no successful command's output contains `4.0`; or the brief is missing.
///
/// **Strict** (`Validation.Strict`): the sentinel counts only in the output of a passing run
/// (see [`vouch_evidence::passing_run`]) recorded in the change log or run this turn, whose own
/// text does not hold the sentinel and in which no program prints text the agent chose:
/// `echo`/`printf`, a here-doc, code typed on the command line (`python -c`), or a file the
/// agent wrote this session (`cat out.txt`).
///
/// **Options**: `Validation.BriefPath`, `Validation.ChangeLogPath`, `Validation.Strict`.
#[derive(Debug, Clone, Copy)]
pub struct RequireAcceptanceCriteriaPassed {
    /// `Validation.Strict`.
    pub strict: bool,
}

const NAME: &str = "RequireAcceptanceCriteriaPassedValidator";

impl Predicate for RequireAcceptanceCriteriaPassed {
    fn name(&self) -> &str {
        NAME
    }

    fn turns_needed(&self) -> Option<usize> {
        Some(usize::from(self.strict))
    }

    fn evaluate(&self, cx: &GateContext<'_, '_>) -> Verdict {
        let word = blocked_word(cx.keyword);
        let brief = match cx.view.brief() {
            Ok(Some(brief)) => brief,
            Ok(None) => {
                return Verdict::block(
                    NAME,
                    format!(
                        "{word} blocked: no brief at {}, so the acceptance criteria are unknown.\n\
                         The Planner must write brief.json before this handoff.",
                        cx.view.paths().brief.display()
                    ),
                );
            }
            Err(e) => return fail_closed(NAME, cx.keyword, "the brief", e),
        };
        let log = match cx.view.change_log() {
            Ok(Some(log)) => log,
            Ok(None) => return Verdict::Pass,
            Err(e) => return fail_closed(NAME, cx.keyword, "the change log", e),
        };
        let criteria = brief
            .acceptance_criteria
            .iter()
            .filter_map(|c| Some((c, c.expected_output_contains.as_deref()?)));
        let mut list = String::new();
        if self.strict {
            let receipts = match crate::strict::receipts(cx.view, &cx.view.turn_calls()) {
                Ok(r) => r,
                Err(e) => return fail_closed(NAME, cx.keyword, "the change log", e),
            };
            // Files the agent wrote: by its tools, and by its commands (`echo 4.0 > out.txt`).
            let mut written = match cx.view.written_paths() {
                Ok(w) => w,
                Err(e) => return fail_closed(NAME, cx.keyword, "the change log", e),
            };
            written.extend(
                receipts
                    .kept
                    .iter()
                    .flat_map(|(_, s)| s.writes().iter().map(String::as_str)),
            );
            let is_written = |p: &str| written.iter().any(|w| same_file(w, p));
            // Each output lowercased once, not once per criterion.
            let outputs: Vec<String> = receipts
                .kept
                .iter()
                .map(|(r, _)| r.full_output().to_lowercase())
                .collect();
            for (c, sentinel) in criteria {
                let needle = sentinel.to_lowercase();
                let mut rejected = String::new();
                let mut met = false;
                for ((receipt, script), output) in receipts.kept.iter().zip(&outputs) {
                    if !output.contains(&needle) {
                        continue;
                    }
                    match sentinel_source(receipt, script, sentinel, &is_written) {
                        Ok(()) => {
                            met = true;
                            break;
                        }
                        Err(why) => {
                            let _ = writeln!(rejected, "- {receipt} does not count: {why}");
                        }
                    }
                }
                if !met {
                    unmet_lines(&mut list, c, sentinel);
                    if !rejected.is_empty() {
                        let _ = write!(list, "Rejected (strict evidence):\n{rejected}");
                    }
                }
            }
            if !list.is_empty() {
                list.push_str(&crate::strict::ignored_lines(&receipts));
            }
        } else {
            let outputs: Vec<String> = log
                .session_commands()
                .filter(|c| c.succeeded)
                .map(|c| c.output.to_lowercase())
                .collect();
            for (c, sentinel) in criteria {
                let needle = sentinel.to_lowercase();
                if !outputs.iter().any(|o| o.contains(&needle)) {
                    unmet_lines(&mut list, c, sentinel);
                }
            }
        }
        if list.is_empty() {
            return Verdict::Pass;
        }
        Verdict::block(
            NAME,
            format!(
                "{word} blocked: the following acceptance criteria have not been verified by a passing shell command this session:\n\
                 {list}\
                 Run the indicated command(s), confirm the expected output appears, then retry the handoff."
            ),
        )
    }
}

/// Appends a criterion the gate found unmet, with its command and sentinel.
fn unmet_lines(list: &mut String, c: &Criterion, sentinel: &str) {
    let _ = writeln!(list, "✗ {}", c.criterion);
    if let Some(cmd) = &c.test_command {
        let _ = writeln!(list, "Run: {cmd}");
    }
    let _ = writeln!(list, "Expected in output: \"{sentinel}\"");
}
