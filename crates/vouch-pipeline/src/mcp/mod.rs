//! MCP servers as tools of a run (`McpServers`): each server started (stdio: our own child
//! process, in a process group of its own, with the shell's environment allowlist — never a
//! model's key) or reached (streamable HTTP, with its headers), its tools listed before the
//! first turn and offered, as `mcp__<server>__<tool>`, to the agents whose `Plugins` name the
//! server. Every call has a timeout and an output cap, and is evidence: in the session like any
//! call, and in the turn's change-log entry (`ToolCalls`).

mod client;
mod config;

pub use client::{Clients, McpTool};
pub(crate) use config::servers;
pub use config::{McpServer, McpTransport};

/// The name a server's tool has in a run: `mcp__<server>__<tool>`.
pub fn tool_name(server: &str, tool: &str) -> String {
    format!("mcp__{server}__{tool}")
}

/// Returns the server and the tool of a run's tool name, when it is an MCP tool.
pub fn split(name: &str) -> Option<(&str, &str)> {
    name.strip_prefix("mcp__")?.split_once("__")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        assert_eq!(tool_name("github", "create_pr"), "mcp__github__create_pr");
        assert_eq!(
            split("mcp__github__create_pr"),
            Some(("github", "create_pr"))
        );
        assert_eq!(split("mcp__a__b__c"), Some(("a", "b__c")));
        assert_eq!(split("read_file"), None);
    }
}
