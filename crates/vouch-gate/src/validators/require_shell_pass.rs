//! `RequireShellPass`: a shell command passed this turn.

use crate::alternatives::Alternatives;
use crate::predicate::{GateContext, Predicate, Verdict, blocked_word};

/// Checks that at least one shell call of the current turn (the events after the most recent
/// user message) completed successfully and, with `RequiredCommandPattern`, that its command
/// matches one of the pattern's alternatives. Calls of subagents started this turn count.
///
/// **Why**: "I built it and the tests pass" is a claim; a passing `shell_run` in the same turn
/// is the evidence. Runs of earlier turns do not carry forward.
///
/// **Passes**: this turn ran `go test ./...` and it exited 0 (pattern `go build|go test`).
/// **Blocked**: this turn ran only `go mod tidy`, or its `go test` failed, or it ran nothing.
///
/// **Options**: `RequiredCommandPattern` on the route: pipe-separated alternatives, each a
/// case-insensitive substring of the command.
#[derive(Debug, Clone)]
pub struct RequireShellPass {
    /// The route's `RequiredCommandPattern`.
    pub pattern: Option<Alternatives>,
}

const NAME: &str = "RequireShellPass";

impl Predicate for RequireShellPass {
    fn name(&self) -> &str {
        NAME
    }

    fn evaluate(&self, cx: &GateContext<'_, '_>) -> Verdict {
        let passed = cx.view.turn_shell_runs().iter().any(|run| {
            run.succeeded()
                && self
                    .pattern
                    .as_ref()
                    .is_none_or(|p| run.call.command().is_some_and(|c| p.matches(c)))
        });
        if passed {
            return Verdict::Pass;
        }
        let what = match &self.pattern {
            Some(p) => format!("no matching ({p}) shell_run passed this turn"),
            None => "no shell_run passed this turn".to_owned(),
        };
        let last = if blocked_word(cx.keyword) == "Handoff" {
            "2. Emit the handoff keyword in the same response."
        } else {
            "2. Then finish your response again."
        };
        Verdict::block(
            NAME,
            format!(
                "{} blocked: {what}.\n\
                 The validator checks THIS TURN ONLY — prior-turn runs do not carry forward.\n\
                 1. Call shell_run to run the required command (exit 0).\n\
                 {last}",
                blocked_word(cx.keyword)
            ),
        )
    }
}
