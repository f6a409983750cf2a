//! `write_file`: a file created, or replaced whole.

use serde_json::Value;

use crate::tools::{Change, Effect, FileChange, Prepared, ToolContext, ToolOutput, text_arg};

/// Plans writing `content` to `path`, making its folders.
pub(super) fn plan(args: &Value, cx: &ToolContext) -> Prepared {
    let (path, content) = match (text_arg(args, "path"), text_arg(args, "content")) {
        (Ok(p), Ok(c)) => (p, c),
        (Err(e), _) | (_, Err(e)) => return Prepared::Done(e),
    };
    let (relative, before) = match cx.workspace.read_existing(path) {
        Ok(Some((relative, bytes))) => (relative, Some(bytes)),
        Ok(None) => match cx.workspace.resolve(path, crate::workspace::Access::Write) {
            Ok(real) => (cx.workspace.relative(&real), None),
            Err(why) => return Prepared::Done(ToolOutput::denied(why)),
        },
        Err(why) => return Prepared::Done(ToolOutput::denied(why)),
    };
    Prepared::Change(Change::File(Box::new(FileChange {
        path: path.to_owned(),
        answer: format!("wrote {} bytes to {relative}", content.len()),
        effect: Effect::Wrote(relative.clone()),
        relative,
        before,
        after: Some(content.as_bytes().to_vec()),
    })))
}
