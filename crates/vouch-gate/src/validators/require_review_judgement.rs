//! `RequireReviewJudgement`: the Reviewer judged every criterion, and backed PASS by a run.

use vouch_evidence::{Review, ReviewEntry};

use crate::predicate::{GateContext, Predicate, Verdict, fail_closed};

/// Reads the Reviewer's last message of the current turn for a `{"review": [...]}` block
/// (in a ```` ```json ```` fence, or bare) and enforces, in order:
///
/// 1. the block exists and has at least one entry with a non-empty `criterion`, `verdict` and
///    `evidence`;
/// 2. no entry has `verdict: FAIL`;
/// 3. when `brief.json` exists, the review has at least as many entries as its
///    `acceptance_criteria`;
/// 4. when any entry says PASS, a shell command succeeded this turn.
///
/// **Why**: "APPROVED" with no per-criterion reasoning, or with PASS verdicts nobody ran
/// anything to reach, is not a review.
///
/// **Passes**: a fenced block with one PASS entry per criterion, after `cargo test` passed in
/// the same turn. **Blocked**: `APPROVED` alone, or a FAIL entry, or PASS without a run.
///
/// **Options**: `Validation.BriefPath` (coverage).
#[derive(Debug, Clone, Copy)]
pub struct RequireReviewJudgement;

const NAME: &str = "RequireReviewJudgement";

impl Predicate for RequireReviewJudgement {
    fn name(&self) -> &str {
        NAME
    }

    fn evaluate(&self, cx: &GateContext<'_, '_>) -> Verdict {
        let kw = cx.keyword;
        let review = cx.view.last_assistant_text().and_then(Review::find);
        let entries: Vec<&ReviewEntry> = review
            .as_ref()
            .map(|r| r.review.iter().collect())
            .unwrap_or_default();
        if !entries.iter().any(|e| e.is_complete()) {
            return Verdict::block(
                NAME,
                format!(
                    "{kw} blocked: response has no structured review block.\n\
                     Add a ```json block before {kw}:\n\
                     {{ \"review\": [{{ \"criterion\": \"...\", \"verdict\": \"PASS\", \"evidence\": \"...\" }}] }}\n\
                     Cover every acceptance criterion. Use PASS or FAIL. Then write {kw} on its own line."
                ),
            );
        }
        let failing: Vec<&&ReviewEntry> = entries.iter().filter(|e| e.failed()).collect();
        if !failing.is_empty() {
            let list: String = failing
                .iter()
                .map(|e| format!("✗ {}\n", e.criterion))
                .collect();
            return Verdict::block(
                NAME,
                format!(
                    "{kw} blocked: review contains FAIL verdict(s).\n\
                     Fix the failing criteria before writing {kw}, or route\n\
                     REVISION REQUIRED so the developer can address them.\n\
                     Failing:\n{}",
                    list.trim_end()
                ),
            );
        }
        match cx.view.brief() {
            Ok(Some(brief)) if entries.len() < brief.acceptance_criteria.len() => {
                return Verdict::block(
                    NAME,
                    format!(
                        "{kw} blocked: the review covers {} criterion/criteria but brief.json lists {}.\n\
                         Add one review entry per acceptance criterion — every criterion must be explicitly\n\
                         addressed with its own verdict and evidence.",
                        entries.len(),
                        brief.acceptance_criteria.len()
                    ),
                );
            }
            Ok(_) => {}
            Err(e) => return fail_closed(NAME, kw, "the brief", e),
        }
        if entries.iter().any(|e| e.passed())
            && !cx
                .view
                .turn_shell_runs()
                .iter()
                .any(vouch_evidence::Call::succeeded)
        {
            return Verdict::block(
                NAME,
                format!(
                    "{kw} blocked: review contains PASS verdicts but no shell command was\n\
                     successfully run this turn.\n\
                     Code inspection alone is not sufficient — the Reviewer must execute something\n\
                     to confirm behavioral correctness:\n\
                     1. Run a verification command with shell_run:\n\
                     • Build: shell_run(\"dotnet build\") / etc.\n\
                     • Tests: shell_run(\"dotnet test\") / etc.\n\
                     • Run-it: shell_run(\"kiwi test.ki\") or equivalent.\n\
                     2. Update 'evidence' fields to describe what you ran and what you observed.\n\
                     3. Re-emit the ```json review block followed by {kw} on its own line."
                ),
            );
        }
        Verdict::Pass
    }
}
