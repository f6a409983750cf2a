//! `shell_run`: a bash script in the working directory, in its own process group, killed
//! whole at its deadline or when it ends (its background jobs with it), processes that left
//! the group hunted down, with a minimal environment (an allowlist: no model keys, no tokens).

use std::fmt::Write as _;
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
    policy.env.apply(&mut cmd);
    let mut options = Options::new(policy.timeout);
    if let Some(sandbox) = &policy.sandbox {
        // A confined command's temporary files go to the run's own temporary folder.
        if let Some(tmp) = sandbox.write.get(1) {
            cmd.env("TMPDIR", tmp);
        }
        options = options.sandboxed(sandbox.clone());
    }
    let mut options = options.merged().cap(policy.output_cap).hunt_escapes();
    if let Some(flag) = &cx.cancel {
        options = options.cancel_on(flag.clone());
    }
    let done = match vouch_process::run(cmd, &options) {
        Ok(done) => done,
        Err(e) => return ToolOutput::error(format!("the command could not start: {e}")),
    };
    let receipt = receipt(command, &done);
    let mut output = done.stdout_text();
    if !done.escaped.is_empty() {
        let list: Vec<String> = done.escaped.iter().map(ToString::to_string).collect();
        let _ = write!(
            output,
            "\n[vouch] {} left the command's process group and {} stopped when it ended: {}",
            if list.len() == 1 {
                "1 process"
            } else {
                "processes"
            },
            if list.len() == 1 { "was" } else { "were" },
            list.join(", ")
        );
    }
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

/// Returns the receipt of `command`, which `done` tells the end of.
pub(super) fn receipt(command: &str, done: &vouch_process::Finished) -> Receipt {
    let started = jiff::Timestamp::now()
        .checked_sub(jiff::SignedDuration::try_from(done.elapsed).unwrap_or_default())
        .unwrap_or_else(|_| jiff::Timestamp::now());
    Receipt {
        command: command.to_owned(),
        exit_code: done.exit_code,
        timed_out: done.timed_out,
        duration: done.elapsed,
        output: done.stdout_text(),
        output_len: done.stdout_len,
        output_sha256: done.stdout_sha256.clone(),
        started_at: started.to_string(),
        call_id: None,
        escaped: done.escaped.iter().map(ToString::to_string).collect(),
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
