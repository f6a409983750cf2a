//! `patch_file`: one exact piece of a file replaced, when it occurs exactly once.

use serde_json::Value;

use crate::tools::{Effect, ToolContext, ToolOutput, text_arg};
use crate::workspace::Access;

/// Replaces the one occurrence of `old` in `path` with `new`.
pub(super) fn run(args: &Value, cx: &ToolContext) -> ToolOutput {
    let (path, old, new) = match (
        text_arg(args, "path"),
        text_arg(args, "old"),
        text_arg(args, "new"),
    ) {
        (Ok(p), Ok(o), Ok(n)) => (p, o, n),
        (Err(e), _, _) | (_, Err(e), _) | (_, _, Err(e)) => return e,
    };
    if old.is_empty() {
        return ToolOutput::error("`old` is empty: name the exact text to replace");
    }
    let real = match cx.workspace.resolve(path, Access::Write) {
        Ok(real) => real,
        Err(why) => return ToolOutput::denied(why),
    };
    let text = match std::fs::read_to_string(&real) {
        Ok(t) => t,
        Err(e) => return ToolOutput::error(format!("cannot read `{path}`: {e}")),
    };
    match text.matches(old).count() {
        0 => ToolOutput::error(format!(
            "the text to replace does not occur in `{path}` (read the file, then copy the text exactly)"
        )),
        1 => match std::fs::write(&real, text.replacen(old, new, 1)) {
            Ok(()) => {
                let rel = cx.workspace.relative(&real);
                ToolOutput::ok(format!("patched {rel}")).with(Effect::Wrote(rel))
            }
            Err(e) => ToolOutput::error(format!("cannot write `{path}`: {e}")),
        },
        n => ToolOutput::error(format!(
            "the text to replace occurs {n} times in `{path}`; include more of its surroundings so that it occurs once"
        )),
    }
}
