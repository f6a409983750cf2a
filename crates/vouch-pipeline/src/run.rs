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
    Actor, Args, EventKind, Format, Message, Output, Role, Session, ToolCall, ToolResult,
};

use crate::config::{AgentConfig, RunConfig};
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
}

impl RunOptions {
    /// Returns the options of `task` in `workdir`.
    pub fn new(workdir: impl Into<PathBuf>, task: impl Into<String>) -> RunOptions {
        RunOptions {
            workdir: workdir.into(),
            task: task.into(),
            max_turns: None,
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

/// Why a run could not start or go on (not how it ended).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RunError {
    /// The working directory or the run's files could not be used.
    #[error("{0}")]
    Io(String),
    /// A model of the configuration could not be built.
    #[error("{0}")]
    Model(String),
    /// The run's record could not be written.
    #[error(transparent)]
    Evidence(#[from] vouch_evidence::Error),
}

/// The models of a run, by alias.
pub type Models = BTreeMap<String, Arc<dyn ModelClient>>;

/// Where a run keeps its own record, under the working directory.
pub const RUN_DIR: &str = ".vouch/run";

/// Runs `config` on `options` with `models`, reporting to `progress`.
pub fn run(
    config: &RunConfig,
    models: &Models,
    options: &RunOptions,
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
    };
    let run_id = vouch_evidence::new_session_id();
    let mut state = RunState {
        session: Session {
            id: run_id.clone(),
            agent: vouch_session::Agent::Orchestrator,
            cwd: Some(options.workdir.display().to_string()),
            ..Session::default()
        },
        transcript: Vec::new(),
        run_id,
        log: None,
    };
    state.user(&options.task);
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
    let ended = loop {
        if cap.is_some_and(|c| turns >= c) {
            break Ended::TurnCap {
                cap: cap.unwrap_or(turns),
            };
        }
        turns += 1;
        progress(Progress::Turn {
            agent: &agent.name,
            turn: turns,
        });
        let client = models
            .get(&agent.model)
            .ok_or_else(|| RunError::Model(format!("no model `{}`", agent.model)))?;
        let model = config.model(&agent.model);
        let turn = match state.turn(agent, client.as_ref(), model, &cx, &runtime, progress) {
            Ok(turn) => turn,
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
        record(&change_log, &state.run_id, &agent.name, &turn.effects)?;
        state.save(&session_path)?;
        let history = History::new(&state.session, &options.workdir).agent(Some(&agent.name));
        let routed = config
            .router
            .decide(&history, &router_state)
            .map_err(|e| RunError::Io(e.to_string()))?;
        router_state = routed.state;
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
                ));
                agent = next;
            }
            Decision::Correct { message, .. } => {
                corrections += 1;
                state.user(&message);
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
}

/// The run so far: its session (what is recorded) and its conversation (who said what, for
/// building each agent's view).
struct RunState {
    session: Session,
    transcript: Vec<(Option<String>, ChatMessage)>,
    run_id: String,
    /// The session's log, and how many of its events are in it: each turn appends its own.
    log: Option<(std::fs::File, usize)>,
}

impl RunState {
    /// Adds a user message: the task, a routing note, a correction.
    fn user(&mut self, text: &str) {
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

    /// Takes one turn of `agent`; an error is the model's, in words.
    fn turn(
        &mut self,
        agent: &AgentConfig,
        client: &dyn ModelClient,
        model: Option<&crate::config::ModelConfig>,
        cx: &ToolContext,
        runtime: &tokio::runtime::Runtime,
        progress: &mut dyn FnMut(Progress<'_>),
    ) -> Result<Turn, String> {
        let specs: Vec<ToolSpec> = agent
            .tools
            .iter()
            .filter_map(|name| {
                Some(ToolSpec {
                    name: name.clone(),
                    description: describe(name).to_owned(),
                    parameters: tools::parameters(name)?,
                })
            })
            .collect();
        let mut usage = Usage::default();
        let mut effects = Vec::new();
        let mut calls_made = 0u32;
        loop {
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
            let actor = Actor::named(Role::Assistant, &agent.name);
            if !reply.text.trim().is_empty() {
                self.session.push(
                    actor.clone(),
                    EventKind::Message(Message {
                        text: reply.text.clone(),
                    }),
                );
            }
            self.transcript.push((
                Some(agent.name.clone()),
                ChatMessage::Assistant {
                    text: reply.text.clone(),
                    calls: reply.calls.clone(),
                },
            ));
            if reply.calls.is_empty() {
                break;
            }
            let mut handed_off = false;
            for call in &reply.calls {
                calls_made += 1;
                let output = if calls_made > agent.max_tool_calls {
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
                let (recorded, result) = record_call(call, &output);
                self.session
                    .push(actor.clone(), EventKind::ToolCall(recorded.clone()));
                self.session.push(
                    Actor::named(Role::Tool, &agent.name),
                    EventKind::ToolResult(result.clone()),
                );
                progress(Progress::ToolCall {
                    agent: &agent.name,
                    call: &recorded,
                    result: &result,
                });
                self.transcript.push((
                    Some(agent.name.clone()),
                    ChatMessage::Tool {
                        call_id: call.id.clone(),
                        name: call.name.clone(),
                        content: output.text.clone(),
                    },
                ));
                effects.extend(output.effects);
            }
            if handed_off || calls_made >= agent.max_tool_calls {
                break;
            }
        }
        Ok(Turn { usage, effects })
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

/// Returns the call and its result as the session records them.
fn record_call(call: &ToolCallRequest, output: &tools::ToolOutput) -> (ToolCall, ToolResult) {
    (
        ToolCall {
            call_id: call.id.clone(),
            name: call.name.clone(),
            kind: vouch_session::tool_kind(Format::Chat, &call.name),
            args: Args::from_value(call.arguments.clone()),
        },
        ToolResult {
            call_id: call.id.clone(),
            output: Output::inline(output.text.as_str()),
            outcome: output.outcome,
        },
    )
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
            Effect::Ran(r) => turn.commands.push(NewCommand::new(
                r.command.clone(),
                r.exit_code.map(i64::from),
                r.output.clone(),
            )),
            Effect::Committed(hash) => turn.git_commits.push(hash.clone()),
        }
    }
    vouch_evidence::append(path, &turn)?;
    Ok(())
}

/// Returns what a tool does, for the model's tool definitions.
fn describe(name: &str) -> &'static str {
    match name {
        "read_file" => "Read a file of the working directory, whole or a range of its lines.",
        "list_files" => "List the files of the working directory, or those a glob names.",
        "search" => "Search the files for lines matching a regular expression.",
        "write_file" => "Write a file whole (created, or replaced).",
        "patch_file" => "Replace one exact piece of a file; it must occur exactly once.",
        "delete_file" => "Delete a file.",
        "shell_run" => {
            "Run a bash script in the working directory; its output and exit code come back."
        }
        "git_commit" => "Commit every change of the working directory.",
        "handoff" => "Hand the work to the next agent by the keyword of its route.",
        _ => "",
    }
}
