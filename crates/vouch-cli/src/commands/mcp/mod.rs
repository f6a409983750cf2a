//! `vouch mcp`: vouch as an MCP server, so that the agents people use (Claude Code, Codex,
//! Gemini CLI, Cursor) can ask for a verdict before they claim "done". Each tool is one of
//! vouch's read-only commands, run in this process with its JSON output (`tools.rs`).

mod tools;

use clap::Args;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    InitializeResult, ListToolsResult, PaginatedRequestParams, ServerCapabilities,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};

use crate::error::CommandError;
use crate::exit_codes;
use crate::ui::Ui;

/// Serve vouch's verdicts to agents over MCP (stdio)
///
/// Tools: `gate_check` (would this handoff or completion pass the gates? the message an agent
/// would get), `session_summary` (an agent log's counts), `find_calls` (a log's tool calls,
/// filtered by name or failure), `command_receipts` (its shell commands with receipts and strict
/// verdicts), `analyze` (an agent test against a log), `tasks_validate` (a task document against
/// the protocol's rules) and, with `--server`, `tasks_rpc` (a method of a task service). Every
/// tool only reads; nothing is written.
///
/// Claude Code: `claude mcp add vouch -- vouch mcp`. Codex (`~/.codex/config.toml`):
/// `[mcp_servers.vouch]` with `command = "vouch"` and `args = ["mcp"]`. Gemini CLI
/// (`~/.gemini/settings.json`): `{"mcpServers": {"vouch": {"command": "vouch", "args": ["mcp"]}}}`.
///
/// Exit codes: 0 the client closed the connection, 2 the server could not start.
#[derive(Debug, Args)]
pub(crate) struct McpArgs {
    /// A task service (`vouch serve`) whose JSON-RPC methods `tasks_rpc` calls
    #[arg(long, value_name = "URL")]
    server: Option<String>,
}

/// The server: the task service it may call.
#[derive(Debug, Clone)]
struct Vouch {
    server: Option<String>,
}

impl ServerHandler for Vouch {
    fn get_info(&self) -> InitializeResult {
        InitializeResult::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("vouch", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "vouch checks the evidence behind an agent's claims. Before you hand off or say a task is done, call gate_check with the pipeline configuration and your session log: a block says what evidence is missing.",
            )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(tools::list(
            self.server.is_some(),
        )))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let args = request.arguments.unwrap_or_default();
        let name = request.name.to_string();
        let server = self.server.clone();
        let answer =
            tokio::task::spawn_blocking(move || tools::call(&name, &args, server.as_deref()))
                .await
                .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        let answer = answer.map_err(|why| ErrorData::invalid_params(why, None))?;
        let content = vec![ContentBlock::text(answer.text)];
        Ok(if answer.failed {
            CallToolResult::error(content)
        } else {
            CallToolResult::success(content)
        }
        .into())
    }
}

/// Runs `vouch mcp`.
pub(crate) fn run(args: &McpArgs, ui: &mut Ui) -> Result<u8, CommandError> {
    // Stdout is the MCP channel: the UI's lock on it is released, and nothing else writes there.
    ui.out = Box::new(std::io::sink());
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| CommandError::input(format!("cannot start the MCP server: {e}")))?;
    let server = Vouch {
        server: args.server.clone(),
    };
    runtime.block_on(async {
        let running = server
            .serve(rmcp::transport::stdio())
            .await
            .map_err(|e| CommandError::input(format!("the MCP client did not initialize: {e}")))?;
        running
            .waiting()
            .await
            .map_err(|e| CommandError::input(format!("the MCP connection failed: {e}")))?;
        Ok::<(), CommandError>(())
    })?;
    ui.status("the MCP client closed the connection");
    Ok(exit_codes::PASS)
}
