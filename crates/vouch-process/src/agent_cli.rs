//! The sandbox of a coding agent's CLI (Claude Code, Codex, Gemini CLI) that vouch starts —
//! for an agent test (`vouch test --sandbox`) or as an agent of a run: on top of what the
//! policy it is given allows, it writes its own state (`~/.claude`, `~/.claude.json`,
//! `~/.codex`, `~/.gemini`, `~/.config`, `~/.cache`, `~/.local/state`, and the folders
//! `CLAUDE_CONFIG_DIR`, `CODEX_HOME`, `GEMINI_CLI_HOME` name), reads its own program's folder,
//! and reaches the network — its model is there.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::Sandbox;

/// The folders of a home an agent CLI keeps its state in.
const STATE: &[&str] = &[
    ".claude",
    ".claude.json",
    ".codex",
    ".gemini",
    ".config",
    ".cache",
    ".local/state",
];

/// The variables that move an agent CLI's state.
const STATE_VARS: &[&str] = &["CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME"];

impl Sandbox {
    /// Returns this sandbox widened for the agent CLI `program` that `cmd` starts: its state
    /// writable (the home's state folders, and those `cmd`'s environment or vouch's own names),
    /// its program's folder readable, the network reachable.
    #[must_use]
    pub fn for_agent_cli(mut self, program: &Path, cmd: &Command) -> Sandbox {
        if let Some(home) = var(cmd, "HOME") {
            let home = PathBuf::from(home);
            self.write.extend(STATE.iter().map(|d| home.join(d)));
        }
        for name in STATE_VARS {
            self.write.extend(var(cmd, name).map(PathBuf::from));
        }
        let program_dir = program
            .canonicalize()
            .ok()
            .and_then(|p| p.parent().map(Path::to_path_buf));
        self.read.extend(program_dir);
        self.network = true;
        self
    }
}

/// Returns the variable `name` as `cmd` will see it: set on it, else vouch's own.
fn var(cmd: &Command, name: &str) -> Option<OsString> {
    match cmd.get_envs().find(|(k, _)| *k == OsStr::new(name)) {
        Some((_, value)) => value.map(OsStr::to_os_string),
        None => std::env::var_os(name),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_agent_cli_writes_its_state_and_reads_its_program() {
        let mut cmd = Command::new("true");
        cmd.env("HOME", "/home/someone")
            .env("CODEX_HOME", "/srv/codex");
        let sandbox = Sandbox::new(vec![PathBuf::from("/work")])
            .for_agent_cli(Path::new("/nonexistent/bin/claude"), &cmd);
        assert!(sandbox.network);
        assert!(sandbox.write.contains(&PathBuf::from("/work")));
        assert!(
            sandbox
                .write
                .contains(&PathBuf::from("/home/someone/.claude"))
        );
        assert!(sandbox.write.contains(&PathBuf::from("/srv/codex")));
        // A program that cannot be found adds no folder to read.
        assert!(sandbox.read.is_empty());
    }
}
