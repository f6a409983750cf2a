//! A run rebuilt from its journal's records (never from the session's text): the conversation,
//! the session, the runner's change-log entries, the router's state, the tokens spent, and the
//! turn the journal shows begun but not decided — for `--resume`, and for verifying a recorded
//! run.

use std::collections::BTreeMap;
use std::path::Path;

use vouch_evidence::OwnEntries;
use vouch_gate::{Decision, RouterState};
use vouch_llm::{ToolCallRequest, Usage};

use crate::conversation::RunState;
use crate::error::RunError;
use crate::journal::Record;
use crate::tools::{Effect, Intent};

/// A CLI turn journaled as begun.
#[derive(Debug, Clone)]
pub(crate) struct CliBegun {
    /// The call that stands for the turn in the run's session.
    pub(crate) call_id: String,
    /// The CLI's session, when known before it runs.
    pub(crate) session: Option<String>,
    /// The prompt.
    pub(crate) prompt: String,
    /// How many events of the session's saved log earlier turns account for.
    pub(crate) before: usize,
    /// The tokens the saved log counted before the turn.
    pub(crate) before_usage: Usage,
}

/// A turn the journal shows begun but not decided.
#[derive(Debug, Default)]
pub(crate) struct Pending {
    /// The effects of its answered calls.
    pub(crate) effects: Vec<Effect>,
    /// Calls made so far.
    pub(crate) calls_made: u32,
    /// The last step's calls, and which of them were answered.
    pub(crate) last_calls: Vec<ToolCallRequest>,
    pub(crate) answered: Vec<String>,
    /// The changes journaled as begun, by call.
    pub(crate) begun: BTreeMap<String, Intent>,
    /// True when the last step called no tool: the model has had its say.
    pub(crate) finished: bool,
    /// True when a `handoff` was answered.
    pub(crate) handed_off: bool,
    /// True when the turn's change-log entry was journaled: only the change log's copy of it
    /// and the decision may be left.
    pub(crate) recorded: bool,
    /// That entry (`None` when the turn had none).
    pub(crate) entry: Option<String>,
    /// A CLI turn begun, its CLI not known to have ended.
    pub(crate) cli: Option<CliBegun>,
}

/// A run rebuilt from its journal.
#[derive(Debug)]
pub(crate) struct Replayed {
    pub(crate) state: RunState,
    pub(crate) router_state: RouterState,
    pub(crate) tokens: BTreeMap<String, Usage>,
    pub(crate) turns: u32,
    pub(crate) corrections: u32,
    pub(crate) pending: Option<Pending>,
    /// The agent of the next turn (or of the pending one).
    pub(crate) next: Option<String>,
    /// How many model replies each agent has had.
    pub(crate) steps: BTreeMap<String, usize>,
    /// The decision that ended the run (termination or stuck), when one did.
    pub(crate) ended: Option<Decision>,
}

/// Rebuilds the run of `records`, which ran in `workdir`.
pub(crate) fn replay(records: Vec<Record>, workdir: &Path) -> Result<Replayed, RunError> {
    let mut r = Replayed {
        state: RunState::new(workdir),
        router_state: RouterState::default(),
        tokens: BTreeMap::new(),
        turns: 0,
        corrections: 0,
        pending: None,
        next: None,
        steps: BTreeMap::new(),
        ended: None,
    };
    let mut entries: Vec<String> = Vec::new();
    for record in records {
        if r.ended.is_some() {
            return Err(RunError::Tampered(
                "the run's journal goes on after the decision that ended the run".into(),
            ));
        }
        match record {
            Record::Start { run_id, task } => {
                r.state.run_id = run_id;
                r.state.apply_user(&task);
            }
            Record::Turn { agent, number } => {
                r.turns = number;
                r.next = Some(agent);
                r.pending = Some(Pending::default());
            }
            Record::Step {
                agent,
                text,
                calls,
                usage,
            } => {
                *r.steps.entry(agent.clone()).or_default() += 1;
                if let Some(u) = usage {
                    let used = r.tokens.entry(agent.clone()).or_default();
                    *used = *used + u;
                }
                let p = r.pending.get_or_insert_with(Pending::default);
                p.finished = calls.is_empty();
                p.last_calls.clone_from(&calls);
                p.answered.clear();
                r.state.apply_step(&agent, &text, &calls);
            }
            Record::Begin { call_id, intent } => {
                r.pending
                    .get_or_insert_with(Pending::default)
                    .begun
                    .insert(call_id, intent);
            }
            Record::Result {
                agent,
                call_id,
                name,
                text,
                outcome,
                effects,
                handoff,
            } => {
                let p = r.pending.get_or_insert_with(Pending::default);
                p.calls_made += 1;
                p.handed_off |= handoff.is_some();
                p.answered.push(call_id.clone());
                p.begun.remove(&call_id);
                p.effects.extend(effects);
                // A call the journal holds no step of keeps its id and name.
                let call = p
                    .last_calls
                    .iter()
                    .find(|c| c.id == call_id)
                    .cloned()
                    .unwrap_or(ToolCallRequest {
                        id: call_id,
                        name,
                        arguments: serde_json::Value::Null,
                    });
                r.state.apply_result(&agent, &call, &text, outcome);
            }
            Record::Subagent {
                agent,
                call_id,
                messages,
            } => r.state.apply_subagent(&agent, &call_id, &messages),
            Record::CliBegin {
                agent,
                call_id,
                session,
                prompt,
                before,
                before_usage,
            } => {
                if let Some(s) = &session {
                    r.state.cli_sessions.insert(agent, s.clone());
                }
                r.pending.get_or_insert_with(Pending::default).cli = Some(CliBegun {
                    call_id,
                    session,
                    prompt,
                    before,
                    before_usage,
                });
            }
            Record::CliTurn {
                agent,
                call_id,
                cli,
                session,
                prompt,
                text,
                outcome,
                usage,
                log,
                effects,
                ..
            } => {
                let used = r.tokens.entry(agent.clone()).or_default();
                *used = *used + usage;
                let p = r.pending.get_or_insert_with(Pending::default);
                p.cli = None;
                p.finished = true;
                p.effects.extend(effects);
                let kind = crate::config::CliKind::from_name(&cli).ok_or_else(|| {
                    RunError::Tampered(format!("the journal names an unknown CLI `{cli}`"))
                })?;
                let sub = crate::journal::cli_session(&log)?;
                r.state.apply_cli(
                    &crate::conversation::CliApplied {
                        agent: &agent,
                        kind,
                        call_id: &call_id,
                        session_id: session.as_deref(),
                        prompt: &prompt,
                        text: &text,
                        outcome,
                    },
                    sub,
                );
            }
            Record::Sandbox { .. } | Record::Approval { .. } => {}
            Record::Recorded { entry, .. } => {
                let p = r.pending.get_or_insert_with(Pending::default);
                p.recorded = true;
                p.entry = entry;
            }
            Record::Decided {
                agent,
                decision,
                state,
                message,
            } => {
                r.router_state = state;
                // The turn's entry went to the change log before its decision was journaled.
                if let Some(entry) = r.pending.take().and_then(|p| p.entry) {
                    entries.push(entry);
                }
                if let Some(text) = &message {
                    r.state.apply_user(text);
                }
                match decision {
                    Decision::Route { to, .. } => r.next = Some(to.unwrap_or(agent)),
                    Decision::Correct { agent: to, .. } => {
                        r.corrections += 1;
                        r.next = Some(to.unwrap_or(agent));
                    }
                    Decision::Terminate { .. } | Decision::Stuck { .. } => {
                        r.ended = Some(decision);
                    }
                }
            }
        }
    }
    if r.state.run_id.is_empty() {
        return Err(RunError::Io("the journal holds no run".into()));
    }
    r.state.session.id.clone_from(&r.state.run_id);
    r.state.own = OwnEntries::new(r.state.run_id.clone(), entries)?;
    Ok(r)
}
