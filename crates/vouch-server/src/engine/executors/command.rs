//! `command`: a shell command through the process crate, bound to the worker's life.

use std::path::PathBuf;
use std::process::Command;
use std::sync::Arc;

use serde_json::{Map, Value, json};

use super::{Executor, Job, failed, need_seconds, need_string, seconds, string};
use crate::store::Outcome;

/// `command`: a shell command through the process crate.
#[derive(Debug)]
pub(super) struct ShellCommand {
    /// Whether the kernel confines it.
    pub(super) sandbox: super::CommandSandbox,
}

impl Executor for ShellCommand {
    fn method(&self) -> &'static str {
        "command"
    }

    fn check(&self, inputs: &Map<String, Value>) -> Vec<(String, String)> {
        let mut out = Vec::new();
        need_string(inputs, "command", true, &mut out);
        need_string(inputs, "cwd", false, &mut out);
        need_seconds(inputs, "timeout", &mut out);
        if let Some(v) = inputs.get("output_cap").filter(|v| !v.is_null())
            && v.as_u64().is_none_or(|n| n == 0)
        {
            out.push((
                "inputs.output_cap".into(),
                "`output_cap` must be a positive number of bytes".into(),
            ));
        }
        out
    }

    fn run(&self, job: &Job<'_>) -> Outcome {
        let inputs = &job.task.inputs;
        let Some(script) = string(inputs, "command") else {
            return failed("inputs.command is missing", Value::Null);
        };
        let timeout = seconds(inputs, "timeout", 300.0);
        let cap = inputs
            .get("output_cap")
            .and_then(Value::as_u64)
            .and_then(|n| usize::try_from(n).ok())
            .unwrap_or(1 << 20);
        let mut command = parent_bound_shell();
        command.arg(script);
        if let Some(cwd) = string(inputs, "cwd") {
            command.current_dir(cwd);
        }
        let mut options = vouch_process::Options::new(timeout)
            .cap(cap)
            .cancel_on(Arc::clone(&job.cancel));
        if let Some(hook) = &job.on_group {
            options = options.on_group(hook.clone());
        }
        // Kept until the run ends: dropping it removes the folder.
        let _task_tmp = if self.sandbox == super::CommandSandbox::Off {
            None
        } else {
            // A confined command's environment is the one set on it: the server's, as before.
            command.envs(std::env::vars_os());
            let folder = string(inputs, "cwd")
                .map(PathBuf::from)
                .or_else(|| std::env::current_dir().ok())
                .unwrap_or_else(|| PathBuf::from("."));
            // A folder of this run's own (two attempts of one task never share one), removed
            // with what the command left in it when the run ends.
            let tmp = match tempfile::Builder::new()
                .prefix(&format!("vouch-task-{}-", job.task.id))
                .tempdir()
            {
                Ok(tmp) => tmp,
                Err(e) => {
                    return failed(
                        format!("cannot make the task's temporary folder: {e}"),
                        Value::Null,
                    );
                }
            };
            command.env("TMPDIR", tmp.path());
            options = options.sandboxed(
                vouch_process::Sandbox::new(vec![folder, tmp.path().to_path_buf()])
                    .best_effort(self.sandbox == super::CommandSandbox::BestEffort),
            );
            Some(tmp)
        };
        command.env("VOUCH_TASK_ID", &job.task.id);
        match vouch_process::run(command, &options) {
            Err(e) => failed(format!("cannot start the command: {e}"), Value::Null),
            Ok(done) => {
                let mut report = json!({
                    "exit_code": done.exit_code,
                    "stdout": done.stdout_text(),
                    "stderr": done.stderr_text(),
                    "stdout_bytes": done.stdout_len,
                    "stderr_bytes": done.stderr_len,
                    "stdout_sha256": done.stdout_sha256,
                    "duration_ms": u64::try_from(done.elapsed.as_millis()).unwrap_or(u64::MAX),
                });
                // Processes that left the command's group and were stopped when it ended.
                if !done.escaped.is_empty()
                    && let Value::Object(m) = &mut report
                {
                    let escaped = done
                        .escaped
                        .iter()
                        .map(|e| Value::String(e.to_string()))
                        .collect();
                    m.insert("escaped".into(), Value::Array(escaped));
                }
                if done.succeeded() {
                    Outcome::Completed(report)
                } else {
                    let why = if done.timed_out {
                        format!(
                            "the command ran past its timeout of {} s",
                            timeout.as_secs_f64()
                        )
                    } else if done.cancelled {
                        "the command was stopped".to_owned()
                    } else if let Some(code) = done.exit_code {
                        format!("the command exited with code {code}")
                    } else {
                        format!(
                            "the command was ended by signal {}",
                            done.signal.unwrap_or(0)
                        )
                    };
                    if let Value::Object(m) = &mut report {
                        m.insert("timed_out".into(), Value::Bool(done.timed_out));
                    }
                    failed(why, report)
                }
            }
        }
    }
}

/// Returns `sh -c` bound to the worker's life ([`parent_bound`]).
fn parent_bound_shell() -> Command {
    let mut c = parent_bound("sh");
    c.arg("-c");
    c
}

/// Returns a command running `program` that dies with the thread that starts it (Linux's
/// parent-death signal, set by util-linux's `setpriv` when it is there): a worker killed with
/// `kill -9` takes it with it, so a task re-claimed after its lease does not run twice at once.
pub(super) fn parent_bound(program: impl AsRef<std::ffi::OsStr>) -> Command {
    static SETPRIV: std::sync::OnceLock<Option<PathBuf>> = std::sync::OnceLock::new();
    let setpriv = SETPRIV.get_or_init(|| {
        ["/usr/bin/setpriv", "/bin/setpriv"]
            .iter()
            .map(PathBuf::from)
            .find(|p| p.is_file())
    });
    match setpriv {
        Some(setpriv) => {
            let mut c = Command::new(setpriv);
            c.args(["--pdeathsig", "KILL", "--"]).arg(program);
            c
        }
        None => Command::new(program),
    }
}
