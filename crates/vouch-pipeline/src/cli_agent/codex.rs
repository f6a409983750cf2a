//! Codex CLI as an agent of a run: `codex exec --json --skip-git-repo-check -C <workdir>
//! --sandbox <mode>`, the prompt on standard input (`-`); later turns continue the thread
//! (`codex exec … resume <thread id> -`). The thread id is the one its first turn's events
//! name (`thread.started`); its log is the rollout `sessions/YYYY/MM/DD/rollout-*-<thread
//! id>.jsonl` in its home (`CODEX_HOME`, else `~/.codex`), appended on resume.

use std::path::{Path, PathBuf};
use std::process::Command;

use vouch_session::locations;

use crate::config::CliAgent;

/// Returns the command of one turn: a new thread, or the continuation of `session`.
pub(super) fn command(
    program: &Path,
    cli: &CliAgent,
    workdir: &Path,
    session: Option<&str>,
) -> Command {
    let mut cmd = Command::new(program);
    cmd.args(["exec", "--json", "--skip-git-repo-check", "-C"])
        .arg(workdir);
    let (flag, _, _) = cli.kind.permissions();
    cmd.args([flag, cli.permissions.as_str()]);
    if let Some(model) = &cli.model {
        cmd.args(["--model", model]);
    }
    cmd.args(&cli.args);
    if let Some(thread) = session {
        cmd.args(["resume", thread]);
    }
    cmd.arg("-");
    cmd
}

/// Returns the rollout Codex keeps of thread `session`.
pub(super) fn saved_log(session: &str) -> Option<PathBuf> {
    let home = locations::codex_home(locations::env_with(&[]))?;
    locations::codex_rollout(&home, session)
}
