//! fuseraft's `Changes` plugin: `changes_read` and `changes_read_latest` show an agent the
//! run's change log — what the runner recorded each turn wrote, deleted, ran and committed —
//! so that a tester or reviewer reads what was done, not what was claimed.

use serde_json::Value;

use crate::tools::{ToolContext, ToolOutput};

/// Answers `changes_read` (every entry of this run, `latest` false) or `changes_read_latest`
/// (the last one).
pub(super) fn run(cx: &ToolContext, latest: bool) -> ToolOutput {
    let Some(path) = &cx.change_log else {
        return ToolOutput::error("this run keeps no change log");
    };
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return ToolOutput::ok(
                "the change log is empty: no turn has written, deleted, run or committed anything yet",
            );
        }
        Err(e) => return ToolOutput::error(format!("cannot read the change log: {e}")),
    };
    let log: Value = match serde_json::from_str(&text) {
        Ok(v) => v,
        Err(e) => return ToolOutput::error(format!("the change log is not JSON: {e}")),
    };
    let turns: Vec<&Value> = log
        .get("sessions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|s| {
            cx.run_id
                .as_deref()
                .is_none_or(|id| s.get("session_id").and_then(Value::as_str) == Some(id))
        })
        .flat_map(|s| {
            s.get("turns")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
        })
        .collect();
    let shown: Vec<&Value> = if latest {
        turns.last().copied().into_iter().collect()
    } else {
        turns
    };
    if shown.is_empty() {
        return ToolOutput::ok("the change log has no entry of this run yet");
    }
    let body = serde_json::to_string_pretty(&shown).unwrap_or_default();
    let capped: String = body.chars().take(cx.result_cap).collect();
    ToolOutput::ok(if capped.len() < body.len() {
        format!("{capped}\n[… cut at {} characters]", cx.result_cap)
    } else {
        capped
    })
}
