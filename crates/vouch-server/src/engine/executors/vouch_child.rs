//! Running `vouch` itself for a task (`vouch.run`, `vouch.test`): the same binary as the
//! server, with `--format json`, bound to the worker's life, in its own process group (killed
//! when the task is cancelled, its lease is lost or its timeout passes), its report kept in the
//! task's result.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};

use super::command::parent_bound;
use super::{Job, failed};
use crate::store::Outcome;

/// The most bytes of a report or of standard error kept.
const CAP: usize = 16 << 20;

/// Returns the `vouch` program: `$VOUCH_BIN`, else this program when it is `vouch`, else
/// `vouch` on the `PATH`.
fn program() -> PathBuf {
    if let Some(p) = std::env::var_os("VOUCH_BIN") {
        return PathBuf::from(p);
    }
    std::env::current_exe()
        .ok()
        .filter(|p| p.file_stem().is_some_and(|s| s == "vouch"))
        .unwrap_or_else(|| PathBuf::from("vouch"))
}

/// The folder a task works in by default: `.vouch/work/<task id>` under the server's folder,
/// made if missing.
pub(super) fn task_folder(job: &Job<'_>) -> Result<PathBuf, String> {
    let dir = Path::new(".vouch").join("work").join(&job.task.id);
    std::fs::create_dir_all(&dir)
        .map_err(|e| format!("cannot make the task's folder {}: {e}", dir.display()))?;
    Ok(dir)
}

/// Runs `vouch ARGS --format json` in `cwd` for `job`, within `timeout`; completes with the
/// report when it exits 0, fails with it otherwise.
pub(super) fn run_vouch(
    job: &Job<'_>,
    args: &[String],
    cwd: Option<&Path>,
    timeout: Duration,
) -> Outcome {
    let mut command = parent_bound(program());
    command
        .args(args)
        .args(["--format", "json", "--color", "never"]);
    if let Some(cwd) = cwd {
        command.current_dir(cwd);
    }
    command.env("VOUCH_TASK_ID", &job.task.id);
    let mut options = vouch_process::Options::new(timeout)
        .cap(CAP)
        .cancel_on(Arc::clone(&job.cancel));
    if let Some(hook) = &job.on_group {
        options = options.on_group(hook.clone());
    }
    let done = match vouch_process::run(command, &options) {
        Ok(d) => d,
        Err(e) => {
            return failed(
                format!("cannot start vouch ({}): {e}", program().display()),
                Value::Null,
            );
        }
    };
    let stdout = done.stdout_text();
    let report = serde_json::from_str::<Value>(&stdout).unwrap_or(Value::String(stdout));
    let stderr = done.stderr_text();
    let tail: String = stderr
        .lines()
        .rev()
        .take(20)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect::<Vec<_>>()
        .join("\n");
    let result = json!({
        "exit_code": done.exit_code,
        "report": report,
        "stderr_tail": tail,
        "duration_ms": u64::try_from(done.elapsed.as_millis()).unwrap_or(u64::MAX),
        "args": args,
    });
    if done.succeeded() {
        return Outcome::Completed(result);
    }
    let why = if done.timed_out {
        format!(
            "vouch ran past the task's timeout of {} s",
            timeout.as_secs_f64()
        )
    } else if done.cancelled {
        "vouch was stopped".to_owned()
    } else {
        match done.exit_code {
            Some(1) => "vouch found the work not done (exit 1)".to_owned(),
            Some(code) => format!("vouch exited with code {code}"),
            None => format!("vouch was ended by signal {}", done.signal.unwrap_or(0)),
        }
    };
    failed(why, result)
}
