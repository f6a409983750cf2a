//! `write_file`: a file created, or replaced whole.

use serde_json::Value;

use crate::tools::{Effect, ToolContext, ToolOutput, text_arg};
use crate::workspace::Access;

/// Writes `content` to `path`, making its folders.
pub(super) fn run(args: &Value, cx: &ToolContext) -> ToolOutput {
    let (path, content) = match (text_arg(args, "path"), text_arg(args, "content")) {
        (Ok(p), Ok(c)) => (p, c),
        (Err(e), _) | (_, Err(e)) => return e,
    };
    let real = match cx.workspace.resolve(path, Access::Write) {
        Ok(real) => real,
        Err(why) => return ToolOutput::denied(why),
    };
    if let Some(parent) = real.parent()
        && let Err(e) = std::fs::create_dir_all(parent)
    {
        return ToolOutput::error(format!("cannot make the folder of `{path}`: {e}"));
    }
    match std::fs::write(&real, content) {
        Ok(()) => {
            let rel = cx.workspace.relative(&real);
            ToolOutput::ok(format!("wrote {} bytes to {rel}", content.len()))
                .with(Effect::Wrote(rel))
        }
        Err(e) => ToolOutput::error(format!("cannot write `{path}`: {e}")),
    }
}
