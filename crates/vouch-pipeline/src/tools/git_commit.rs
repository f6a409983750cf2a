//! `git_commit`: every change of the working directory committed, as the agent's work.

use std::process::Command;
use std::time::Duration;

use serde_json::Value;
use vouch_process::Options;

use crate::tools::{Effect, ToolContext, ToolOutput, text_arg};

/// Stages every change and commits it with `message`.
pub(super) fn run(args: &Value, cx: &ToolContext) -> ToolOutput {
    let message = match text_arg(args, "message") {
        Ok(m) if !m.trim().is_empty() => m,
        Ok(_) => return ToolOutput::error("`message` is empty"),
        Err(e) => return e,
    };
    let git = |args: &[&str]| {
        let mut cmd = Command::new("git");
        cmd.args(args).current_dir(cx.workspace.root());
        vouch_process::run(cmd, &Options::new(Duration::from_secs(60)).merged())
    };
    let added = match git(&["add", "-A"]) {
        Ok(done) if done.succeeded() => done,
        Ok(done) => {
            return ToolOutput::error(format!("git add failed: {}", done.stdout_text().trim()));
        }
        Err(e) => return ToolOutput::error(format!("git could not start: {e}")),
    };
    drop(added);
    match git(&["commit", "-q", "-m", message]) {
        Ok(done) if done.succeeded() => {}
        Ok(done) => {
            return ToolOutput::error(format!("git commit failed: {}", done.stdout_text().trim()));
        }
        Err(e) => return ToolOutput::error(format!("git could not start: {e}")),
    }
    match git(&["rev-parse", "HEAD"]) {
        Ok(done) if done.succeeded() => {
            let hash = done.stdout_text().trim().to_owned();
            ToolOutput::ok(format!("committed {hash}")).with(Effect::Committed(hash))
        }
        _ => ToolOutput::error("the commit was made but its hash could not be read"),
    }
}
