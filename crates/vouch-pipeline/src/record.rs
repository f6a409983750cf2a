//! What a run did, turn by turn, read back from its journal (verified, in the run's state
//! directory): the agent of each turn, the calls it made with their outcomes, the router's
//! decision on its reply and what the turn cost. The same record serves `vouch run --html`
//! when the run ends and `vouch report` on the run of a working directory.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use vouch_gate::Decision;
use vouch_llm::Usage;
use vouch_session::{Args, Format, Output, ToolCall, ToolResult};

use crate::error::RunError;
use crate::journal::{self, Record};
use crate::state::{RunFiles, state_root};

/// One agent turn of a run.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct TurnRecord {
    /// The agent.
    pub agent: String,
    /// The turn's number, from 1.
    pub number: u32,
    /// Its tool calls and their results, in order (a call the run stopped in has none).
    pub calls: Vec<Call>,
    /// What the router decided on the reply; `None` for a turn the run stopped in.
    pub decision: Option<Decision>,
    /// What the turn's model calls cost.
    pub usage: Usage,
    /// The sub-agents its calls started: the starting call's id, and their calls.
    pub subagents: Vec<(String, Vec<Call>)>,
}

/// A tool call of a turn and its result (none when the run stopped in it).
pub type Call = (ToolCall, Option<ToolResult>);

/// A run, read from its journal.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct RunRecord {
    /// The task the run was given.
    pub task: String,
    /// Its turns, in order.
    pub turns: Vec<TurnRecord>,
    /// Tokens by agent.
    pub tokens: BTreeMap<String, Usage>,
    /// The run's session (vouch JSONL).
    pub session: PathBuf,
    /// The journal it was read from.
    pub journal: PathBuf,
    /// `Security.Sandbox` as the run last started, and what the kernel did not enforce.
    pub sandbox: Option<(String, Vec<String>)>,
}

impl RunRecord {
    /// Counts `usage` to `agent` and to the last turn.
    fn spend(&mut self, agent: String, usage: Usage) {
        let spent = self.tokens.entry(agent).or_default();
        spent.input += usage.input;
        spent.output += usage.output;
        if let Some(turn) = self.turns.last_mut() {
            turn.usage.input += usage.input;
            turn.usage.output += usage.output;
        }
    }

    /// Returns the number of corrections the router injected.
    pub fn corrections(&self) -> usize {
        self.turns
            .iter()
            .filter(|t| matches!(t.decision, Some(Decision::Correct { .. })))
            .count()
    }
}

/// Reads the run of `workdir` from its journal in the state root (`state_root`, or the
/// default one); a journal that does not verify is [`RunError::Tampered`].
pub fn read_run(workdir: &Path, state_root_dir: Option<&Path>) -> Result<RunRecord, RunError> {
    let workdir = workdir
        .canonicalize()
        .map_err(|e| RunError::Io(format!("cannot read {}: {e}", workdir.display())))?;
    let files = RunFiles::open(&state_root(state_root_dir)?, &workdir)?;
    let mut record = RunRecord {
        task: String::new(),
        turns: Vec::new(),
        tokens: BTreeMap::new(),
        session: files.session.clone(),
        journal: files.journal.clone(),
        sandbox: None,
    };
    for entry in journal::read(&files.journal, &files.key)?.records {
        match entry {
            Record::Start { task, .. } => record.task = task,
            Record::Turn { agent, number } => record.turns.push(TurnRecord {
                agent,
                number,
                calls: Vec::new(),
                decision: None,
                usage: Usage::default(),
                subagents: Vec::new(),
            }),
            Record::Step {
                agent,
                calls,
                usage,
                ..
            } => {
                record.spend(agent, usage.unwrap_or_default());
                if let Some(turn) = record.turns.last_mut() {
                    turn.calls.extend(calls.into_iter().map(|c| {
                        let call = ToolCall {
                            call_id: c.id,
                            kind: vouch_session::tool_kind(Format::Chat, &c.name),
                            name: c.name.into(),
                            args: Args::from_value(c.arguments),
                        };
                        (call, None)
                    }));
                }
            }
            Record::Result {
                call_id,
                text,
                outcome,
                ..
            } => {
                let slot = record
                    .turns
                    .last_mut()
                    .and_then(|t| t.calls.iter_mut().find(|(c, _)| c.call_id == call_id));
                if let Some((_, result)) = slot {
                    *result = Some(ToolResult {
                        call_id,
                        output: Output::inline(text),
                        outcome,
                    });
                }
            }
            Record::Decided { decision, .. } => {
                if let Some(turn) = record.turns.last_mut() {
                    turn.decision = Some(decision);
                }
            }
            Record::Subagent {
                call_id, messages, ..
            } => {
                if let Some(turn) = record.turns.last_mut() {
                    let sub = crate::subagent::session_of(&turn.agent, &call_id, &messages);
                    turn.subagents.push((call_id, calls_of(&sub)));
                }
            }
            Record::CliTurn {
                call_id,
                cli,
                session,
                prompt,
                text,
                outcome,
                usage,
                log,
                agent,
                ..
            } => {
                record.spend(agent, usage);
                if let Some(turn) = record.turns.last_mut() {
                    let call = ToolCall {
                        call_id: call_id.clone(),
                        name: cli.into(),
                        kind: vouch_session::ToolKind::Subagent,
                        args: Args::from_value(
                            serde_json::json!({ "prompt": prompt, "session_id": session }),
                        ),
                    };
                    let result = ToolResult {
                        call_id: call_id.clone(),
                        output: Output::inline(text),
                        outcome,
                    };
                    turn.calls.push((call, Some(result)));
                    let sub = crate::journal::cli_session(&log)?;
                    turn.subagents.push((call_id, calls_of(&sub)));
                }
            }
            Record::Sandbox { mode, missing } => record.sandbox = Some((mode, missing)),
            Record::Begin { .. }
            | Record::Recorded { .. }
            | Record::Approval { .. }
            | Record::CliBegin { .. } => {}
        }
    }
    Ok(record)
}

/// Returns the calls of `session` (its own, not its subagents'), each with its result.
fn calls_of(session: &vouch_session::Session) -> Vec<Call> {
    let results = session.results_by_call();
    session
        .events
        .iter()
        .filter_map(|e| e.as_tool_call())
        .map(|c| {
            let result = results.get(c.call_id.as_str()).map(|r| (*r).clone());
            (c.clone(), result)
        })
        .collect()
}
