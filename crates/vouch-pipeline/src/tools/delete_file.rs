//! `delete_file`: a file removed.

use serde_json::Value;

use crate::tools::{Effect, ToolContext, ToolOutput, text_arg};
use crate::workspace::Access;

/// Deletes the file `path`.
pub(super) fn run(args: &Value, cx: &ToolContext) -> ToolOutput {
    let path = match text_arg(args, "path") {
        Ok(p) => p,
        Err(e) => return e,
    };
    let real = match cx.workspace.resolve(path, Access::Write) {
        Ok(real) => real,
        Err(why) => return ToolOutput::denied(why),
    };
    if real.is_dir() {
        return ToolOutput::error(format!("`{path}` is a folder; delete_file deletes files"));
    }
    match std::fs::remove_file(&real) {
        Ok(()) => {
            let rel = cx.workspace.relative(&real);
            ToolOutput::ok(format!("deleted {rel}")).with(Effect::Deleted(rel))
        }
        Err(e) => ToolOutput::error(format!("cannot delete `{path}`: {e}")),
    }
}
