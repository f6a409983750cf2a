//! The connected MCP servers of a run: started or reached before the first turn, their tools
//! listed, each call bounded in time and size; stdio servers' process groups killed when the
//! run ends.

use std::collections::HashMap;
use std::fmt::Write;
use std::path::Path;

use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::RunningService;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{RoleClient, ServiceExt};
use serde_json::Value;
use vouch_process::EnvPolicy;
use vouch_session::Outcome;

use crate::error::RunError;
use crate::mcp::config::expand;
use crate::mcp::{McpServer, McpTransport, tool_name};
use crate::tools::{Effect, ToolOutput};

/// A tool of a connected server, as agents are offered it.
#[derive(Debug, Clone, PartialEq)]
pub struct McpTool {
    /// Its name in the run: `mcp__<server>__<tool>`.
    pub name: String,
    /// The server's name.
    pub server: String,
    /// The tool's own name.
    pub tool: String,
    /// What it does, as the server says.
    pub description: String,
    /// The JSON Schema of its arguments.
    pub schema: Value,
}

/// One connected server.
struct Connected {
    config: McpServer,
    service: RunningService<RoleClient, ()>,
    tools: Vec<McpTool>,
    /// The stdio server's process, its group killed when the run ends.
    child: Option<tokio::process::Child>,
}

/// The MCP servers of a run.
#[derive(Default)]
pub struct Clients {
    servers: Vec<Connected>,
}

impl std::fmt::Debug for Clients {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Clients")
            .field(
                "servers",
                &self
                    .servers
                    .iter()
                    .map(|s| &s.config.name)
                    .collect::<Vec<_>>(),
            )
            .finish()
    }
}

impl Clients {
    /// Starts (stdio) or reaches (HTTP) each of `servers`, in `cwd`, with the environment
    /// `env` lets through, and lists their tools. A server that does not start, answer or
    /// list its tools within its timeout is an error naming it.
    pub fn start(
        servers: &[McpServer],
        env: &EnvPolicy,
        cwd: &Path,
        sandbox: Option<&vouch_process::Sandbox>,
        runtime: &tokio::runtime::Runtime,
    ) -> Result<Clients, RunError> {
        let mut out = Clients::default();
        for server in servers {
            let connected = runtime
                .block_on(async {
                    tokio::time::timeout(server.timeout, connect(server, env, cwd, sandbox)).await
                })
                .unwrap_or_else(|_| {
                    Err(format!(
                        "it did not answer within {} s",
                        server.timeout.as_secs()
                    ))
                })
                .map_err(|reason| RunError::McpServer {
                    server: server.name.clone(),
                    reason,
                })?;
            out.servers.push(connected);
        }
        Ok(out)
    }

    /// Returns the tools of server `name`.
    pub fn tools_of(&self, name: &str) -> &[McpTool] {
        self.servers
            .iter()
            .find(|s| s.config.name.eq_ignore_ascii_case(name))
            .map_or(&[], |s| s.tools.as_slice())
    }

    /// Returns the tool a run calls `name`.
    pub fn tool(&self, name: &str) -> Option<&McpTool> {
        self.servers
            .iter()
            .flat_map(|s| &s.tools)
            .find(|t| t.name == name)
    }

    /// Calls the tool a run names `name` with `arguments`, within the server's timeout; the
    /// answer's text is cut to `cap` characters.
    pub fn call(
        &self,
        runtime: &tokio::runtime::Runtime,
        name: &str,
        arguments: &Value,
        cap: usize,
    ) -> ToolOutput {
        let Some((server, tool)) = self
            .servers
            .iter()
            .find_map(|s| s.tools.iter().find(|t| t.name == name).map(|t| (s, t)))
        else {
            return ToolOutput::error(format!("there is no MCP tool `{name}`"));
        };
        let args = match arguments {
            Value::Object(map) => Some(map.clone()),
            Value::Null => None,
            other => {
                return ToolOutput::error(format!(
                    "the arguments of `{name}` must be an object, not {other}"
                ));
            }
        };
        let mut params = CallToolRequestParams::new(tool.tool.clone());
        params.arguments = args;
        let limit = server.config.timeout;
        let answer = runtime.block_on(async {
            tokio::time::timeout(limit, server.service.call_tool(params)).await
        });
        let mut out = match answer {
            Err(_) => {
                let mut o = ToolOutput::ok(format!(
                    "[TIMEOUT] `{name}` did not answer within {} s",
                    limit.as_secs()
                ));
                o.outcome = Outcome::TimedOut;
                o
            }
            Ok(Err(e)) => ToolOutput::error(format!("`{name}` failed: {e}")),
            Ok(Ok(result)) => answer_of(&result, cap),
        };
        out.effects
            .push(Effect::Tool(vouch_evidence::ToolCallRun::new(
                name,
                arguments.clone(),
                out.outcome != Outcome::Ok,
            )));
        out
    }
}

impl Drop for Clients {
    fn drop(&mut self) {
        for s in &mut self.servers {
            if let Some(child) = &mut s.child
                && let Some(pid) = child.id()
                && let Some(pid) = i32::try_from(pid)
                    .ok()
                    .and_then(rustix::process::Pid::from_raw)
            {
                let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
                let _ = child.start_kill();
            }
        }
    }
}

/// Connects to one server and lists its tools.
async fn connect(
    server: &McpServer,
    env: &EnvPolicy,
    cwd: &Path,
    sandbox: Option<&vouch_process::Sandbox>,
) -> Result<Connected, String> {
    let (service, child) = match &server.transport {
        McpTransport::Stdio {
            command,
            args,
            env: extra,
        } => {
            let mut std_cmd = std::process::Command::new(command);
            std_cmd.args(args).current_dir(cwd);
            env.apply(&mut std_cmd);
            std_cmd.envs(extra.iter().map(|(k, v)| (k, v)));
            if let Some(sandbox) = sandbox {
                sandbox.check().map_err(|e| e.to_string())?;
                std_cmd = sandbox.wrap(std_cmd);
            }
            std::os::unix::process::CommandExt::process_group(&mut std_cmd, 0);
            let mut cmd = tokio::process::Command::from(std_cmd);
            cmd.stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::null())
                .kill_on_drop(true);
            // Started from a confined thread (within this runtime), the server inherits the
            // kernel's rules.
            let handle = tokio::runtime::Handle::current();
            let spawned = match sandbox {
                Some(sandbox) => sandbox
                    .confined(move || {
                        let _entered = handle.enter();
                        cmd.spawn()
                    })
                    .map_err(|e| e.to_string())?,
                None => cmd.spawn(),
            };
            let mut child = spawned.map_err(|e| format!("cannot start `{command}`: {e}"))?;
            let (Some(stdout), Some(stdin)) = (child.stdout.take(), child.stdin.take()) else {
                return Err("its pipes could not be opened".to_owned());
            };
            match ().serve((stdout, stdin)).await {
                Ok(service) => (service, Some(child)),
                Err(e) => {
                    let status = child.try_wait().ok().flatten();
                    return Err(match status {
                        Some(status) if sandbox.is_some() && status.code() == Some(126) => format!(
                            "`{command}` could not be run inside the sandbox ({status}): programs run from the system's folders, the toolchains' and `Security.ReadPaths`"
                        ),
                        Some(status) => format!("`{command}` exited at start ({status}): {e}"),
                        None => format!("it did not initialize: {e}"),
                    });
                }
            }
        }
        McpTransport::Http { url, headers } => {
            let _ = rustls::crypto::ring::default_provider().install_default();
            let url = expand(url).map_err(|e| e.to_string())?;
            let mut config = StreamableHttpClientTransportConfig::with_uri(url);
            let mut custom = HashMap::new();
            for (name, value) in headers {
                let value = expand(value).map_err(|e| e.to_string())?;
                if name.eq_ignore_ascii_case("authorization") {
                    let token = value.strip_prefix("Bearer ").ok_or_else(|| {
                        "its `Authorization` header must be `Bearer <token>`".to_owned()
                    })?;
                    config.auth_header = Some(token.trim().to_owned());
                    continue;
                }
                let name = reqwest::header::HeaderName::from_bytes(name.as_bytes())
                    .map_err(|e| format!("header `{name}`: {e}"))?;
                let value = reqwest::header::HeaderValue::from_str(&value)
                    .map_err(|e| format!("header `{name}`: {e}"))?;
                custom.insert(name, value);
            }
            config.custom_headers = custom;
            let transport = StreamableHttpClientTransport::from_config(config);
            let service = ().serve(transport).await.map_err(|e| e.to_string())?;
            (service, None)
        }
    };
    let listed = service
        .list_all_tools()
        .await
        .map_err(|e| format!("its tools could not be listed: {e}"))?;
    let tools = listed
        .into_iter()
        .map(|t| McpTool {
            name: tool_name(&server.name, &t.name),
            server: server.name.clone(),
            tool: t.name.to_string(),
            description: t.description.as_deref().unwrap_or_default().to_owned(),
            schema: Value::Object((*t.input_schema).clone()),
        })
        .collect();
    Ok(Connected {
        config: server.clone(),
        service,
        tools,
        child,
    })
}

/// Returns the answer of a call as the model reads it: its text blocks (structured content
/// when it has none), cut to `cap` characters; an error flag makes it `[ERROR]`.
fn answer_of(result: &CallToolResult, cap: usize) -> ToolOutput {
    let mut text: String = result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect::<Vec<_>>()
        .join("\n");
    if text.is_empty()
        && let Some(structured) = &result.structured_content
    {
        text = structured.to_string();
    }
    let total = text.chars().count();
    if total > cap {
        text = text.chars().take(cap).collect();
        let _ = write!(text, "\n[… {} more characters cut]", total - cap);
    }
    if result.is_error == Some(true) {
        ToolOutput::error(text)
    } else {
        ToolOutput::ok(text)
    }
}
