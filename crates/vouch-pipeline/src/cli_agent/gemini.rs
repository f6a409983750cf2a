//! Gemini CLI as an agent of a run: `gemini --output-format stream-json --approval-mode
//! <mode>`, the prompt on standard input; later turns continue the chat (`--resume <session
//! id>`). The session id is the one its first turn's stream names (`init`); its log is the chat
//! it saves under `~/.gemini/tmp/<project>/chats/` (`GEMINI_CLI_HOME` moves it).

use std::path::{Path, PathBuf};
use std::process::Command;

use vouch_session::locations;

use crate::config::CliAgent;

/// Returns the command of one turn: a new chat, or the continuation of `session`.
pub(super) fn command(program: &Path, cli: &CliAgent, session: Option<&str>) -> Command {
    let mut cmd = Command::new(program);
    cmd.args(["--output-format", "stream-json"]);
    let (flag, _, _) = cli.kind.permissions();
    cmd.args([flag, cli.permissions.as_str()]);
    if let Some(model) = &cli.model {
        cmd.args(["--model", model]);
    }
    if let Some(session) = session {
        cmd.args(["--resume", session]);
    }
    cmd.args(&cli.args);
    cmd
}

/// Returns the chat Gemini CLI saved of `session`.
pub(super) fn saved_log(session: &str) -> Option<PathBuf> {
    let dir = locations::gemini_dir(locations::env_with(&[]))?;
    locations::gemini_chat_file(&dir, session)
}
