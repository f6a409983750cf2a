//! `RequireShellPass`: a shell command passed this turn.

use std::fmt::Write;

use vouch_evidence::{Rejection, passing_programs, passing_run};

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
/// **Strict** (`Validation.Strict`): the run must also be a passing run in the strict sense
/// (exit 0 with its own status, tests actually run, a result of its own), and the pattern
/// must match a program it ran with its status kept — not `echo go test`.
///
/// **Options**: `RequiredCommandPattern` on the route: pipe-separated alternatives, each a
/// case-insensitive substring of the command; `Validation.Strict`.
#[derive(Debug, Clone)]
pub struct RequireShellPass {
    /// The route's `RequiredCommandPattern`.
    pub pattern: Option<Alternatives>,
    /// `Validation.Strict`.
    pub strict: bool,
}

const NAME: &str = "RequireShellPass";

impl Predicate for RequireShellPass {
    fn name(&self) -> &str {
        NAME
    }

    fn evaluate(&self, cx: &GateContext<'_, '_>) -> Verdict {
        if self.strict {
            return self.strict_evaluate(cx);
        }
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
        self.block(cx, "")
    }
}

impl RequireShellPass {
    /// Strict mode: a shell call of this turn is a passing run, and the pattern matches a
    /// program it ran with its status kept.
    fn strict_evaluate(&self, cx: &GateContext<'_, '_>) -> Verdict {
        let receipts = cx.view.call_receipts(&cx.view.turn_shell_runs());
        let mut rejected = String::new();
        for (receipt, script) in &receipts.kept {
            // With a pattern, the matching program must have passed; without, the whole
            // command's status must be its own.
            let verdict = match &self.pattern {
                None => passing_run(receipt, script),
                Some(p) if !p.matches(&receipt.run.command) => continue,
                Some(p) => passing_programs(receipt, script).and_then(|programs| {
                    if programs.iter().any(|c| !c.echoes() && p.matches(&c.text())) {
                        Ok(())
                    } else {
                        Err(script
                            .claims()
                            .iter()
                            .find(|c| p.matches(&c.text()) && c.masked.is_some())
                            .map_or_else(
                                || Rejection::Prints {
                                    program: receipt.run.command.clone(),
                                    what: "mentions the command without running it",
                                },
                                |c| Rejection::Masked {
                                    program: c.text(),
                                    reason: c.masked.clone().unwrap_or_default(),
                                },
                            ))
                    }
                }),
            };
            match verdict {
                Ok(()) => return Verdict::Pass,
                Err(why) => {
                    let _ = writeln!(rejected, "- {receipt} does not count: {why}");
                }
            }
        }
        let mut extra = String::new();
        if !rejected.is_empty() {
            extra = format!("Rejected (strict evidence):\n{rejected}");
        }
        extra.push_str(&crate::strict::ignored_lines(&receipts));
        self.block(cx, &extra)
    }

    /// Returns the block, with `extra` lines (rejected receipts) after the steps.
    fn block(&self, cx: &GateContext<'_, '_>, extra: &str) -> Verdict {
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
                 {last}\n{extra}",
                blocked_word(cx.keyword)
            )
            .trim_end()
            .to_owned(),
        )
    }
}
