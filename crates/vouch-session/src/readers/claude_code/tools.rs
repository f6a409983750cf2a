//! Claude Code's tool names and their kinds (decision G7).

use crate::tool::ToolKind;

/// Maps a Claude Code tool name to its kind (decision G7). MCP tools (`mcp__server__tool`) and
/// names not listed are [`ToolKind::Other`].
pub(crate) fn tool_kind(name: &str) -> ToolKind {
    match name {
        "Bash" => ToolKind::Shell,
        "Write" => ToolKind::WriteFile,
        "Edit" | "MultiEdit" | "NotebookEdit" => ToolKind::PatchFile,
        "Read" | "NotebookRead" => ToolKind::ReadFile,
        "Task" | "Agent" => ToolKind::Subagent,
        "Grep" | "Glob" | "LS" => ToolKind::Search,
        "WebFetch" | "WebSearch" | "web_search" | "web_fetch" => ToolKind::Web,
        _ => ToolKind::Other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_tool_names() {
        assert_eq!(tool_kind("Bash"), ToolKind::Shell);
        assert_eq!(tool_kind("MultiEdit"), ToolKind::PatchFile);
        assert_eq!(tool_kind("Task"), ToolKind::Subagent);
        assert_eq!(tool_kind("mcp__github__search"), ToolKind::Other);
        assert_eq!(tool_kind("bash"), ToolKind::Other);
    }
}
