//! `read_file`: a file's text, whole or a range of its lines.

use serde_json::Value;

use crate::tools::{ToolContext, ToolOutput, text_arg};
use crate::workspace::Access;

/// Reads `path`, from `start_line` to `end_line` (1-based, both optional).
pub(super) fn run(args: &Value, cx: &ToolContext) -> ToolOutput {
    let path = match text_arg(args, "path") {
        Ok(p) => p,
        Err(e) => return e,
    };
    let real = match cx.workspace.resolve(path, Access::Read) {
        Ok(real) => real,
        Err(why) => return ToolOutput::denied(why),
    };
    let text = match std::fs::read(&real) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(e) => return ToolOutput::error(format!("cannot read `{path}`: {e}")),
    };
    let line = |key: &str| args.get(key).and_then(Value::as_u64).map(|n| n.max(1));
    let shown = match (line("start_line"), line("end_line")) {
        (None, None) => text,
        (start, end) => {
            let start = usize::try_from(start.unwrap_or(1)).unwrap_or(usize::MAX);
            let end = end.map_or(usize::MAX, |e| usize::try_from(e).unwrap_or(usize::MAX));
            text.lines()
                .enumerate()
                .filter(|(i, _)| (start..=end).contains(&(i + 1)))
                .map(|(_, l)| format!("{l}\n"))
                .collect()
        }
    };
    ToolOutput::ok(vouch_process::clip::head(&shown, cx.result_cap))
}
