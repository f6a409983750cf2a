//! `shell_run`: a bash script in the working directory, in its own process group, killed
//! whole at its deadline, with the model providers' keys out of its environment.

use std::process::Command;

use serde_json::Value;
use vouch_process::Options;
use vouch_session::Outcome;

use crate::tools::{Effect, Receipt, ToolContext, ToolOutput, text_arg};

/// Runs `command` under the shell policy of `cx`.
pub(super) fn run(args: &Value, cx: &ToolContext) -> ToolOutput {
    let command = match text_arg(args, "command") {
        Ok(c) if !c.trim().is_empty() => c,
        Ok(_) => return ToolOutput::error("`command` is empty"),
        Err(e) => return e,
    };
    let policy = &cx.shell;
    if let Some(rule) = policy.deny.iter().find(|r| r.is_match(command)) {
        return ToolOutput::denied(format!("the command matches the deny rule `{rule}`"));
    }
    if !policy.allow.is_empty() && !policy.allow.iter().any(|r| r.is_match(command)) {
        return ToolOutput::denied("the command matches no allow rule of the pipeline's Security");
    }
    let mut cmd = Command::new(if std::path::Path::new("/bin/bash").exists() {
        "/bin/bash"
    } else {
        "sh"
    });
    cmd.arg("-c").arg(command).current_dir(cx.workspace.root());
    for key in &policy.hidden_env {
        cmd.env_remove(key);
    }
    let started_at = jiff::Timestamp::now().to_string();
    let mut options = Options::new(policy.timeout).merged().cap(policy.output_cap);
    if let Some(flag) = &cx.cancel {
        options = options.cancel_on(flag.clone());
    }
    let done = match vouch_process::run(cmd, &options) {
        Ok(done) => done,
        Err(e) => return ToolOutput::error(format!("the command could not start: {e}")),
    };
    let output = done.stdout_text();
    let receipt = Receipt {
        command: command.to_owned(),
        exit_code: done.exit_code,
        timed_out: done.timed_out,
        duration: done.elapsed,
        output: output.clone(),
        output_len: done.stdout_len,
        output_sha256: done.stdout_sha256.clone(),
        started_at,
        call_id: None,
    };
    let (text, outcome) = if done.cancelled {
        (
            format!("[ERROR] the command was stopped: the run was interrupted\n{output}"),
            Outcome::Error,
        )
    } else if done.timed_out {
        (
            format!(
                "[TIMEOUT] the command ran past {} and was killed\n{output}",
                seconds(policy.timeout)
            ),
            Outcome::TimedOut,
        )
    } else if done.exit_code == Some(0) {
        (output, Outcome::Ok)
    } else {
        let code = done.exit_code.or(done.signal.map(|s| 128 + s));
        (
            format!(
                "[EXIT {}]\n{output}",
                code.map_or_else(|| "?".to_owned(), |c| c.to_string())
            ),
            Outcome::Failed { exit_code: code },
        )
    };
    ToolOutput {
        text,
        outcome,
        effects: vec![Effect::Ran(receipt)],
        handoff: None,
    }
}

/// Returns `d` as people write it: `300 s`, `0.5 s`.
fn seconds(d: std::time::Duration) -> String {
    if d.subsec_millis() == 0 {
        format!("{} s", d.as_secs())
    } else {
        format!("{:.1} s", d.as_secs_f64())
    }
}
