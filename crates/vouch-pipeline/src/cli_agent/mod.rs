//! An agent that is a coding agent's CLI (`Agents[].Cli`): each of its turns runs Claude Code,
//! Codex or Gemini CLI headless in the run's working directory, with the turn's prompt — the
//! task and what was handed to it, or a correction — on standard input.
//!
//! 1. The agent keeps one CLI session across its turns: the first turn starts it (Claude Code's
//!    id is chosen by vouch; Codex's and Gemini's are the ones their first stream names), later
//!    turns resume it, so a correction continues the same conversation.
//! 2. Before the CLI starts, the turn is journaled (`cli_begin`: its prompt, its session, how
//!    much of the session's log earlier turns account for); a run killed during the turn
//!    resumes the CLI's session with the same prompt, and records the turn once.
//! 3. After it, vouch reads the CLI's own log — the saved session, verified by id, else the
//!    stream it printed — with the readers of `vouch session`: the turn's part of it becomes a
//!    subagent of the turn in the run's session (a call named after the CLI), its calls the
//!    turn's evidence (files written, commands with receipts, MCP calls), its last message the
//!    agent's reply the router decides on. A CLI that fails, hangs past `TimeoutSeconds` or
//!    exits non-zero is a reply that says so, not a crash of the run.
//! 4. The CLI runs in the run's kernel sandbox, widened for what it needs itself: its own state
//!    folders and the network (its model is there).

mod claude;
mod codex;
mod evidence;
mod gemini;
mod prompt;
mod read;

use vouch_llm::Usage;
use vouch_process::Options;
use vouch_session::{EventKind, Format, Outcome, ReadOptions, Role, Session};

use crate::config::{AgentConfig, CliAgent, CliKind, RunConfig};
use crate::conversation::CliApplied;
use crate::conversation::RunState;
use crate::error::RunError;
use crate::journal::Record;
use crate::progress::Progress;
use crate::replay::{CliBegun, Pending};
use crate::tools::ToolContext;
use crate::turn::{Turn, TurnEnd};
use read::{TurnLog, read_saved, saved_log, state_dir, usage_of};

/// What a CLI turn runs with.
pub(crate) struct CliContext<'a> {
    pub(crate) agent: &'a AgentConfig,
    pub(crate) cli: &'a CliAgent,
    pub(crate) cx: &'a ToolContext,
    /// The run's text before every agent's instructions.
    pub(crate) system: Option<&'a str>,
    /// The turn's number.
    pub(crate) number: u32,
}

/// Checks, before the first turn, that every CLI agent's program is on `PATH`.
pub(crate) fn check_programs(config: &RunConfig) -> Result<(), RunError> {
    for agent in &config.agents {
        if let Some(cli) = &agent.cli
            && vouch_process::find_on_process_path(cli.kind.program()).is_none()
        {
            return Err(RunError::Io(format!(
                "agent `{}` is {} (`Cli: {}`), but `{}` is not on PATH",
                agent.name,
                cli.kind.product(),
                cli.kind.name(),
                cli.kind.program()
            )));
        }
    }
    Ok(())
}

/// What running the CLI gave.
struct Ran {
    /// The turn's part of the CLI's session.
    session: Session,
    /// Where it was read from.
    source: String,
    /// The session's id, as now known.
    session_id: Option<String>,
    /// The reply the router decides on.
    text: String,
    outcome: Outcome,
    usage: Usage,
    cancelled: bool,
}

impl RunState {
    /// Takes one turn of a CLI agent (or finishes one the journal shows begun).
    pub(crate) fn cli_turn(
        &mut self,
        c: &CliContext<'_>,
        pending: Option<Pending>,
        progress: &mut dyn FnMut(Progress<'_>),
    ) -> Result<Turn, RunError> {
        let agent = c.agent;
        let begun = match pending {
            // The turn was recorded before the run stopped: only its decision is left.
            Some(p) if p.finished || p.recorded => {
                return Ok(Turn {
                    usage: Usage::default(),
                    effects: p.effects,
                    end: TurnEnd::Finished,
                });
            }
            Some(Pending { cli: Some(b), .. }) => {
                // A run killed during the turn may have left its CLI running: it is stopped
                // before the session is resumed, so that one CLI writes its log.
                let left =
                    vouch_process::kill_tagged(TURN_TAG, &turn_tag(&self.run_id, &b.call_id));
                if !left.is_empty() {
                    std::thread::sleep(std::time::Duration::from_millis(100));
                }
                b
            }
            _ => {
                let session = self.cli_sessions.get(&agent.name).cloned().or_else(|| {
                    (c.cli.kind == CliKind::ClaudeCode).then(vouch_evidence::new_session_id)
                });
                let workdir = c.cx.workspace.root();
                let (before, before_usage) = session
                    .as_deref()
                    .and_then(|s| read_saved(c.cli.kind, workdir, s))
                    .map_or((0, Usage::default()), |(s, _)| {
                        (s.events.len(), usage_of(&s))
                    });
                let first = !self.cli_sessions.contains_key(&agent.name);
                let b = CliBegun {
                    call_id: format!("cli-{}", c.number),
                    session,
                    prompt: prompt::prompt(&self.transcript, agent, c.system, first),
                    before,
                    before_usage,
                };
                self.journal(&Record::CliBegin {
                    agent: agent.name.clone(),
                    call_id: b.call_id.clone(),
                    session: b.session.clone(),
                    prompt: b.prompt.clone(),
                    before: b.before,
                    before_usage: b.before_usage,
                })?;
                if let Some(s) = &b.session {
                    self.cli_sessions.insert(agent.name.clone(), s.clone());
                }
                b
            }
        };
        let started = jiff::Timestamp::now().to_string();
        let ran = run(c, &begun, &turn_tag(&self.run_id, &begun.call_id))?;
        if ran.cancelled {
            return Ok(Turn {
                usage: Usage::default(),
                effects: Vec::new(),
                end: TurnEnd::Interrupted,
            });
        }
        let workdir = c.cx.workspace.root().to_owned();
        let effects = evidence::effects(&ran.session, &workdir, &started);
        let mut log = Vec::new();
        vouch_session::write_jsonl(&ran.session, &mut log)
            .map_err(|e| RunError::Io(format!("cannot record the CLI's session: {e}")))?;
        self.journal(&Record::CliTurn {
            agent: agent.name.clone(),
            call_id: begun.call_id.clone(),
            cli: c.cli.kind.name().to_owned(),
            session: ran.session_id.clone(),
            prompt: begun.prompt.clone(),
            text: ran.text.clone(),
            outcome: ran.outcome,
            source: ran.source.clone(),
            usage: ran.usage,
            log: String::from_utf8_lossy(&log).into_owned(),
            effects: effects.clone(),
        })?;
        let view = vouch_evidence::EvidenceView::new(
            &ran.session,
            &workdir,
            vouch_evidence::ArtifactPaths::default(),
        );
        for call in view.all_calls() {
            if let Some(result) = call.result {
                progress(Progress::ToolCall {
                    agent: &agent.name,
                    call: call.call,
                    result,
                });
            }
        }
        let apply = CliApplied {
            agent: &agent.name,
            kind: c.cli.kind,
            call_id: &begun.call_id,
            session_id: ran.session_id.as_deref(),
            prompt: &begun.prompt,
            text: &ran.text,
            outcome: ran.outcome,
        };
        self.apply_cli(&apply, ran.session);
        Ok(Turn {
            usage: ran.usage,
            effects,
            end: TurnEnd::Finished,
        })
    }
}

/// The variable that tags every process of a CLI turn: `<run id>/<call id>`.
const TURN_TAG: &str = "VOUCH_CLI_TURN";

fn turn_tag(run_id: &str, call_id: &str) -> String {
    format!("{run_id}/{call_id}")
}

/// Runs the CLI for the turn `begun`, its processes tagged `tag`, and reads what it did.
fn run(c: &CliContext<'_>, begun: &CliBegun, tag: &str) -> Result<Ran, RunError> {
    let kind = c.cli.kind;
    let workdir = c.cx.workspace.root();
    let program = vouch_process::find_on_process_path(kind.program())
        .ok_or_else(|| RunError::Io(format!("`{}` is no longer on PATH", kind.program())))?;
    let session = begun.session.as_deref();
    // A session whose log exists is resumed; one that never got that far starts again.
    let resume = session.is_some_and(|s| saved_log(kind, workdir, s).is_some());
    let mut cmd = match kind {
        CliKind::ClaudeCode => {
            claude::command(&program, c.cli, session.unwrap_or_default(), resume)
        }
        CliKind::Codex => codex::command(&program, c.cli, workdir, session.filter(|_| resume)),
        CliKind::Gemini => gemini::command(&program, c.cli, session.filter(|_| resume)),
    };
    cmd.current_dir(workdir).env(TURN_TAG, tag);
    // The kernel's sandbox can only open folders that exist: the CLI's state folder is made
    // first (the CLI would make it itself).
    if let Some(dir) = state_dir(kind) {
        let _ = std::fs::create_dir_all(dir);
    }
    let mut options = Options::new(c.cli.timeout).stdin(begun.prompt.as_bytes().to_vec());
    if let Some(flag) = &c.cx.cancel {
        options = options.cancel_on(flag.clone());
    }
    if let Some(sandbox) = &c.cx.shell.sandbox {
        options = options.sandboxed(sandbox.clone().for_agent_cli(&program, &cmd));
    }
    let out = vouch_process::run(cmd, &options);
    let out = match out {
        Ok(out) => out,
        Err(e) => {
            return Ok(failed(
                begun,
                format!("[vouch] {} could not start: {e}", kind.product()),
            ));
        }
    };
    if out.cancelled {
        return Ok(Ran {
            cancelled: true,
            ..failed(begun, String::new())
        });
    }
    let TurnLog {
        session: turn,
        source,
        session_id,
        usage,
    } = read::read_turn(kind, workdir, &out.stdout, begun);
    let last = turn
        .events
        .iter()
        .rev()
        .find_map(|e| match &e.kind {
            EventKind::Message(m) if e.actor.role == Role::Assistant => Some(m.text.clone()),
            _ => None,
        })
        .unwrap_or_default();
    let stderr = vouch_process::clip::tail(&out.stderr_text(), 800);
    let (text, outcome) = if out.timed_out {
        (
            format!(
                "{last}\n\n[vouch] {} ran past its {} s and was stopped (its process group killed); the turn failed.",
                kind.product(),
                c.cli.timeout.as_secs()
            ),
            Outcome::Failed { exit_code: None },
        )
    } else if out.exit_code == Some(0) {
        (last, Outcome::Ok)
    } else {
        let how = out.exit_code.map_or_else(
            || "was ended by a signal".to_owned(),
            |c| format!("exited with code {c}"),
        );
        (
            format!(
                "{last}\n\n[vouch] {} {how}; the turn failed.{}",
                kind.product(),
                if stderr.trim().is_empty() {
                    String::new()
                } else {
                    format!(" Its standard error ends:\n{}", stderr.trim_end())
                }
            ),
            Outcome::Failed {
                exit_code: out.exit_code,
            },
        )
    };
    Ok(Ran {
        session: turn,
        source,
        session_id,
        text: text.trim_start().to_owned(),
        outcome,
        usage,
        cancelled: false,
    })
}

/// A turn whose CLI could not run.
fn failed(begun: &CliBegun, text: String) -> Ran {
    Ran {
        session: Session::default(),
        source: "nothing".to_owned(),
        session_id: begun.session.clone(),
        text,
        outcome: Outcome::Error,
        usage: Usage::default(),
        cancelled: false,
    }
}

/// Benchmarks only: what vouch does with a CLI's turn once the CLI has exited — reads its saved
/// session at `log` (a Claude Code log), keeps what follows the first `before` events, takes
/// the effects, writes the journal's copy, and adds the turn to a run's session. Returns how many effects the turn had.
#[doc(hidden)]
pub fn record_turn_for_bench(
    log: &std::path::Path,
    workdir: &std::path::Path,
    before: usize,
) -> usize {
    let options = ReadOptions {
        format: Some(Format::ClaudeCode),
        ..ReadOptions::default()
    };
    let Ok(report) = vouch_session::read_path(log, &options) else {
        return 0;
    };
    let begun = CliBegun {
        call_id: "cli-1".to_owned(),
        session: Some(report.session.id.clone()),
        prompt: String::new(),
        before,
        before_usage: Usage::default(),
    };
    let (turn, _) = read::after(report.session, &begun);
    let effects = evidence::effects(&turn, workdir, "2026-01-01T00:00:00Z");
    let mut log = Vec::new();
    if vouch_session::write_jsonl(&turn, &mut log).is_err() {
        return 0;
    }
    let mut state = RunState::new(workdir);
    state.apply_cli(
        &CliApplied {
            agent: "Developer",
            kind: CliKind::ClaudeCode,
            call_id: "cli-1",
            session_id: None,
            prompt: "",
            text: "done",
            outcome: Outcome::Ok,
        },
        turn,
    );
    effects.len() + log.len().min(1)
}
