//! Running a coding agent on a test's prompt and reading the session it wrote: Claude Code,
//! Codex and Gemini CLI, each found on `PATH`, each with its prompt on standard input, a timeout that kills
//! the agent's whole process group, its exit status and standard error kept.

mod claude;
mod codex;
mod gemini;

use std::path::Path;
use std::time::Duration;

use vouch_process::{Options, clip};
use vouch_session::ReadReport;

pub use claude::ClaudeCode;
pub use codex::Codex;
pub use gemini::Gemini;

use crate::error::Error;
use crate::spec::{AgentKind, TestFile};

/// What became of one run of an agent.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct AgentRun {
    /// The session the agent wrote, with the lines its read skipped, when one was found.
    pub log: Option<ReadReport>,
    /// Where the session was read from (the agent's stream, or its log file).
    pub source: Option<String>,
    /// The agent's exit code; `None` when it was killed.
    pub exit_code: Option<i32>,
    /// True when the agent ran past the test's `timeout` and was killed.
    pub timed_out: bool,
    /// The end of the agent's standard error.
    pub stderr: String,
    /// How long it ran.
    pub elapsed: Duration,
    /// Why there is no session, when there is none.
    pub error: Option<String>,
}

impl AgentRun {
    /// A run that never started, and why.
    pub fn failed(error: impl Into<String>) -> AgentRun {
        AgentRun {
            log: None,
            source: None,
            exit_code: None,
            timed_out: false,
            stderr: String::new(),
            elapsed: Duration::ZERO,
            error: Some(error.into()),
        }
    }
}

/// Runs an agent on a test.
pub trait AgentRunner: Send + Sync {
    /// Runs the agent on `test`'s prompt in `dir` (a fresh directory holding the test's
    /// setup), and reads the session it wrote.
    fn run(&self, test: &TestFile, dir: &Path) -> AgentRun;
}

/// Returns the runner of `agent`, or why there is none.
pub fn runner_for(agent: &AgentKind) -> Result<Box<dyn AgentRunner>, Error> {
    runner_for_confined(agent, false)
}

/// Returns the runner of `agent`, run in the kernel's sandbox when `confined`
/// (`vouch test --sandbox`), or why there is none.
pub fn runner_for_confined(
    agent: &AgentKind,
    confined: bool,
) -> Result<Box<dyn AgentRunner>, Error> {
    match agent {
        AgentKind::ClaudeCode => {
            let program = vouch_process::find_on_process_path("claude").ok_or_else(|| {
                Error::NoRunner("agent `claude` (Claude Code) was not found on PATH".into())
            })?;
            Ok(Box::new(ClaudeCode::new(program).confined(confined)))
        }
        AgentKind::Codex => {
            let program = vouch_process::find_on_process_path("codex").ok_or_else(|| {
                Error::NoRunner("agent `codex` (Codex CLI) was not found on PATH".into())
            })?;
            Ok(Box::new(Codex::new(program).confined(confined)))
        }
        AgentKind::Gemini => {
            let program = vouch_process::find_on_process_path("gemini").ok_or_else(|| {
                Error::NoRunner("agent `gemini` (Gemini CLI) was not found on PATH".into())
            })?;
            Ok(Box::new(Gemini::new(program).confined(confined)))
        }
        AgentKind::Other(name) => Err(Error::NoRunner(format!(
            "vouch cannot run agent `{name}`; give the test a recorded `session:` to evaluate, or use claude-code, codex or gemini"
        ))),
    }
}

/// Runs an agent's `cmd` with the test's prompt on standard input and its timeout; returns the
/// run so far (exit, timeout, standard error) and what the agent printed, or why it could not
/// start.
pub(crate) fn start(
    program: &Path,
    cmd: std::process::Command,
    test: &TestFile,
    confine: Option<&Path>,
) -> Result<(AgentRun, Vec<u8>), String> {
    let prompt = test.prompt.clone().unwrap_or_default().into_bytes();
    let mut options = Options::new(test.timeout).stdin(prompt);
    if let Some(dir) = confine {
        // `vouch test --sandbox`: the agent writes beneath the test's folder and its own state,
        // reads the system's, the toolchains' and its program's folders, reaches the network.
        let sandbox = vouch_process::Sandbox::new(vec![dir.to_owned(), std::env::temp_dir()])
            .for_agent_cli(program, &cmd);
        options = options.sandboxed(sandbox);
    }
    let out = vouch_process::run(cmd, &options)
        .map_err(|e| format!("could not start {}: {e}", program.display()))?;
    let run = AgentRun {
        log: None,
        source: None,
        exit_code: out.exit_code,
        timed_out: out.timed_out,
        stderr: clip::tail(&out.stderr_text(), 2_000),
        elapsed: out.elapsed,
        error: None,
    };
    Ok((run, out.stdout))
}
