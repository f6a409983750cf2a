//! `CommandSucceeded`: a command matching the pattern succeeded this session.

use std::fmt::Write;

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
/// With `PatternField` (fuseraft's spelling), the pattern is the text of that field of a JSON
/// artifact (`PatternSource`, default `Validation.BriefPath`) — the command the planner wrote —
/// read when the gate runs; `Pattern` is the fallback when the file or the field is missing.
///
/// **Options**: `Pattern`, `PatternField`, `PatternSource`, `Validation.Strict`.
#[derive(Debug, Clone)]
pub struct CommandSucceeded {
    /// What requires it, as messages name it (`contract TestsValid`).
    pub owner: String,
    /// `Pattern`: the pattern, or the fallback of `field`.
    pub pattern: Option<CommandPattern>,
    /// `PatternSource` and `PatternField`: where the pattern is read.
    pub field: Option<(std::path::PathBuf, String)>,
    /// `Validation.Strict`.
    pub strict: bool,
}

impl Predicate for CommandSucceeded {
    fn name(&self) -> &'static str {
        "CommandSucceeded"
    }

    fn describe(&self) -> String {
        match (&self.field, &self.pattern) {
            (Some((source, field)), _) => {
                format!("CommandSucceeded `{field}` of {}", source.display())
            }
            (None, Some(p)) => format!("CommandSucceeded `{}`", p.as_str()),
            (None, None) => "CommandSucceeded".to_owned(),
        }
    }

    fn turns_needed(&self) -> Option<usize> {
        None
    }

    fn evaluate(&self, cx: &GateContext<'_, '_>) -> Verdict {
        let pattern = match self.pattern_now(cx) {
            Ok(p) => p,
            Err(block) => return block,
        };
        let pattern = &pattern;
        let mut strict_programs: Vec<String> = Vec::new();
        let mut rejected = String::new();
        let commands = if self.strict {
            let receipts = match crate::strict::receipts(cx.view, cx.view.all_calls()) {
                Ok(r) => r,
                Err(e) => return fail_closed(self.name(), cx.keyword, "the change log", e),
            };
            for (receipt, script) in &receipts.kept {
                let mentioned = pattern.mentioned_in(&receipt.run.command);
                match passing_programs(receipt, script) {
                    Ok(programs) => {
                        let before = strict_programs.len();
                        strict_programs.extend(
                            programs
                                .into_iter()
                                .filter(|c| !c.echoes())
                                .map(Claim::text),
                        );
                        let runs_it = strict_programs[before..]
                            .iter()
                            .any(|p| pattern.mentioned_in(p));
                        if mentioned && !runs_it {
                            let _ =
                                writeln!(rejected, "- {receipt} mentions it but does not run it");
                        }
                    }
                    Err(why) if mentioned => {
                        let _ = writeln!(rejected, "- {receipt} does not count: {why}");
                    }
                    Err(_) => {}
                }
            }
            if !rejected.is_empty() {
                rejected.insert_str(0, "Rejected (strict evidence):\n");
            }
            rejected.push_str(&crate::strict::ignored_lines(&receipts));
            strict_programs.iter().map(String::as_str).collect()
        } else {
            match cx.view.successful_commands() {
                Ok(commands) => commands,
                Err(e) => return fail_closed(self.name(), cx.keyword, "the change log", e),
            }
        };
        match pattern.check(commands.iter().copied()) {
            Ok(()) => Verdict::Pass,
            Err(missing) => {
                let missing: Vec<String> = missing.iter().map(|m| format!("`{m}`")).collect();
                Verdict::block(
                    self.name(),
                    format!(
                        "{} blocked: {} requires a successful command matching `{}` this session; \
                         nothing that succeeded matches {}.\n\
                         Run the command with shell_run (exit 0), then retry.\n{rejected}",
                        blocked_word(cx.keyword),
                        self.owner,
                        pattern.as_str(),
                        missing.join(" and ")
                    )
                    .trim_end()
                    .to_owned(),
                )
            }
        }
    }
}

impl CommandSucceeded {
    /// Returns the pattern the gate checks now: the `PatternField` of its source when both
    /// exist, else `Pattern`; a block when there is neither.
    fn pattern_now(&self, cx: &GateContext<'_, '_>) -> Result<CommandPattern, Verdict> {
        if let Some((source, field)) = &self.field {
            let path = cx.view.resolve(source);
            let read = std::fs::read_to_string(&path)
                .ok()
                .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok());
            let command = read
                .as_ref()
                .and_then(|v| v.get(field))
                .and_then(serde_json::Value::as_str)
                .map(CommandPattern::new)
                .filter(|p| !p.is_empty());
            if let Some(command) = command {
                return Ok(command);
            }
            if self.pattern.is_none() {
                return Err(Verdict::block(
                    self.name(),
                    format!(
                        "{} blocked: {} requires the command named by `{field}` in {}, which has no such text field.\nWrite the command there, run it with shell_run (exit 0), then retry.",
                        blocked_word(cx.keyword),
                        self.owner,
                        source.display()
                    ),
                ));
            }
        }
        self.pattern.clone().ok_or_else(|| {
            Verdict::block(
                self.name(),
                format!(
                    "{} blocked: {} names no command to check.",
                    blocked_word(cx.keyword),
                    self.owner
                ),
            )
        })
    }
}
