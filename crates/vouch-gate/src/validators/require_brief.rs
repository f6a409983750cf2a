//! `RequireBrief`: the Planner wrote a complete brief.

use crate::predicate::{GateContext, Predicate, Verdict, blocked_word, fail_closed};

/// Checks that `brief.json` exists at `Validation.BriefPath`, is valid JSON, and has a
/// non-empty `goal`, `files_to_change`, `acceptance_criteria` and `implementation`, in that
/// order, with a message for the first missing piece.
///
/// **Why**: the Developer works from the brief; a Planner that hands off without one hands off
/// nothing.
///
/// **Passes**: a brief with a goal, two files to change, four criteria and an implementation
/// plan. **Blocked**: no brief on disk, or a brief whose `acceptance_criteria` is `[]`.
///
/// **Options**: `Validation.BriefPath` (default `.fuseraft/artifacts/brief.json`).
#[derive(Debug, Clone, Copy)]
pub struct RequireBrief;

const NAME: &str = "RequireBrief";

impl Predicate for RequireBrief {
    fn name(&self) -> &str {
        NAME
    }

    fn evaluate(&self, cx: &GateContext<'_, '_>) -> Verdict {
        let path = cx.view.paths().brief.display().to_string();
        let word = blocked_word(cx.keyword);
        let brief = match cx.view.brief() {
            Ok(Some(brief)) => brief,
            Ok(None) => {
                return Verdict::block(
                    NAME,
                    format!(
                        "{word} blocked: no brief at {path}.\n\
                         Explore the codebase first, then write brief.json with write_file: a one-sentence\n\
                         goal, files_to_change (each with its reason), acceptance_criteria the Tester can\n\
                         verify, and the ordered implementation actions. Then retry the handoff."
                    ),
                );
            }
            Err(
                e @ (vouch_evidence::Error::NotJson { .. } | vouch_evidence::Error::Shape { .. }),
            ) => {
                return Verdict::block(
                    NAME,
                    format!(
                        "{word} blocked: brief.json {}.\nFix the file with write_file, then retry the handoff.",
                        e.detail()
                    ),
                );
            }
            Err(e) => return fail_closed(NAME, cx.keyword, "the brief", e),
        };
        let missing = if brief.goal.trim().is_empty() {
            "brief.json has an empty goal.\nAdd a one-sentence objective to `goal`"
        } else if brief.paths_to_change().next().is_none() {
            "brief.json lists no files_to_change.\nList every file the change must write, each with the reason (`{\"path\": …, \"reason\": …}`)"
        } else if brief
            .acceptance_criteria
            .iter()
            .all(|c| c.criterion.trim().is_empty())
        {
            "brief.json has no acceptance_criteria.\nAdd testable criteria the Tester will verify"
        } else if brief.implementation.is_empty() {
            "brief.json has no implementation.\nAdd the ordered write/patch actions that cover every file in files_to_change"
        } else {
            return Verdict::Pass;
        };
        Verdict::block(
            NAME,
            format!("{word} blocked: {missing}, then retry the handoff."),
        )
    }
}
