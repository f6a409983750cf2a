//! `BlockOnConsecutiveFail`: an agent that failed the same way three turns running may not
//! hand off.

use crate::alternatives::Alternatives;
use crate::predicate::{GateContext, Predicate, Verdict, blocked_word};

/// How many consecutive failing turns block.
const TURNS: usize = 3;

/// Checks the last three turns (the current one included): when each of them ran at least one
/// matching shell command and every matching command of each failed, the handoff is blocked.
/// Commands match the route's `RequiredCommandPattern`; without one, every shell command
/// matches. Fewer than three turns pass.
///
/// **Why**: an agent whose build has failed three turns in a row and that now hands off is
/// handing off a failure.
///
/// **Passes**: `cargo test` failed twice, then passed this turn. **Blocked**: it failed in each
/// of the last three turns.
///
/// **Options**: `RequiredCommandPattern` on the route.
#[derive(Debug, Clone)]
pub struct BlockOnConsecutiveFail {
    /// The route's `RequiredCommandPattern`.
    pub pattern: Option<Alternatives>,
}

const NAME: &str = "BlockOnConsecutiveFail";

impl Predicate for BlockOnConsecutiveFail {
    fn name(&self) -> &str {
        NAME
    }

    fn turns_needed(&self) -> Option<usize> {
        Some(TURNS)
    }

    fn evaluate(&self, cx: &GateContext<'_, '_>) -> Verdict {
        let turns = cx.view.turns_from_last();
        if turns.len() < TURNS {
            return Verdict::Pass;
        }
        let mut last_failure = None;
        for calls in turns.iter().take(TURNS) {
            let matching: Vec<_> = calls
                .iter()
                .filter(|c| c.call.kind == vouch_session::ToolKind::Shell)
                .filter(|c| {
                    self.pattern
                        .as_ref()
                        .is_none_or(|p| c.call.command().is_some_and(|cmd| p.matches(cmd)))
                })
                .collect();
            if matching.is_empty() || matching.iter().any(|c| c.succeeded()) {
                return Verdict::Pass;
            }
            if last_failure.is_none() {
                last_failure = matching.last().map(|c| {
                    let outcome = c
                        .result
                        .map_or_else(|| "no result".to_owned(), |r| r.outcome.label());
                    format!("{} ({outcome})", c.call.command().unwrap_or(&c.call.name))
                });
            }
        }
        let what = self.pattern.as_ref().map_or_else(
            || "shell commands".to_owned(),
            |p| format!("({p}) commands"),
        );
        Verdict::block(
            NAME,
            format!(
                "{} blocked: matching {what} failed in each of the last {TURNS} turns.\n\
                 The same approach is not working. Read the error output, change what you do, and make\n\
                 the command pass before handing off. The last failure:\n✗ {}",
                blocked_word(cx.keyword),
                last_failure.unwrap_or_default()
            ),
        )
    }
}
