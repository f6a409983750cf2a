//! A run of a pipeline, turn by turn:
//!
//! 1. The task is the first user message; the first agent of `Agents` takes the first turn.
//! 2. A turn asks the agent's model with its instructions, the conversation as that agent
//!    sees it (its own messages and tool calls; other agents' messages as quoted text) and its
//!    tools; runs the tools it calls in the confined workspace; asks again with their answers —
//!    until the model answers without a tool call, calls `handoff`, or reaches its cap of calls.
//! 3. The runner itself records the turn: what the tools wrote, deleted, ran and committed, as
//!    an entry of the change log (under its lock, atomically); the whole run as a vouch JSONL
//!    session. No agent can write either.
//! 4. The router decides on the reply: route to the next agent (a user message says so), a
//!    correction injected as a user message for the same agent, the end of the run, or stuck.
//! 5. The turn cap and the token budget end a run that does not end itself.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Serialize;
use vouch_evidence::{NewCommand, NewTurn};
use vouch_gate::{Decision, History, RouterState};
use vouch_llm::{ChatMessage, ChatRequest, ModelClient, ToolCallRequest, ToolSpec, Usage};
use vouch_session::{
    Actor, Args, EventKind, Format, Message, Outcome, Output, Role, Session, ToolCall, ToolResult,
};

use crate::config::{AgentConfig, RunConfig};
use crate::error::RunError;
use crate::journal::{self, Journal, Record};
use crate::tools::{self, Effect, ToolContext};
use crate::workspace::Workspace;

/// What a run is asked to do, and where.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct RunOptions {
    /// The working directory the agents work in.
    pub workdir: PathBuf,
    /// The task: the run's first user message.
    pub task: String,
    /// A cap on agent turns, over `Budget.MaxTurns`.
    pub max_turns: Option<u32>,
    /// Turns true to interrupt the run (a user's Ctrl-C): the running command is stopped, what
    /// happened is recorded, and the run ends, resumable.
    pub cancel: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
}

impl RunOptions {
    /// Returns the options of `task` in `workdir`.
    pub fn new(workdir: impl Into<PathBuf>, task: impl Into<String>) -> RunOptions {
        RunOptions {
            workdir: workdir.into(),
            task: task.into(),
            max_turns: None,
            cancel: None,
        }
    }
}

/// How a run ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "ended", rename_all = "snake_case")]
pub enum Ended {
    /// A termination strategy (or a terminal route) ended it.
    Terminated {
        /// Why, in a sentence.
        reason: String,
    },
    /// An agent was corrected past the stuck threshold (decision G10).
    Stuck {
        /// The agent.
        agent: Option<String>,
        /// The validator (or correction) of the last correction.
        validator: String,
        /// Corrections in a row.
        failures: u32,
        /// The last correction's message.
        last_message: String,
    },
    /// The turn cap was reached first.
    TurnCap {
        /// The cap.
        cap: u32,
    },
    /// The token budget was spent first.
    TokenBudget {
        /// Tokens used.
        tokens: u64,
        /// The budget.
        budget: u64,
    },
    /// The run was interrupted (Ctrl-C); `vouch run --resume` continues it.
    Interrupted,
    /// An agent's model could not answer (after its retries).
    ModelFailed {
        /// The agent.
        agent: String,
        /// Why.
        error: String,
    },
}

/// What a run did.
#[derive(Debug, Clone, Serialize)]
#[non_exhaustive]
pub struct Summary {
    /// How it ended.
    #[serde(flatten)]
    pub ended: Ended,
    /// Agent turns taken.
    pub turns: u32,
    /// Corrections injected.
    pub corrections: u32,
    /// Tokens by agent.
    pub tokens: BTreeMap<String, Usage>,
    /// The run's session (vouch JSONL).
    pub session: PathBuf,
    /// The change log the runner kept.
    pub change_log: PathBuf,
}

/// What a run reports as it goes.
#[derive(Debug)]
#[non_exhaustive]
pub enum Progress<'a> {
    /// An agent's turn begins.
    Turn {
        /// The agent.
        agent: &'a str,
        /// The turn's number, from 1.
        turn: u32,
    },
    /// A tool call was answered.
    ToolCall {
        /// The agent.
        agent: &'a str,
        /// The call.
        call: &'a ToolCall,
        /// Its answer.
        result: &'a ToolResult,
    },
    /// The router decided on a reply.
    Decided {
        /// The agent whose reply it was.
        agent: &'a str,
        /// The decision.
        decision: &'a Decision,
        /// Tokens the turn cost.
        usage: Usage,
    },
}

/// The models of a run, by alias.
pub type Models = BTreeMap<String, Arc<dyn ModelClient>>;

/// Where a run keeps its own record, under the working directory.
pub const RUN_DIR: &str = ".vouch/run";

/// Runs `config` on `options` with `models`, reporting to `progress`: a new run, whatever
/// the working directory held of an earlier one.
pub fn run(
    config: &RunConfig,
    models: &Models,
    options: &RunOptions,
    progress: &mut dyn FnMut(Progress<'_>),
) -> Result<Summary, RunError> {
    execute(config, models, options, false, progress)
}

/// Continues the run that was interrupted in `options.workdir` (killed, or stopped) from its
/// journal: the conversation, the session and the router's state are rebuilt exactly, a call
/// that was running when the run stopped is run again, and the run goes on. `options.task` is
/// ignored: the journal holds the task.
pub fn resume(
    config: &RunConfig,
    models: &Models,
    options: &RunOptions,
    progress: &mut dyn FnMut(Progress<'_>),
) -> Result<Summary, RunError> {
    execute(config, models, options, true, progress)
}

/// A turn the journal shows begun but not decided.
#[derive(Debug, Default)]
struct Pending {
    /// The effects of its answered calls.
    effects: Vec<Effect>,
    /// Calls made so far.
    calls_made: u32,
    /// The last step's calls, and which of them were answered.
    last_calls: Vec<ToolCallRequest>,
    answered: Vec<String>,
    /// True when the last step called no tool: the model has had its say.
    finished: bool,
    /// True when a `handoff` was answered.
    handed_off: bool,
    /// True when the turn's change-log entry was written: only the decision is left.
    recorded: bool,
}

fn execute(
    config: &RunConfig,
    models: &Models,
    options: &RunOptions,
    resuming: bool,
    progress: &mut dyn FnMut(Progress<'_>),
) -> Result<Summary, RunError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| RunError::Io(format!("cannot start the model clients: {e}")))?;
    let paths = &config.gates().config().validation().paths;
    let change_log = options.workdir.join(&paths.change_log);
    let run_dir = options.workdir.join(RUN_DIR);
    std::fs::create_dir_all(&run_dir)
        .map_err(|e| RunError::Io(format!("cannot make {}: {e}", run_dir.display())))?;
    let session_path = run_dir.join("session.jsonl");
    let journal_path = run_dir.join("journal.jsonl");
    let workspace = Workspace::new(
        &options.workdir,
        &[paths.change_log.clone(), PathBuf::from(".vouch")],
        &config.file_deny,
    )
    .map_err(|e| RunError::Io(format!("invalid file rule: {e}")))?;
    let cx = ToolContext {
        workspace,
        shell: config.shell.clone(),
        result_cap: 100_000,
        cancel: options.cancel.clone(),
    };
    let mut state = RunState {
        session: Session {
            agent: vouch_session::Agent::Orchestrator,
            cwd: Some(options.workdir.display().to_string()),
            ..Session::default()
        },
        transcript: Vec::new(),
        run_id: String::new(),
        log: None,
        journal: None,
    };
    let cap = options.max_turns.or(config.budget.max_turns);
    let mut router_state = RouterState::default();
    let mut tokens: BTreeMap<String, Usage> = BTreeMap::new();
    let mut turns = 0u32;
    let mut corrections = 0u32;
    // A state machine starts with its first state's agent; keyword selection with the first
    // agent of `Agents`.
    let first = match config.gates().config().states().first() {
        Some(state) => state.agent.as_deref().and_then(|a| config.agent(a)),
        None => config.agents.first(),
    };
    let Some(first) = first else {
        return Err(RunError::Io(
            "the pipeline has no agent to start with".into(),
        ));
    };
    let mut agent: &AgentConfig = first;
    let mut pending: Option<Pending> = None;
    if resuming {
        let records = journal::read(&journal_path)?;
        let mut steps: BTreeMap<String, usize> = BTreeMap::new();
        let mut next: Option<String> = None;
        for record in records {
            match record {
                Record::Start { run_id, task } => {
                    state.run_id = run_id;
                    state.apply_user(&task);
                }
                Record::User { text } => state.apply_user(&text),
                Record::Turn { agent: a, number } => {
                    turns = number;
                    next = Some(a);
                    pending = Some(Pending::default());
                }
                Record::Step {
                    agent: a,
                    text,
                    calls,
                    usage,
                } => {
                    *steps.entry(a.clone()).or_default() += 1;
                    if let Some(u) = usage {
                        let used = tokens.entry(a.clone()).or_default();
                        *used = *used + u;
                    }
                    let p = pending.get_or_insert_with(Pending::default);
                    p.finished = calls.is_empty();
                    p.last_calls.clone_from(&calls);
                    p.answered.clear();
                    state.apply_step(&a, &text, &calls);
                }
                Record::Result {
                    agent: a,
                    call_id,
                    name,
                    text,
                    outcome,
                    effects,
                    handoff,
                } => {
                    let p = pending.get_or_insert_with(Pending::default);
                    p.calls_made += 1;
                    p.handed_off |= handoff.is_some();
                    p.answered.push(call_id.clone());
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
                    state.apply_result(&a, &call, &text, outcome);
                }
                Record::Recorded { .. } => {
                    pending.get_or_insert_with(Pending::default).recorded = true;
                }
                Record::Decided {
                    agent: a,
                    decision,
                    state: router,
                } => {
                    router_state = router;
                    pending = None;
                    match decision {
                        Decision::Route { to, .. } => {
                            next = Some(to.unwrap_or(a));
                        }
                        Decision::Correct { .. } => {
                            corrections += 1;
                            next = Some(a);
                        }
                        Decision::Terminate { .. } | Decision::Stuck { .. } => {
                            return Err(RunError::Io(format!(
                                "the run in {} has ended; there is nothing to resume",
                                options.workdir.display()
                            )));
                        }
                    }
                }
            }
        }
        if state.run_id.is_empty() {
            return Err(RunError::Io(format!(
                "{} holds no run to resume",
                journal_path.display()
            )));
        }
        for (name, n) in &steps {
            if let Some(model) = config.agent(name).and_then(|a| models.get(&a.model)) {
                model.skip_steps(name, *n);
            }
        }
        if let Some(name) = next {
            agent = config.agent(&name).unwrap_or(agent);
        }
        state.journal = Some(Journal::open(&journal_path)?);
    } else {
        // A new run: whatever an earlier run left here is replaced.
        for old in [&journal_path, &session_path] {
            let _ = std::fs::remove_file(old);
        }
        state.run_id = vouch_evidence::new_session_id();
        let mut journal = Journal::open(&journal_path)?;
        journal.write(&Record::Start {
            run_id: state.run_id.clone(),
            task: options.task.clone(),
        })?;
        state.journal = Some(journal);
        state.apply_user(&options.task);
    }
    state.session.id.clone_from(&state.run_id);
    let ended = loop {
        if cx.cancelled() {
            break Ended::Interrupted;
        }
        let continuing = pending.take();
        let recorded = continuing.as_ref().is_some_and(|p| p.recorded);
        if continuing.is_none() {
            if cap.is_some_and(|c| turns >= c) {
                break Ended::TurnCap {
                    cap: cap.unwrap_or(turns),
                };
            }
            turns += 1;
            state.journal(&Record::Turn {
                agent: agent.name.clone(),
                number: turns,
            })?;
        }
        progress(Progress::Turn {
            agent: &agent.name,
            turn: turns,
        });
        let client = models
            .get(&agent.model)
            .ok_or_else(|| RunError::Model(format!("no model `{}`", agent.model)))?;
        let model = config.model(&agent.model);
        let turn = match state.turn(
            agent,
            client.as_ref(),
            model,
            &cx,
            &runtime,
            continuing,
            progress,
        ) {
            Ok(turn) => turn?,
            Err(error) => {
                state.save(&session_path)?;
                break Ended::ModelFailed {
                    agent: agent.name.clone(),
                    error,
                };
            }
        };
        let used = tokens.entry(agent.name.clone()).or_default();
        *used = *used + turn.usage;
        if turn.interrupted {
            // The turn is journaled as far as it went; resuming finishes it, and records it.
            break Ended::Interrupted;
        }
        if !recorded {
            record(&change_log, &state.run_id, &agent.name, &turn.effects)?;
            state.journal(&Record::Recorded {
                agent: agent.name.clone(),
            })?;
        }
        state.save(&session_path)?;
        let history = History::new(&state.session, &options.workdir).agent(Some(&agent.name));
        let routed = config
            .router
            .decide(&history, &router_state)
            .map_err(|e| RunError::Io(e.to_string()))?;
        router_state = routed.state;
        state.journal(&Record::Decided {
            agent: agent.name.clone(),
            decision: routed.decision.clone(),
            state: router_state.clone(),
        })?;
        progress(Progress::Decided {
            agent: &agent.name,
            decision: &routed.decision,
            usage: turn.usage,
        });
        match routed.decision {
            Decision::Route { to, keyword, from } => {
                let next = to
                    .as_deref()
                    .and_then(|to| config.agent(to))
                    .unwrap_or(agent);
                state.user(&format!(
                    "[routing] {} wrote {keyword}: {} takes the next turn.",
                    from.as_deref().unwrap_or(&agent.name),
                    next.name
                ))?;
                agent = next;
            }
            Decision::Correct { message, .. } => {
                corrections += 1;
                state.user(&message)?;
            }
            Decision::Terminate { reason } => break Ended::Terminated { reason },
            Decision::Stuck {
                agent,
                validator,
                failures,
                last_message,
            } => {
                break Ended::Stuck {
                    agent,
                    validator,
                    failures,
                    last_message,
                };
            }
        }
        let total: u64 = tokens.values().map(|u| u.input + u.output).sum();
        if let Some(budget) = config.budget.max_total_tokens
            && total >= budget
        {
            break Ended::TokenBudget {
                tokens: total,
                budget,
            };
        }
    };
    state.save(&session_path)?;
    Ok(Summary {
        ended,
        turns,
        corrections,
        tokens,
        session: session_path,
        change_log,
    })
}

/// What one turn did.
struct Turn {
    usage: Usage,
    effects: Vec<Effect>,
    /// True when the run was interrupted before the turn ended.
    interrupted: bool,
}

/// The run so far: its session (what is recorded), its conversation (who said what, for
/// building each agent's view) and its journal.
struct RunState {
    session: Session,
    transcript: Vec<(Option<String>, ChatMessage)>,
    run_id: String,
    /// The session's log, and how many of its events are in it: each turn appends its own.
    log: Option<(std::fs::File, usize)>,
    /// The journal, once the run's past is rebuilt.
    journal: Option<Journal>,
}

impl RunState {
    /// Appends `record` to the journal.
    fn journal(&mut self, record: &Record) -> Result<(), RunError> {
        match &mut self.journal {
            Some(journal) => journal.write(record),
            None => Ok(()),
        }
    }

    /// Adds a user message (a routing note, a correction) and journals it.
    fn user(&mut self, text: &str) -> Result<(), RunError> {
        self.journal(&Record::User {
            text: text.to_owned(),
        })?;
        self.apply_user(text);
        Ok(())
    }

    /// Adds a user message to the session and the conversation.
    fn apply_user(&mut self, text: &str) {
        self.session.push(
            Actor::new(Role::User),
            EventKind::Message(Message {
                text: text.to_owned(),
            }),
        );
        self.transcript.push((
            None,
            ChatMessage::User {
                text: text.to_owned(),
            },
        ));
    }

    /// Adds a model reply of `agent` to the session and the conversation.
    fn apply_step(&mut self, agent: &str, text: &str, calls: &[ToolCallRequest]) {
        if !text.trim().is_empty() {
            self.session.push(
                Actor::named(Role::Assistant, agent),
                EventKind::Message(Message {
                    text: text.to_owned(),
                }),
            );
        }
        self.transcript.push((
            Some(agent.to_owned()),
            ChatMessage::Assistant {
                text: text.to_owned(),
                calls: calls.to_vec(),
            },
        ));
    }

    /// Adds an answered call of `agent` to the session and the conversation; returns the call
    /// and its result as the session holds them.
    fn apply_result(
        &mut self,
        agent: &str,
        call: &ToolCallRequest,
        text: &str,
        outcome: Outcome,
    ) -> (ToolCall, ToolResult) {
        let recorded = ToolCall {
            call_id: call.id.clone(),
            name: call.name.clone(),
            kind: vouch_session::tool_kind(Format::Chat, &call.name),
            args: Args::from_value(call.arguments.clone()),
        };
        let result = ToolResult {
            call_id: call.id.clone(),
            output: Output::inline(text),
            outcome,
        };
        self.session.push(
            Actor::named(Role::Assistant, agent),
            EventKind::ToolCall(recorded.clone()),
        );
        self.session.push(
            Actor::named(Role::Tool, agent),
            EventKind::ToolResult(result.clone()),
        );
        self.transcript.push((
            Some(agent.to_owned()),
            ChatMessage::Tool {
                call_id: call.id.clone(),
                name: call.name.clone(),
                content: text.to_owned(),
            },
        ));
        (recorded, result)
    }

    /// Returns the conversation as `agent` sees it.
    fn view(&self, agent: &str) -> Vec<ChatMessage> {
        let mut out = Vec::new();
        for (who, message) in &self.transcript {
            match (who.as_deref(), message) {
                (None, m) => out.push(m.clone()),
                (Some(w), m) if w == agent => out.push(m.clone()),
                (Some(w), ChatMessage::Assistant { text, .. }) if !text.trim().is_empty() => {
                    out.push(ChatMessage::User {
                        text: format!("[{w}]: {text}"),
                    });
                }
                _ => {}
            }
        }
        out
    }

    /// Runs the calls of a step, in order, journaling and recording each; returns whether one
    /// was a `handoff`.
    fn run_calls(
        &mut self,
        agent: &AgentConfig,
        calls: &[ToolCallRequest],
        calls_made: &mut u32,
        effects: &mut Vec<Effect>,
        cx: &ToolContext,
        progress: &mut dyn FnMut(Progress<'_>),
    ) -> Result<bool, RunError> {
        let mut handed_off = false;
        for call in calls {
            *calls_made += 1;
            let output = if *calls_made > agent.max_tool_calls {
                tools::ToolOutput::error(format!(
                    "the cap of {} tool calls a turn is reached: finish the turn",
                    agent.max_tool_calls
                ))
            } else if !agent.tools.contains(&call.name) {
                tools::ToolOutput::denied(format!(
                    "`{}` is not one of {}'s tools",
                    call.name, agent.name
                ))
            } else {
                tools::call(&call.name, &call.arguments, cx)
            };
            handed_off |= output.handoff.is_some();
            let mut output = output;
            for effect in &mut output.effects {
                if let Effect::Ran(receipt) = effect {
                    receipt.call_id = Some(call.id.clone());
                }
            }
            self.journal(&Record::Result {
                agent: agent.name.clone(),
                call_id: call.id.clone(),
                name: call.name.clone(),
                text: output.text.clone(),
                outcome: output.outcome,
                effects: output.effects.clone(),
                handoff: output.handoff.clone(),
            })?;
            let (recorded, result) =
                self.apply_result(&agent.name, call, &output.text, output.outcome);
            progress(Progress::ToolCall {
                agent: &agent.name,
                call: &recorded,
                result: &result,
            });
            effects.extend(output.effects);
            // Interrupted: the step's other calls wait for the resumed run.
            if cx.cancelled() {
                break;
            }
        }
        Ok(handed_off)
    }

    /// Takes one turn of `agent` (or finishes one the journal shows begun); the outer error
    /// is the model's, in words, the inner one the run's own.
    #[expect(
        clippy::too_many_arguments,
        reason = "one turn needs the whole context of the run"
    )]
    fn turn(
        &mut self,
        agent: &AgentConfig,
        client: &dyn ModelClient,
        model: Option<&crate::config::ModelConfig>,
        cx: &ToolContext,
        runtime: &tokio::runtime::Runtime,
        pending: Option<Pending>,
        progress: &mut dyn FnMut(Progress<'_>),
    ) -> Result<Result<Turn, RunError>, String> {
        let specs: Vec<ToolSpec> = agent
            .tools
            .iter()
            .filter_map(|name| {
                Some(ToolSpec {
                    name: name.clone(),
                    description: tools::description(name)?.to_owned(),
                    parameters: tools::parameters(name)?,
                })
            })
            .collect();
        let mut usage = Usage::default();
        let mut effects = Vec::new();
        let mut calls_made = 0u32;
        if let Some(p) = pending {
            effects = p.effects;
            calls_made = p.calls_made;
            // A call that was running when the run stopped runs again.
            let unanswered: Vec<ToolCallRequest> = p
                .last_calls
                .iter()
                .filter(|c| !p.answered.contains(&c.id))
                .cloned()
                .collect();
            let handed_off = match self.run_calls(
                agent,
                &unanswered,
                &mut calls_made,
                &mut effects,
                cx,
                progress,
            ) {
                Ok(h) => h || p.handed_off,
                Err(e) => return Ok(Err(e)),
            };
            if p.recorded || p.finished || handed_off || calls_made >= agent.max_tool_calls {
                return Ok(Ok(Turn {
                    usage,
                    effects,
                    interrupted: false,
                }));
            }
        }
        loop {
            if cx.cancelled() {
                return Ok(Ok(Turn {
                    usage,
                    effects,
                    interrupted: true,
                }));
            }
            let request = ChatRequest {
                system: (!agent.instructions.is_empty()).then(|| agent.instructions.clone()),
                messages: self.view(&agent.name),
                tools: specs.clone(),
                model: model.and_then(|m| m.model.clone()),
                max_tokens: model.map_or(4096, |m| m.max_tokens),
                temperature: model.and_then(|m| m.temperature),
                agent: Some(agent.name.clone()),
            };
            let reply = runtime
                .block_on(client.chat(&request))
                .map_err(|e| e.to_string())?;
            if let Some(u) = reply.usage {
                usage = usage + u;
            }
            if let Err(e) = self.journal(&Record::Step {
                agent: agent.name.clone(),
                text: reply.text.clone(),
                calls: reply.calls.clone(),
                usage: reply.usage,
            }) {
                return Ok(Err(e));
            }
            self.apply_step(&agent.name, &reply.text, &reply.calls);
            if reply.calls.is_empty() {
                break;
            }
            let handed_off = match self.run_calls(
                agent,
                &reply.calls,
                &mut calls_made,
                &mut effects,
                cx,
                progress,
            ) {
                Ok(h) => h,
                Err(e) => return Ok(Err(e)),
            };
            if handed_off || calls_made >= agent.max_tool_calls {
                break;
            }
        }
        Ok(Ok(Turn {
            usage,
            effects,
            interrupted: false,
        }))
    }

    /// Appends the events not yet written to the session's log (written first with its
    /// header line): whole lines, so a reader of a run cut short sees every turn before it.
    fn save(&mut self, path: &Path) -> Result<(), RunError> {
        use std::io::Write;
        let fail = |e: &dyn std::fmt::Display| {
            RunError::Io(format!(
                "cannot write the run's session {}: {e}",
                path.display()
            ))
        };
        let mut bytes = Vec::new();
        if self.log.is_none() {
            vouch_session::write_jsonl_header(&self.session, &mut bytes).map_err(|e| fail(&e))?;
            let file = std::fs::File::create(path).map_err(|e| fail(&e))?;
            self.log = Some((file, 0));
        }
        let Some((file, written)) = &mut self.log else {
            return Ok(());
        };
        vouch_session::write_jsonl_events(
            &self.session,
            &self.session.events[*written..],
            &mut bytes,
        )
        .map_err(|e| fail(&e))?;
        file.write_all(&bytes).map_err(|e| fail(&e))?;
        *written = self.session.events.len();
        Ok(())
    }
}

/// Appends the turn's effects to the change log, as one entry of the run's session.
fn record(path: &Path, run_id: &str, agent: &str, effects: &[Effect]) -> Result<(), RunError> {
    // A turn that changed and ran nothing has nothing to record.
    if effects.is_empty() {
        return Ok(());
    }
    let mut turn = NewTurn::new(agent);
    turn.session_id = Some(run_id.to_owned());
    turn.activate = true;
    for effect in effects {
        match effect {
            Effect::Wrote(p) => turn.files_written.push(p.clone()),
            Effect::Deleted(p) => turn.files_deleted.push(p.clone()),
            Effect::Ran(r) => {
                let mut command = NewCommand::new(
                    r.command.clone(),
                    r.exit_code.map(i64::from),
                    r.output.clone(),
                );
                command.call_id.clone_from(&r.call_id);
                command.started_at = Some(r.started_at.clone());
                command.ended_at = r
                    .started_at
                    .parse::<jiff::Timestamp>()
                    .ok()
                    .and_then(|t| {
                        t.checked_add(jiff::SignedDuration::try_from(r.duration).ok()?)
                            .ok()
                    })
                    .map(|t| t.to_string());
                command.duration_ms = u64::try_from(r.duration.as_millis()).ok();
                command.output_bytes = Some(r.output_len);
                command.output_sha256 = Some(r.output_sha256.clone());
                turn.commands.push(command);
            }
            Effect::Committed(hash) => turn.git_commits.push(hash.clone()),
        }
    }
    vouch_evidence::append(path, &turn)?;
    Ok(())
}
