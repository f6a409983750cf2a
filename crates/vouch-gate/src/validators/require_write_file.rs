//! `RequireWriteFile`: real work was written this turn.

use vouch_session::ToolKind;

use crate::alternatives::Alternatives;
use crate::predicate::{GateContext, Predicate, Verdict, blocked_word};

/// Checks that a `write_file`, `patch_file` or `git_commit` call completed successfully in the
/// current turn — or, with `ShellFallbackPattern`, that a shell command matching the pattern
/// did. A failed shell command never counts, whatever the pattern.
///
/// **Why**: code blocks in a reply are not saved to disk. An agent that describes a change
/// without calling a write tool has changed nothing.
///
/// **Passes**: this turn called `Edit` on `src/lib.rs` and it succeeded; or, with
/// `ShellFallbackPattern: "npm install"`, it ran `npm install left-pad` successfully.
/// **Blocked**: this turn only printed a diff in its reply.
///
/// **Options**: `ShellFallbackPattern` on the route.
#[derive(Debug, Clone)]
pub struct RequireWriteFile {
    /// The route's `ShellFallbackPattern`.
    pub shell_fallback: Option<Alternatives>,
}

const NAME: &str = "RequireWriteFile";

impl Predicate for RequireWriteFile {
    fn name(&self) -> &str {
        NAME
    }

    fn evaluate(&self, cx: &GateContext<'_, '_>) -> Verdict {
        let calls = cx.view.turn_calls();
        let wrote = calls.iter().any(|c| {
            matches!(
                c.call.kind,
                ToolKind::WriteFile | ToolKind::PatchFile | ToolKind::GitCommit
            ) && c.succeeded()
        });
        let fallback = self.shell_fallback.as_ref().is_some_and(|p| {
            calls.iter().any(|c| {
                c.call.kind == ToolKind::Shell
                    && c.succeeded()
                    && c.call.command().is_some_and(|cmd| p.matches(cmd))
            })
        });
        if wrote || fallback {
            return Verdict::Pass;
        }
        Verdict::block(
            NAME,
            format!(
                "{} blocked: no evidence of real work this turn\n\
                 (no write_file, no patch_file, no git_commit, no shell fallback matched).\n\
                 You must write at least one file before handing off. Use write_file for new files\n\
                 or patch_file for surgical edits to existing files. Code blocks in your response\n\
                 are NOT saved to disk — you must call the tool.",
                blocked_word(cx.keyword)
            ),
        )
    }
}
