//! `delete_file`: a file removed.

use serde_json::Value;

use crate::tools::{
    Change, Effect, FileChange, Prepared, ToolContext, ToolOutput, existing_file, text_arg,
};

/// Plans deleting the file `path`.
pub(super) fn plan(args: &Value, cx: &ToolContext) -> Prepared {
    let path = match text_arg(args, "path") {
        Ok(p) => p,
        Err(e) => return Prepared::Done(e),
    };
    match cx.workspace.resolve(path, crate::workspace::Access::Write) {
        Ok(real) if real.is_dir() => {
            return Prepared::Done(ToolOutput::error(format!(
                "`{path}` is a folder; delete_file deletes files"
            )));
        }
        Ok(_) => {}
        Err(why) => return Prepared::Done(ToolOutput::denied(why)),
    }
    let (relative, bytes) = match existing_file(cx, path, "delete") {
        Ok(found) => found,
        Err(refused) => return Prepared::Done(refused),
    };
    Prepared::Change(Change::File(Box::new(FileChange {
        path: path.to_owned(),
        answer: format!("deleted {relative}"),
        effect: Effect::Deleted(relative.clone()),
        relative,
        before: Some(bytes),
        after: None,
    })))
}
