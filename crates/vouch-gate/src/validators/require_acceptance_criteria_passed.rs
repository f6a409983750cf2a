//! `RequireAcceptanceCriteriaPassedValidator`: every machine-testable criterion was verified
//! by a command whose output showed the expected sentinel.

use std::fmt::Write;

use vouch_evidence::Criterion;

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
/// **Options**: `Validation.BriefPath`, `Validation.ChangeLogPath`.
#[derive(Debug, Clone, Copy)]
pub struct RequireAcceptanceCriteriaPassed;

const NAME: &str = "RequireAcceptanceCriteriaPassedValidator";

impl Predicate for RequireAcceptanceCriteriaPassed {
    fn name(&self) -> &str {
        NAME
    }

    fn turns_needed(&self) -> Option<usize> {
        Some(0)
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
        let outputs: Vec<String> = log
            .session_commands()
            .filter(|c| c.succeeded)
            .map(|c| c.output.to_lowercase())
            .collect();
        let unmet: Vec<(&Criterion, &str)> = brief
            .acceptance_criteria
            .iter()
            .filter_map(|c| Some((c, c.expected_output_contains.as_deref()?)))
            .filter(|(_, sentinel)| {
                let sentinel = sentinel.to_lowercase();
                !outputs.iter().any(|o| o.contains(&sentinel))
            })
            .collect();
        if unmet.is_empty() {
            return Verdict::Pass;
        }
        let mut list = String::new();
        for (c, sentinel) in &unmet {
            let _ = writeln!(list, "✗ {}", c.criterion);
            if let Some(cmd) = &c.test_command {
                let _ = writeln!(list, "Run: {cmd}");
            }
            let _ = writeln!(list, "Expected in output: \"{sentinel}\"");
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
