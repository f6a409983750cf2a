//! Running a coding agent on a test's prompt and reading the session it wrote: Claude Code and
//! Codex, each found on `PATH`, each with its prompt on standard input, a timeout that kills
//! the agent's whole process group, its exit status and standard error kept.

mod claude;
mod codex;

use std::path::{Path, PathBuf};
use std::time::Duration;

use vouch_session::ReadReport;

pub use claude::{ClaudeCode, project_slug};
pub use codex::Codex;

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
pub fn runner_for(agent: &AgentKind) -> Result<Box<dyn AgentRunner>, String> {
    match agent {
        AgentKind::ClaudeCode => {
            let program = find_on_path("claude")
                .ok_or("agent `claude` (Claude Code) was not found on PATH")?;
            Ok(Box::new(ClaudeCode::new(program)))
        }
        AgentKind::Codex => {
            let program =
                find_on_path("codex").ok_or("agent `codex` (Codex CLI) was not found on PATH")?;
            Ok(Box::new(Codex::new(program)))
        }
        AgentKind::Other(name) => Err(format!(
            "vouch cannot run agent `{name}`; give the test a recorded `session:` to evaluate, or use claude-code or codex"
        )),
    }
}

/// Runs an agent's `cmd` with the test's prompt on standard input and its timeout; returns the
/// run so far (exit, timeout, standard error) and what the agent printed, or why it could not
/// start.
pub(crate) fn start(
    program: &Path,
    cmd: std::process::Command,
    test: &TestFile,
) -> Result<(AgentRun, Vec<u8>), String> {
    let prompt = test.prompt.clone().unwrap_or_default().into_bytes();
    let out = vouch_gate::run_process(cmd, Some(prompt), test.timeout, false)
        .map_err(|e| format!("could not start {}: {e}", program.display()))?;
    let run = AgentRun {
        log: None,
        source: None,
        exit_code: out.exit_code,
        timed_out: out.timed_out,
        stderr: tail(&out.stderr, 2_000),
        elapsed: out.elapsed,
        error: None,
    };
    Ok((run, out.stdout))
}

/// Returns the first executable file named `name` in the directories of `PATH`.
pub fn find_on_path(name: &str) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|candidate| {
            std::fs::metadata(candidate)
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
}

/// Returns at most the last `max` characters of `bytes` read as text.
pub(crate) fn tail(bytes: &[u8], max: usize) -> String {
    let text = String::from_utf8_lossy(bytes);
    let count = text.chars().count();
    if count <= max {
        return text.into_owned();
    }
    let cut: String = text.chars().skip(count - max).collect();
    format!("…{cut}")
}
