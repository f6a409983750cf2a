//! `list_files`: the files of the working directory, or those a glob names, as ripgrep's
//! walker finds them (`.gitignore` honoured, hidden files and `.git` skipped).

use std::fmt::Write as _;

use globset::Glob;
use serde_json::Value;

use crate::tools::{ToolContext, ToolOutput};
use crate::workspace::Access;

/// How many paths a listing shows.
const MAX_PATHS: usize = 2_000;

/// Lists the files matching `glob` (every file when absent), sorted.
pub(super) fn run(args: &Value, cx: &ToolContext) -> ToolOutput {
    let matcher = match args.get("glob").and_then(Value::as_str) {
        Some(g) => match Glob::new(g) {
            Ok(g) => Some(g.compile_matcher()),
            Err(e) => return ToolOutput::error(format!("invalid glob `{g}`: {}", e.kind())),
        },
        None => None,
    };
    let mut paths = files(cx);
    paths.retain(|p| matcher.as_ref().is_none_or(|m| m.is_match(p)));
    if paths.is_empty() {
        return ToolOutput::ok("(no files)");
    }
    let total = paths.len();
    paths.truncate(MAX_PATHS);
    let mut text = paths.join("\n");
    if total > MAX_PATHS {
        let _ = write!(text, "\n… ({} more)", total - MAX_PATHS);
    }
    ToolOutput::ok(text)
}

/// Returns every file of the workspace an agent may read, relative, sorted.
pub(super) fn files(cx: &ToolContext) -> Vec<String> {
    let root = cx.workspace.root();
    let mut paths: Vec<String> = ignore::WalkBuilder::new(root)
        .require_git(false)
        .build()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_some_and(|t| t.is_file()))
        .map(|e| cx.workspace.relative(e.path()))
        .filter(|rel| cx.workspace.resolve(rel, Access::Read).is_ok())
        .collect();
    paths.sort();
    paths
}
