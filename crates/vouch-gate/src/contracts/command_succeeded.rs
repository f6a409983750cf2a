//! `CommandSucceeded`: a command matching the pattern succeeded this session.

use vouch_evidence::{Claim, passing_programs};

use crate::alternatives::CommandPattern;
use crate::predicate::{GateContext, Predicate, Verdict, blocked_word, fail_closed};

/// Holds when, for one of the pattern's `|` alternatives, every `&&`-joined part is a
/// case-insensitive substring of a command that succeeded this session — recorded in the change
/// log for the active session, or a shell call of the session. The parts may be met by separate
/// commands.
///
/// **Passes**: `Pattern: "cargo build && cargo test"` after `cargo build` and, later,
/// `cargo test -q` both succeeded. **Blocked**: `cargo test` failed or never ran.
///
/// **Strict** (`Validation.Strict`): only passing runs count (exit 0 with their own status,
/// tests actually run), and the parts are matched against the programs they ran with their
/// status kept, so `echo cargo test` or `cargo test || true` meets no part.
///
/// **Options**: `Pattern`, `Validation.Strict`.
#[derive(Debug, Clone)]
pub struct CommandSucceeded {
    /// What requires it, as messages name it (`contract TestsValid`).
    pub owner: String,
    /// `Pattern`.
    pub pattern: CommandPattern,
    /// `Validation.Strict`.
    pub strict: bool,
}

impl Predicate for CommandSucceeded {
    fn name(&self) -> &'static str {
        "CommandSucceeded"
    }

    fn describe(&self) -> String {
        format!("CommandSucceeded `{}`", self.pattern.as_str())
    }

    fn turns_needed(&self) -> Option<usize> {
        None
    }

    fn evaluate(&self, cx: &GateContext<'_, '_>) -> Verdict {
        let strict_programs: Vec<String>;
        let commands = if self.strict {
            let receipts = match crate::strict::receipts(cx.view, cx.view.all_calls()) {
                Ok(r) => r,
                Err(e) => return fail_closed(self.name(), cx.keyword, "the change log", e),
            };
            strict_programs = receipts
                .kept
                .iter()
                .filter_map(|(r, s)| passing_programs(r, s).ok())
                .flat_map(|programs| {
                    programs
                        .into_iter()
                        .filter(|c| !c.echoes())
                        .map(Claim::text)
                })
                .collect();
            strict_programs.iter().map(String::as_str).collect()
        } else {
            match cx.view.successful_commands() {
                Ok(commands) => commands,
                Err(e) => return fail_closed(self.name(), cx.keyword, "the change log", e),
            }
        };
        match self.pattern.check(commands.iter().copied()) {
            Ok(()) => Verdict::Pass,
            Err(missing) => {
                let missing: Vec<String> = missing.iter().map(|m| format!("`{m}`")).collect();
                Verdict::block(
                    self.name(),
                    format!(
                        "{} blocked: {} requires a successful command matching `{}` this session; \
                         nothing that succeeded matches {}.\n\
                         Run the command with shell_run (exit 0), then retry.",
                        blocked_word(cx.keyword),
                        self.owner,
                        self.pattern.as_str(),
                        missing.join(" and ")
                    ),
                )
            }
        }
    }
}
