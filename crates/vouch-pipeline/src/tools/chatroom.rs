//! fuseraft's `Chatroom` plugin: a message board the agents of a run share —
//! `chatroom_send(recipient, message)` appends under the sending agent's name,
//! `chatroom_read(count)` shows the latest. The board is a JSONL file in the run's state
//! directory (`Chatroom.Path` of fuseraft is not used), each message one appended line.

use std::io::Write;

use serde_json::{Value, json};

use crate::tools::{ToolContext, ToolOutput, text_arg};

/// Runs `chatroom_send` or `chatroom_read` for `agent` (the runner calls it: a message is
/// sent under its agent's name).
pub(crate) fn run(name: &str, agent: &str, args: &Value, cx: &ToolContext) -> ToolOutput {
    let Some(path) = cx
        .scratchpad
        .as_ref()
        .map(|p| p.with_file_name("chatroom.jsonl"))
    else {
        return ToolOutput::error("this run has no chatroom");
    };
    if name == "chatroom_send" {
        let (recipient, message) = match (text_arg(args, "recipient"), text_arg(args, "message")) {
            (Ok(r), Ok(m)) => (r, m),
            (Err(e), _) | (_, Err(e)) => return e,
        };
        let line = json!({"from": agent, "to": recipient, "message": message, "at": jiff::Timestamp::now().to_string()});
        let written = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .and_then(|mut f| writeln!(f, "{line}"));
        return match written {
            Ok(()) => ToolOutput::ok(format!("sent to {recipient}")),
            Err(e) => ToolOutput::error(format!("cannot write the chatroom: {e}")),
        };
    }
    let count = args
        .get("count")
        .and_then(Value::as_u64)
        .and_then(|c| usize::try_from(c).ok())
        .unwrap_or(20);
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    let from = lines.len().saturating_sub(count);
    let shown: Vec<String> = lines[from..]
        .iter()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .map(|m| {
            let f = |k: &str| m[k].as_str().unwrap_or_default().to_owned();
            format!(
                "[{}] {} → {}: {}",
                f("at"),
                f("from"),
                f("to"),
                f("message")
            )
        })
        .collect();
    ToolOutput::ok(if shown.is_empty() {
        "the chatroom is empty".to_owned()
    } else {
        shown.join("\n")
    })
}
