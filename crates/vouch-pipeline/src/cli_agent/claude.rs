//! Claude Code as an agent of a run: `claude -p --output-format stream-json --verbose`, the
//! prompt on standard input; the first turn names the session (`--session-id`, a fresh UUID),
//! later turns continue it (`--resume`), so that a correction reaches the same conversation.
//! Its log is `<config>/projects/<project>/<session id>.jsonl` (`CLAUDE_CONFIG_DIR`, else
//! `~/.claude`), appended on resume.

use std::path::{Path, PathBuf};
use std::process::Command;

use vouch_session::locations;

use crate::config::CliAgent;

/// Returns the command of one turn: a new session `session`, or its continuation.
pub(super) fn command(program: &Path, cli: &CliAgent, session: &str, resume: bool) -> Command {
    let mut cmd = Command::new(program);
    cmd.args(["-p", "--output-format", "stream-json", "--verbose"]);
    cmd.args([if resume { "--resume" } else { "--session-id" }, session]);
    let (flag, _, default) = cli.kind.permissions();
    cmd.args([flag, cli.permissions.as_str()]);
    // The default mode accepts edits; commands are allowed too, the rest (the web) is not.
    if cli.permissions == default {
        cmd.args(["--allowedTools", "Bash"]);
    }
    if let Some(model) = &cli.model {
        cmd.args(["--model", model]);
    }
    cmd.args(&cli.args);
    cmd
}

/// Returns the log Claude Code keeps of `session` run in `workdir`.
pub(super) fn saved_log(workdir: &Path, session: &str) -> Option<PathBuf> {
    let config = locations::claude_config_dir(locations::env_with(&[]))?;
    Some(locations::claude_project_dir(&config, workdir).join(format!("{session}.jsonl")))
}
