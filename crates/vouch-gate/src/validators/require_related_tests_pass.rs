//! `RequireRelatedTestsPass`: vouch runs the tests related to the session's changes itself.

use crate::config::TestSelector;
use crate::predicate::{GateContext, Predicate, Verdict, blocked_word, fail_closed};
use vouch_process::{Finished, shell, shell_quote};

/// Reads the files written in the active session from `changes.json`, runs
/// `TestSelector.FindRelatedCommand` once per file (`{file}` replaced) to discover test targets
/// (each non-empty output line is one), then runs `TestSelector.FullSuiteCommand` with the
/// targets appended — or alone, as the full suite, when discovery finds none. Passes when the
/// test command exits 0.
///
/// Each command runs under `sh -c` in the working directory, in a process group of its own,
/// for at most `TestSelector.TimeoutSeconds` (600 by default); a command past its time has its
/// whole group killed and blocks the handoff.
///
/// **Why**: the agent's word that the tests pass is not evidence; the gate runs them itself.
///
/// **Passes**: `pytest tests/test_api.py` exits 0. **Blocked**: it exits 1, discovery fails,
/// a command times out, or `TestSelector` is not configured.
///
/// **Options**: `TestSelector.FindRelatedCommand`, `TestSelector.FullSuiteCommand`,
/// `TestSelector.TimeoutSeconds`; the change log of `Validation.ChangeLogPath` or
/// `ChangeTracking.Path`.
#[derive(Debug, Clone)]
pub struct RequireRelatedTestsPass {
    /// The `TestSelector` section.
    pub selector: TestSelector,
}

const NAME: &str = "RequireRelatedTestsPass";

/// Characters of test output quoted in a message.
const OUTPUT_CHARS: usize = 2000;

impl Predicate for RequireRelatedTestsPass {
    fn name(&self) -> &str {
        NAME
    }

    fn turns_needed(&self) -> Option<usize> {
        Some(0)
    }

    fn evaluate(&self, cx: &GateContext<'_, '_>) -> Verdict {
        let word = blocked_word(cx.keyword);
        let (Some(find), Some(suite)) = (
            &self.selector.find_related_command,
            &self.selector.full_suite_command,
        ) else {
            return Verdict::block(
                NAME,
                format!(
                    "{word} blocked: RequireRelatedTestsPass is not configured.\n\
                     Set TestSelector.FindRelatedCommand (with {{file}}) and TestSelector.FullSuiteCommand\n\
                     in the pipeline configuration."
                ),
            );
        };
        let mut changed: Vec<String> = Vec::new();
        match cx.view.change_log() {
            Ok(Some(log)) => {
                for file in log.session_files_written() {
                    if !changed.iter().any(|c| c == file) {
                        changed.push(file.to_owned());
                    }
                }
            }
            Ok(None) => {}
            Err(e) => return fail_closed(NAME, cx.keyword, "the change log", e),
        }
        let mut targets: Vec<String> = Vec::new();
        for file in &changed {
            let command = find.replace("{file}", &shell_quote(file));
            let outcome = match self.run(cx, &command, "discovery") {
                Ok(outcome) => outcome,
                Err(verdict) => return verdict,
            };
            if !outcome.succeeded() {
                return Verdict::block(
                    NAME,
                    format!(
                        "{word} blocked: test discovery failed for {file} (exit {}).\nCommand: {command}\n{}",
                        exit_of(&outcome),
                        truncate(&outcome.stdout_text(), OUTPUT_CHARS)
                    ),
                );
            }
            for line in outcome
                .stdout_text()
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
            {
                if !targets.iter().any(|t| t == line) {
                    targets.push(line.to_owned());
                }
            }
        }
        let command = if targets.is_empty() {
            suite.clone()
        } else {
            let args: Vec<String> = targets.iter().map(|t| shell_quote(t)).collect();
            format!("{suite} {}", args.join(" "))
        };
        let outcome = match self.run(cx, &command, "test") {
            Ok(outcome) => outcome,
            Err(verdict) => return verdict,
        };
        if outcome.succeeded() {
            return Verdict::Pass;
        }
        Verdict::block(
            NAME,
            format!(
                "{word} blocked: targeted tests failed (exit {}).\nCommand: {command}\n{}",
                exit_of(&outcome),
                truncate(&outcome.stdout_text(), OUTPUT_CHARS)
            ),
        )
    }
}

impl RequireRelatedTestsPass {
    /// Runs `command` (the `what` command: discovery or test) in the working directory; one
    /// that does not start, or runs past its time, is the verdict.
    fn run(
        &self,
        cx: &GateContext<'_, '_>,
        command: &str,
        what: &str,
    ) -> Result<Finished, Verdict> {
        let outcome = shell(command, cx.view.workdir(), self.selector.timeout).map_err(|e| {
            fail_closed(
                NAME,
                cx.keyword,
                &format!("the related tests (the {what} command did not start)"),
                &e,
            )
        })?;
        if outcome.timed_out {
            return Err(Verdict::block(
                NAME,
                format!(
                    "{} blocked: RequireRelatedTestsPass could not finish: the tests ran past {} s and were killed.\n\
                     Command: {command}\n{}",
                    blocked_word(cx.keyword),
                    self.selector.timeout.as_secs(),
                    truncate(&outcome.stdout_text(), OUTPUT_CHARS)
                ),
            ));
        }
        Ok(outcome)
    }
}

/// A command's exit for a message: its code, or `killed`.
fn exit_of(outcome: &Finished) -> String {
    outcome
        .exit_code
        .map_or_else(|| "killed".to_owned(), |c| c.to_string())
}

/// Returns at most `max` characters of a command's output, marking the cut.
fn truncate(text: &str, max: usize) -> String {
    match vouch_process::clip::head_of(text, max) {
        (kept, true) => format!("{kept}\n… (output truncated to {max} characters)"),
        (kept, false) => kept.to_owned(),
    }
}
