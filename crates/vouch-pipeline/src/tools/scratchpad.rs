//! fuseraft's `Scratchpad` plugin: notes the agents of a run keep by key —
//! `scratchpad_write`, `scratchpad_read`, `scratchpad_read_all`. The notes live in the run's
//! state directory, out of the working tree, replaced atomically on each write; a resumed run
//! finds them again.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

use crate::tools::{ToolContext, ToolOutput, text_arg};

/// What a scratchpad call does.
#[derive(Debug, Clone, Copy)]
pub(super) enum Op {
    /// `scratchpad_write(key, value)`.
    Write,
    /// `scratchpad_read(key)`.
    Read,
    /// `scratchpad_read_all()`.
    ReadAll,
}

/// Runs one scratchpad call.
pub(super) fn run(op: Op, args: &Value, cx: &ToolContext) -> ToolOutput {
    let Some(path) = &cx.scratchpad else {
        return ToolOutput::error("this run has no scratchpad");
    };
    let mut notes = match load(path) {
        Ok(n) => n,
        Err(e) => return ToolOutput::error(e),
    };
    match op {
        Op::Write => {
            let (key, value) = match (text_arg(args, "key"), text_arg(args, "value")) {
                (Ok(k), Ok(v)) => (k.trim().to_owned(), v.to_owned()),
                (Err(e), _) | (_, Err(e)) => return e,
            };
            if key.is_empty() {
                return ToolOutput::error("`key` is empty");
            }
            notes.insert(key.clone(), value);
            match store(path, &notes) {
                Ok(()) => ToolOutput::ok(format!("noted under `{key}`")),
                Err(e) => ToolOutput::error(e),
            }
        }
        Op::Read => match text_arg(args, "key") {
            Ok(key) => match notes.get(key.trim()) {
                Some(v) => ToolOutput::ok(v.clone()),
                None => ToolOutput::ok(format!("no note under `{}`", key.trim())),
            },
            Err(e) => e,
        },
        Op::ReadAll if notes.is_empty() => ToolOutput::ok("the scratchpad is empty"),
        Op::ReadAll => ToolOutput::ok(
            notes
                .iter()
                .map(|(k, v)| format!("## {k}\n{v}"))
                .collect::<Vec<_>>()
                .join("\n\n"),
        ),
    }
}

fn load(path: &Path) -> Result<BTreeMap<String, String>, String> {
    match std::fs::read_to_string(path) {
        Ok(text) => {
            serde_json::from_str(&text).map_err(|e| format!("the scratchpad is not readable: {e}"))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(BTreeMap::new()),
        Err(e) => Err(format!("cannot read the scratchpad: {e}")),
    }
}

fn store(path: &Path, notes: &BTreeMap<String, String>) -> Result<(), String> {
    let text = serde_json::to_string_pretty(notes).map_err(|e| e.to_string())?;
    let tmp = path.with_extension("json.tmp");
    std::fs::write(&tmp, text)
        .and_then(|()| std::fs::rename(&tmp, path))
        .map_err(|e| format!("cannot write the scratchpad: {e}"))
}
