//! A run of a pipeline, turn by turn:
//!
//! 1. The task is the first user message; the first agent of `Agents` takes the first turn.
//! 2. A turn (`turn.rs`) asks the agent's model with its instructions, the conversation as
//!    that agent sees it and its tools; runs the tools it calls in the confined workspace;
//!    asks again with their answers — until the model answers without a tool call, calls
//!    `handoff`, or reaches its cap of calls.
//! 3. The runner itself records the turn: what the tools wrote, deleted, ran and committed, as
//!    an entry journaled first, then appended to the change log — whose entries of the run
//!    must be exactly the runner's, or the run ends as tampered with; the whole run as a
//!    vouch JSONL session in the run's state directory, out of the agents' reach.
//! 4. The router decides on the reply, on the runner's own entries (never on the change-log
//!    file an agent could have written): route to the next agent, a correction for the same
//!    agent, the end of the run, or stuck. The decision and the user message it adds are
//!    journaled as one record.
//! 5. The turn cap and the token budget (checked after every model reply) end a run that does
//!    not end itself.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::Serialize;
use vouch_evidence::{NewCommand, NewTurn};
use vouch_gate::{Decision, History, RouterState};
use vouch_llm::Usage;

use crate::config::RunConfig;
use crate::conversation::RunState;
use crate::error::RunError;
use crate::journal::{self, Journal, Record};
use crate::models::Models;
use crate::progress::Progress;
use crate::replay::{Pending, replay};
use crate::selector::Pick;
use crate::state::{RunFiles, state_root};
use crate::steering::Steering;
use crate::tools::{Effect, ToolContext};
use crate::turn::{TurnContext, TurnEnd};
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
    /// A cap on the tokens of all agents together, over `Budget.MaxTotalTokens`.
    pub max_total_tokens: Option<u64>,
    /// Turns true to interrupt the run (a user's Ctrl-C): the running command is stopped, what
    /// happened is recorded, and the run ends, resumable.
    pub cancel: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
    /// Where runs keep their records; `None`: `$VOUCH_STATE_DIR`, else
    /// `$XDG_STATE_HOME/vouch`, else `~/.local/state/vouch`.
    pub state_root: Option<PathBuf>,
    /// How calls `Security.Approve` holds are decided: asked on the terminal (the default),
    /// or approved or denied unattended.
    pub approval: crate::approval::ApprovalMode,
    /// Crash tests only: the run stops dead right after this many side effects (file writes,
    /// patches, deletions, commits, commands run) were made, before their answers are
    /// journaled — what a `kill -9` at that moment leaves.
    #[doc(hidden)]
    pub crash_after_effects: Option<u32>,
}

impl RunOptions {
    /// Returns the options of `task` in `workdir`.
    pub fn new(workdir: impl Into<PathBuf>, task: impl Into<String>) -> RunOptions {
        RunOptions {
            workdir: workdir.into(),
            task: task.into(),
            max_turns: None,
            max_total_tokens: None,
            cancel: None,
            state_root: None,
            approval: crate::approval::ApprovalMode::Ask,
            crash_after_effects: None,
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
    /// The run's record was changed by someone other than the runner (an agent's command
    /// rewrote the change log): the run stops, failing closed.
    Tampered {
        /// What was found.
        reason: String,
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
    /// The run's session (vouch JSONL), in its state directory.
    pub session: PathBuf,
    /// The change log the runner kept.
    pub change_log: PathBuf,
    /// The run's state directory: its journal, session and key.
    pub record: PathBuf,
}

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
    let workdir = options
        .workdir
        .canonicalize()
        .map_err(|e| RunError::Io(format!("cannot run in {}: {e}", options.workdir.display())))?;
    let paths = &config.gates().config().validation().paths;
    let change_log = workdir.join(&paths.change_log);
    let root = state_root(options.state_root.as_deref())?;
    let files = if resuming {
        RunFiles::open(&root, &workdir)?
    } else {
        RunFiles::create(&root, &workdir)?
    };
    let brown = crate::brownfield::start(config, &workdir);
    let workspace = Workspace::new(
        &workdir,
        &[paths.change_log.clone(), PathBuf::from(".vouch")],
        &config.file_deny,
    )
    .and_then(|w| w.with_envelope(&brown.envelope))
    .map_err(|e| RunError::Io(format!("cannot use {}: {e}", workdir.display())))?;
    let mut cx = ToolContext {
        workspace,
        shell: config.shell.clone(),
        result_cap: config.read_limit.unwrap_or(100_000),
        cancel: options.cancel.clone(),
        change_log: Some(change_log.clone()),
        run_id: None,
        scratchpad: Some(files.dir.join("scratchpad.json")),
        http: config.http.clone(),
    };
    let system = brown.system.as_deref();
    let (sandbox, sandbox_record) = crate::confine::sandbox(config, &workdir, &files.dir)?;
    cx.shell.sandbox.clone_from(&sandbox);
    // The MCP servers agents name: started (or reached) and listed before the first turn.
    let used: Vec<crate::mcp::McpServer> = config
        .mcp_servers
        .iter()
        .filter(|s| {
            config.agents.iter().any(|a| {
                a.mcp
                    .iter()
                    .any(|(name, _)| name.eq_ignore_ascii_case(&s.name))
            })
        })
        .cloned()
        .collect();
    let mcp = crate::mcp::Clients::start(
        &used,
        &config.shell.env,
        &workdir,
        sandbox.as_ref(),
        &runtime,
    )?;
    check_mcp_capabilities(config, &mcp)?;
    crate::cli_agent::check_programs(config)?;
    let cap = options.max_turns.or(config.budget.max_turns);
    let budget = options.max_total_tokens.or(config.budget.max_total_tokens);
    // A state machine starts with its initial state's agent; a structured selection with its
    // default agent; the others with the first agent of `Agents`.
    let Some(mut agent) = config.first_agent() else {
        return Err(RunError::Io(
            "the pipeline has no agent to start with".into(),
        ));
    };
    let mut state;
    let mut router_state = RouterState::default();
    let mut tokens: BTreeMap<String, Usage> = BTreeMap::new();
    let mut turns = 0u32;
    let mut corrections = 0u32;
    let mut pending: Option<Pending> = None;
    if resuming {
        let read = journal::read(&files.journal, &files.key)?;
        let replayed = replay(read.records.clone(), &workdir)?;
        if replayed.ended.is_some() {
            return Err(RunError::Io(format!(
                "the run in {} has ended; there is nothing to resume",
                workdir.display()
            )));
        }
        state = replayed.state;
        router_state = replayed.router_state;
        tokens = replayed.tokens;
        turns = replayed.turns;
        corrections = replayed.corrections;
        pending = replayed.pending;
        for (name, n) in &replayed.steps {
            if let Some(model) = config.agent(name).and_then(|a| models.get(&a.model)) {
                model.skip_steps(name, *n);
            }
        }
        if let Some(name) = replayed.next {
            agent = config.agent(&name).unwrap_or(agent);
        }
        state.journal = Some(Journal::resume(&files.journal, files.key, &read)?);
        // The change log must hold the run's entries as the runner wrote them; a turn whose
        // entry was journaled but not appended yet gets it now, once.
        let unappended = pending.as_ref().and_then(|p| p.entry.clone());
        let checked = match unappended {
            Some(entry) => state.own.append(&change_log, entry).map(|_| ()),
            None => state.own.verify(&change_log),
        };
        if let Err(e) = checked {
            return Err(match e {
                vouch_evidence::Error::Tampered { .. } => RunError::Tampered(e.to_string()),
                other => RunError::Evidence(other),
            });
        }
    } else {
        state = RunState::new(&workdir);
        state.run_id = vouch_evidence::new_session_id();
        state.own = vouch_evidence::OwnEntries::empty(state.run_id.clone());
        let mut journal = Journal::create(&files.journal, files.key)?;
        let task = brown.task(&options.task);
        journal.write(&Record::Start {
            run_id: state.run_id.clone(),
            task: task.clone(),
        })?;
        state.journal = Some(journal);
        state.apply_user(&task);
        // The change log as the run finds it: it may hold other sessions' entries, never one of
        // this run's.
        if let Err(e) = state.own.verify(&change_log) {
            return Err(RunError::Evidence(e));
        }
    }
    state.session.id.clone_from(&state.run_id);
    cx.run_id = Some(state.run_id.clone());
    state.journal(&sandbox_record)?;
    let task = state
        .transcript
        .first()
        .and_then(|(_, m)| match m {
            vouch_llm::ChatMessage::User { text } => Some(text.clone()),
            _ => None,
        })
        .unwrap_or_default();
    let mut steering = Steering::new(config, models, &runtime);
    // A model-driven selection picks the first speaker too.
    if !resuming && config.gates().config().selection().kind.is_model_driven() {
        match steering.pick(config, &state, &task, &mut router_state, &mut tokens) {
            Pick::Next { agent: name, note } => {
                agent = config.agent(&name).unwrap_or(agent);
                let decision = Decision::Route {
                    to: Some(agent.name.clone()),
                    keyword: config.gates().config().selection().kind.name().to_owned(),
                    from: None,
                };
                state.journal(&Record::Decided {
                    agent: agent.name.clone(),
                    decision,
                    state: router_state.clone(),
                    message: Some(note.clone()),
                })?;
                state.apply_user(&note);
            }
            Pick::Done(reason) | Pick::Stuck(reason) => {
                return Err(RunError::Model(format!(
                    "the run could not start: {reason}"
                )));
            }
        }
    }
    let mut approver = crate::approval::Approver::new(config.approve.clone(), options.approval);
    let mut window = config.compaction;
    let mut since_verifier = 0u32;
    let mut last_input = 0u64;
    let mut crash_after_effects = options.crash_after_effects;
    let spent = |tokens: &BTreeMap<String, Usage>| -> u64 {
        tokens.values().map(|u| u.input + u.output).sum()
    };
    let ended = loop {
        if cx.cancelled() {
            break Ended::Interrupted;
        }
        // A run past its budget does nothing more, not even the calls a resumed turn left.
        if let Some(budget) = budget
            && spent(&tokens) >= budget
        {
            break Ended::TokenBudget {
                tokens: spent(&tokens),
                budget,
            };
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
        let turn = match &agent.cli {
            Some(cli) => {
                let c = crate::cli_agent::CliContext {
                    agent,
                    cli,
                    cx: &cx,
                    system,
                    number: turns,
                };
                state.cli_turn(&c, continuing, progress)?
            }
            None => {
                let client = models
                    .get(&agent.model)
                    .ok_or_else(|| RunError::Model(format!("no model `{}`", agent.model)))?;
                // Past `ContextBudget.CutoverAt` prompt tokens, the compaction window applies.
                if let Some(cutover) = config.cutover_tokens
                    && last_input >= cutover
                    && window.is_none()
                {
                    window = Some(crate::config::Compaction::cutover());
                }
                let sub_alias = agent.sub_agent.model.as_deref().unwrap_or(&agent.model);
                let sub_client = models.get(sub_alias).unwrap_or(client);
                let mut t = TurnContext {
                    agent,
                    client: client.as_ref(),
                    model: config.model(&agent.model),
                    cx: &cx,
                    runtime: &runtime,
                    budget_left: budget.map(|b| b.saturating_sub(spent(&tokens))),
                    crash_after_effects: &mut crash_after_effects,
                    system,
                    window,
                    sub: (sub_client.as_ref(), config.model(sub_alias)),
                    mcp: &mcp,
                    approver: &mut approver,
                };
                state.turn(&mut t, continuing, progress)?
            }
        };
        let turn_usage = turn.usage + std::mem::take(&mut state.sub_usage);
        last_input = turn.usage.input;
        let used = tokens.entry(agent.name.clone()).or_default();
        *used = *used + turn_usage;
        match turn.end {
            TurnEnd::Finished => {}
            // The turn is journaled as far as it went; resuming finishes it, and records it.
            TurnEnd::Interrupted => break Ended::Interrupted,
            TurnEnd::OutOfTokens => {
                break Ended::TokenBudget {
                    tokens: spent(&tokens),
                    budget: budget.unwrap_or(0),
                };
            }
            TurnEnd::ModelFailed(error) => {
                break Ended::ModelFailed {
                    agent: agent.name.clone(),
                    error,
                };
            }
        }
        if !recorded {
            let entry = entry(&state, turns, &agent.name, &turn.effects);
            state.journal(&Record::Recorded {
                agent: agent.name.clone(),
                entry: entry.clone(),
            })?;
            let checked = match entry {
                Some(entry) => state.own.append(&change_log, entry).map(|_| ()),
                None => state.own.verify(&change_log),
            };
            match checked {
                Ok(()) => {}
                Err(e @ vouch_evidence::Error::Tampered { .. }) => {
                    break Ended::Tampered {
                        reason: e.to_string(),
                    };
                }
                Err(e) => return Err(RunError::Evidence(e)),
            }
        }
        state.save(&files.session)?;
        let history = History::new(&state.session, &workdir)
            .agent(Some(&agent.name))
            .change_log(state.own.change_log());
        let routed = config
            .router
            .decide(&history, &router_state)
            .map_err(|e| RunError::Io(e.to_string()))?;
        router_state = routed.state;
        let mut decision = routed.decision;
        since_verifier += 1;
        let (mut message, mut next) = (None, agent);
        let spent_now = spent(&tokens);
        // The decision stands as the steering settled it (a model's pick, a termination).
        steering.settle(
            config,
            &mut decision,
            &state,
            &task,
            &mut router_state,
            &mut tokens,
            &mut next,
            &mut message,
            &workdir,
            spent_now,
        );
        // The verifier speaks every few turns, and right after a handoff it had blocked.
        if let Some(v) = config.gates().config().verifier()
            && let Decision::Route { .. } = &decision
            && (since_verifier >= v.every
                || (v.on_suspicious
                    && routed.iteration > 1
                    && corrections > 0
                    && !next.name.eq_ignore_ascii_case(&v.agent)))
            && let Some(verifier) = config.agent(&v.agent)
            && !agent.name.eq_ignore_ascii_case(&v.agent)
        {
            since_verifier = 0;
            message = Some(format!(
                "{}\n\n[verifier] {} audits the evidence before {} goes on.",
                message.unwrap_or_default(),
                verifier.name,
                next.name
            ));
            steering.after_verifier = Some(next.name.clone());
            next = verifier;
            decision = Decision::Route {
                to: Some(verifier.name.clone()),
                keyword: "verifier".to_owned(),
                from: Some(agent.name.clone()),
            };
        } else if let Some(resume) = steering.after_verifier.take()
            && config
                .gates()
                .config()
                .verifier()
                .is_some_and(|v| agent.name.eq_ignore_ascii_case(&v.agent))
        {
            // The verifier has spoken: the agent it came before goes on; a finding is a
            // correction for that agent.
            let finding = config.gates().config().verifier().is_some_and(|v| {
                state
                    .transcript
                    .iter()
                    .rev()
                    .take_while(|(w, _)| w.is_some())
                    .any(|(_, m)| matches!(m, vouch_llm::ChatMessage::Assistant { text, .. } if text.contains(&v.findings_keyword)))
            });
            next = config.agent(&resume).unwrap_or(agent);
            message = Some(if finding {
                format!(
                    "[verifier] {} found an inconsistency (above): {}, address it before you go on.",
                    agent.name, next.name
                )
            } else {
                format!(
                    "[verifier] {} found nothing amiss: {} goes on.",
                    agent.name, next.name
                )
            });
            decision = Decision::Route {
                to: Some(next.name.clone()),
                keyword: "verified".to_owned(),
                from: Some(agent.name.clone()),
            };
        }
        let routed_decision = decision;
        state.journal(&Record::Decided {
            agent: agent.name.clone(),
            decision: routed_decision.clone(),
            state: router_state.clone(),
            message: message.clone(),
        })?;
        progress(Progress::Decided {
            agent: &agent.name,
            decision: &routed_decision,
            usage: turn_usage,
        });
        if let Some(text) = &message {
            state.apply_user(text);
        }
        match routed_decision {
            Decision::Route { .. } => agent = next,
            Decision::Correct { .. } => {
                corrections += 1;
                agent = next;
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
    };
    state.save(&files.session)?;
    Ok(Summary {
        ended,
        turns,
        corrections,
        tokens,
        session: files.session.clone(),
        change_log,
        record: files.dir.clone(),
    })
}

/// Checks that the MCP tools agents keep by `Capabilities` are tools their servers list.
fn check_mcp_capabilities(config: &RunConfig, mcp: &crate::mcp::Clients) -> Result<(), RunError> {
    for agent in &config.agents {
        for (server, keep) in &agent.mcp {
            let listed: Vec<&str> = mcp
                .tools_of(server)
                .iter()
                .map(|t| t.tool.as_str())
                .collect();
            for tool in keep.iter().flatten() {
                if !listed.contains(&tool.as_str()) {
                    return Err(RunError::Mcp(format!(
                        "agent `{}` keeps the tool `{tool}` of the MCP server `{server}`, which lists {}",
                        agent.name,
                        if listed.is_empty() {
                            "no tools".to_owned()
                        } else {
                            listed.join(", ")
                        }
                    )));
                }
            }
        }
    }
    Ok(())
}

/// Returns the change-log entry of turn `number` of `agent`, which had `effects`: the files it
/// wrote and deleted, every command with its receipt, the commits; `None` when it changed and
/// ran nothing (decision D65).
fn entry(state: &RunState, number: u32, agent: &str, effects: &[Effect]) -> Option<String> {
    let mut turn = NewTurn::new(agent);
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
            // The commit is the change log's; its git calls stay in the journal.
            Effect::Git(_) => {}
            Effect::Tool(call) => turn.tool_calls.push(call.clone()),
        }
    }
    let empty = turn.files_written.is_empty()
        && turn.files_deleted.is_empty()
        && turn.commands.is_empty()
        && turn.git_commits.is_empty()
        && turn.tool_calls.is_empty();
    (!empty).then(|| state.own.entry(&turn, i64::from(number)))
}
