//! Claude Code's `Stop` and `SubagentStop` hooks: gates on an agent's completion, answered in
//! Claude Code's protocol, with a stuck counter per session so that a gate the agent cannot
//! satisfy does not hold it in a loop forever (decision G10).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use vouch_evidence::EvidenceView;
use vouch_session::{Format, ReadOptions};

use crate::gate::GateSet;
use crate::predicate::{Block, Verdict, unreadable_session};
use crate::stuck::{Correction, StuckCounter};

/// What Claude Code sends a hook on standard input.
#[derive(Debug, Clone, Deserialize)]
#[non_exhaustive]
pub struct HookInput {
    /// The session.
    pub session_id: String,
    /// The session's transcript (its JSONL log).
    pub transcript_path: PathBuf,
    /// The session's working directory.
    #[serde(default)]
    pub cwd: Option<PathBuf>,
    /// `Stop` or `SubagentStop`.
    pub hook_event_name: String,
    /// True when Claude Code is already continuing because of a stop hook.
    #[serde(default)]
    pub stop_hook_active: bool,
    /// The subagent's own transcript, for `SubagentStop` (newer Claude Code versions).
    #[serde(default)]
    pub agent_transcript_path: Option<PathBuf>,
}

impl HookInput {
    /// Parses the hook input.
    pub fn parse(json: &str) -> Result<HookInput, serde_json::Error> {
        serde_json::from_str(json)
    }

    /// Returns true for a `SubagentStop` event.
    pub fn is_subagent(&self) -> bool {
        self.hook_event_name.eq_ignore_ascii_case("SubagentStop")
    }
}

/// What the hook answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HookAnswer {
    /// Let the agent stop: no output.
    Allow,
    /// Keep the agent working: `{"decision":"block","reason":…}` on stdout.
    Block {
        /// The validator that blocked.
        validator: String,
        /// What the agent is told.
        reason: String,
        /// Blocks in a row, this one included.
        consecutive: u32,
    },
    /// The agent was blocked past the threshold: let it stop, and tell the person.
    Stuck {
        /// The validator of the last block.
        validator: String,
        /// Blocks in a row.
        failures: u32,
        /// The last block's message.
        last_message: String,
    },
}

impl HookAnswer {
    /// Returns what goes on standard output for Claude Code: the block decision, a message to
    /// the person when stuck, nothing to allow.
    pub fn stdout(&self) -> Option<String> {
        match self {
            HookAnswer::Allow => None,
            HookAnswer::Block { reason, .. } => {
                Some(serde_json::json!({ "decision": "block", "reason": reason }).to_string())
            }
            HookAnswer::Stuck { validator, failures, last_message } => Some(
                serde_json::json!({
                    "systemMessage": format!(
                        "vouch: the agent is stuck — {validator} blocked it {failures} times in a row, so vouch let it stop. Last message:\n{last_message}"
                    )
                })
                .to_string(),
            ),
        }
    }
}

/// Evaluates the stop gate on the session of `input`, with artifacts under `workdir`. The
/// transcript is read from its end, only as far as the gate needs.
pub fn evaluate_stop(input: &HookInput, gates: &GateSet, workdir: &Path) -> Verdict {
    let gate = gates.stop(input.is_subagent());
    if gate.is_empty() {
        return Verdict::Pass;
    }
    let transcript = match (&input.agent_transcript_path, input.is_subagent()) {
        (Some(agent), true) => agent,
        _ => &input.transcript_path,
    };
    let options = ReadOptions {
        format: Some(Format::ClaudeCode),
        last_turns: gate.turns_needed(),
        ..ReadOptions::default()
    };
    let report = match vouch_session::read_path(transcript, &options) {
        Ok(report) => report,
        Err(e) => return unreadable_session(&gate.keyword, &e),
    };
    let view = EvidenceView::new(
        &report.session,
        workdir,
        gates.config().validation.paths.clone(),
    )
    .with_diagnostics(&report.diagnostics);
    gate.evaluate(&view)
}

/// The hook's state: a stuck counter per session.
#[derive(Debug, Default, Serialize, Deserialize)]
struct HookState {
    #[serde(default)]
    sessions: BTreeMap<String, StuckCounter>,
}

/// How many sessions the state file remembers.
const REMEMBERED_SESSIONS: usize = 200;

/// Turns a verdict into the hook's answer, counting consecutive blocks of the session in the
/// state file at `state_path` (updated under a lock): at `threshold` blocks in a row the agent
/// is reported stuck and allowed to stop; a pass starts the count over.
pub fn answer(
    session_id: &str,
    verdict: &Verdict,
    state_path: &Path,
    threshold: u32,
) -> Result<HookAnswer, vouch_evidence::Error> {
    vouch_evidence::update_locked(state_path, |current| {
        let mut state: HookState = current
            .and_then(|text| serde_json::from_str(text).ok())
            .unwrap_or_default();
        let answer = match verdict {
            Verdict::Pass => {
                state.sessions.remove(session_id);
                HookAnswer::Allow
            }
            Verdict::Block(Block { validator, message }) => {
                let counter = state.sessions.entry(session_id.to_owned()).or_default();
                match counter.correct(validator, message, threshold) {
                    Correction::Correct { consecutive } => HookAnswer::Block {
                        validator: validator.clone(),
                        reason: message.clone(),
                        consecutive,
                    },
                    Correction::Stuck { failures } => {
                        state.sessions.remove(session_id);
                        HookAnswer::Stuck {
                            validator: validator.clone(),
                            failures,
                            last_message: message.clone(),
                        }
                    }
                }
            }
        };
        while state.sessions.len() > REMEMBERED_SESSIONS {
            // Sessions are keyed by id, not age: dropping the first keeps the file bounded.
            let Some(first) = state.sessions.keys().next().cloned() else {
                break;
            };
            state.sessions.remove(&first);
        }
        let text = serde_json::to_string_pretty(&state).unwrap_or_else(|_| "{}".to_owned());
        Ok((text, answer))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn three_blocks_in_a_row_report_stuck_and_a_pass_resets() {
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().join(".vouch/hook-state.json");
        let block = Verdict::block("RequireShellPass", "no tests");
        let a1 = answer("s", &block, &state, 3).unwrap();
        assert!(matches!(a1, HookAnswer::Block { consecutive: 1, .. }));
        assert!(matches!(
            answer("s", &block, &state, 3).unwrap(),
            HookAnswer::Block { consecutive: 2, .. }
        ));
        let stuck = answer("s", &block, &state, 3).unwrap();
        assert!(matches!(stuck, HookAnswer::Stuck { failures: 3, .. }));
        assert!(stuck.stdout().unwrap().contains("systemMessage"));
        assert!(matches!(
            answer("s", &block, &state, 3).unwrap(),
            HookAnswer::Block { consecutive: 1, .. }
        ));
        assert_eq!(
            answer("s", &Verdict::Pass, &state, 3).unwrap(),
            HookAnswer::Allow
        );
        assert!(matches!(
            answer("s", &block, &state, 3).unwrap(),
            HookAnswer::Block { consecutive: 1, .. }
        ));
        assert!(matches!(
            answer("other", &block, &state, 3).unwrap(),
            HookAnswer::Block { consecutive: 1, .. }
        ));
        assert_eq!(
            a1.stdout().unwrap(),
            r#"{"decision":"block","reason":"no tests"}"#
        );
    }
}
