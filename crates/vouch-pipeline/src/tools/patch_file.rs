//! `patch_file`: one exact piece of a file replaced, when it occurs exactly once.

use serde_json::Value;

use crate::tools::{
    Change, Effect, FileChange, Prepared, ToolContext, ToolOutput, existing_file, text_arg,
};

/// Plans replacing the one occurrence of `old` in `path` with `new`.
pub(super) fn plan(args: &Value, cx: &ToolContext) -> Prepared {
    let (path, old, new) = match (
        text_arg(args, "path"),
        text_arg(args, "old"),
        text_arg(args, "new"),
    ) {
        (Ok(p), Ok(o), Ok(n)) => (p, o, n),
        (Err(e), _, _) | (_, Err(e), _) | (_, _, Err(e)) => return Prepared::Done(e),
    };
    if old.is_empty() {
        return Prepared::Done(ToolOutput::error(
            "`old` is empty: name the exact text to replace",
        ));
    }
    let (relative, bytes) = match existing_file(cx, path, "read") {
        Ok(found) => found,
        Err(refused) => return Prepared::Done(refused),
    };
    let Ok(text) = String::from_utf8(bytes.clone()) else {
        return Prepared::Done(ToolOutput::error(format!(
            "`{path}` is not UTF-8 text; patch_file changes text"
        )));
    };
    match text.matches(old).count() {
        0 => Prepared::Done(ToolOutput::error(format!(
            "the text to replace does not occur in `{path}` (read the file, then copy the text exactly)"
        ))),
        1 => Prepared::Change(Change::File(Box::new(FileChange {
            path: path.to_owned(),
            answer: format!("patched {relative}"),
            effect: Effect::Wrote(relative.clone()),
            relative,
            before: Some(bytes),
            after: Some(text.replacen(old, new, 1).into_bytes()),
        }))),
        n => Prepared::Done(ToolOutput::error(format!(
            "the text to replace occurs {n} times in `{path}`; include more of its surroundings so that it occurs once"
        ))),
    }
}
