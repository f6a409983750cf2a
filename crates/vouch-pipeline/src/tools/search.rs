//! `search`: lines matching a regular expression, with ripgrep's searcher, in the files
//! `list_files` would list.

use std::fmt::Write as _;

use globset::Glob;
use grep_regex::RegexMatcher;
use grep_searcher::Searcher;
use grep_searcher::sinks::UTF8;
use serde_json::Value;

use crate::tools::list_files::files;
use crate::tools::{ToolContext, ToolOutput, text_arg};

/// How many matching lines a search shows.
const MAX_LINES: usize = 500;

/// Searches for `pattern` in the files matching `glob` (every file when absent).
pub(super) fn run(args: &Value, cx: &ToolContext) -> ToolOutput {
    let pattern = match text_arg(args, "pattern") {
        Ok(p) => p,
        Err(e) => return e,
    };
    let matcher = match RegexMatcher::new_line_matcher(pattern) {
        Ok(m) => m,
        Err(e) => return ToolOutput::error(format!("invalid regular expression `{pattern}`: {e}")),
    };
    let only = match args.get("glob").and_then(Value::as_str) {
        Some(g) => match Glob::new(g) {
            Ok(g) => Some(g.compile_matcher()),
            Err(e) => return ToolOutput::error(format!("invalid glob `{g}`: {}", e.kind())),
        },
        None => None,
    };
    let mut found: Vec<String> = Vec::new();
    let mut more = 0usize;
    let mut searcher = Searcher::new();
    for rel in files(cx) {
        if only.as_ref().is_some_and(|m| !m.is_match(&rel)) {
            continue;
        }
        let path = cx.workspace.root().join(&rel);
        // A file that cannot be read (or is binary) has no matching lines to show.
        let _ = searcher.search_path(
            &matcher,
            &path,
            UTF8(|number, line| {
                if found.len() < MAX_LINES {
                    found.push(format!("{rel}:{number}: {}", line.trim_end()));
                } else {
                    more += 1;
                }
                Ok(true)
            }),
        );
    }
    if found.is_empty() {
        return ToolOutput::ok("(no matches)");
    }
    let mut text = found.join("\n");
    if more > 0 {
        let _ = write!(text, "\n… ({more} more matching lines)");
    }
    ToolOutput::ok(text)
}
