//! `handoff`: the agent names the route it takes; the router decides whether it may.

use serde_json::Value;

use crate::tools::{ToolOutput, text_arg};

/// Records the route keyword the agent asked for.
pub(super) fn run(args: &Value) -> ToolOutput {
    match text_arg(args, "route_keyword") {
        Ok(keyword) if !keyword.trim().is_empty() => {
            let keyword = keyword.trim().to_owned();
            let mut out = ToolOutput::ok(format!("handoff requested: {keyword}"));
            out.handoff = Some(keyword);
            out
        }
        Ok(_) => ToolOutput::error("`route_keyword` is empty"),
        Err(e) => e,
    }
}
