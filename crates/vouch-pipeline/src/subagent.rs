//! fuseraft's `SubAgent` plugin: `sub_agent_explore` and `sub_agent_locate` start a read-only
//! agent of their own — the agent's `SubAgentModel` (else its own model), its
//! `SubAgentPlugins`' read tools (else `read_file`, `list_files`, `search`), at most
//! `SubAgentMaxToolCalls` calls — and answer with what it found, so that a wide exploration
//! does not fill the calling agent's context. Its calls read and never change anything.

use serde_json::Value;
use vouch_llm::{ChatMessage, ChatRequest, ToolCallRequest, ToolChoice, Usage};

use crate::config::{AgentConfig, ModelConfig};
use crate::tools::ToolContext;
use crate::tools::{self, ToolOutput};

/// The sub-agent's tools when `SubAgentPlugins` names none.
const DEFAULT_TOOLS: [&str; 3] = ["read_file", "list_files", "search"];

/// Returns true for the tools of the `SubAgent` plugin.
pub(crate) fn is_subagent_tool(name: &str) -> bool {
    matches!(name, "sub_agent_explore" | "sub_agent_locate")
}

/// Where a sub-agent runs: the calling agent, the tools' context, the runtime, and the
/// sub-agent's model with its settings.
pub(crate) struct SubContext<'a> {
    pub(crate) agent: &'a AgentConfig,
    pub(crate) cx: &'a ToolContext,
    pub(crate) runtime: &'a tokio::runtime::Runtime,
    pub(crate) sub: (&'a dyn vouch_llm::ModelClient, Option<&'a ModelConfig>),
}

/// What a sub-agent did: its answer, its tokens, and its conversation (to record).
pub(crate) struct Ran {
    pub(crate) output: ToolOutput,
    pub(crate) usage: Usage,
    pub(crate) messages: Vec<ChatMessage>,
}

/// Runs the sub-agent `call` asks for.
pub(crate) fn run(t: &SubContext<'_>, call: &ToolCallRequest) -> Ran {
    let (output, usage, messages) = explore(t, call);
    Ran {
        output,
        usage,
        messages,
    }
}

/// Returns the session of a sub-agent started by call `call_id` of `agent`, from its
/// conversation: a subagent of the run's session, linked to the call.
pub(crate) fn session_of(
    agent: &str,
    call_id: &str,
    messages: &[ChatMessage],
) -> vouch_session::Session {
    use vouch_session::{
        Actor, Args, EventKind, Format, Message, Output, Role, ToolCall, ToolResult,
    };
    let name = format!("{agent}/explorer");
    let mut s = vouch_session::Session {
        id: format!("sub-{call_id}"),
        agent: vouch_session::Agent::Orchestrator,
        name: Some(name.clone()),
        spawned_by: Some(call_id.to_owned()),
        ..vouch_session::Session::default()
    };
    for m in messages {
        match m {
            ChatMessage::User { text } => {
                s.push(
                    Actor::new(Role::User),
                    EventKind::Message(Message { text: text.clone() }),
                );
            }
            ChatMessage::Assistant { text, calls } => {
                if !text.trim().is_empty() {
                    s.push(
                        Actor::named(Role::Assistant, name.as_str()),
                        EventKind::Message(Message { text: text.clone() }),
                    );
                }
                for c in calls {
                    s.push(
                        Actor::named(Role::Assistant, name.as_str()),
                        EventKind::ToolCall(ToolCall {
                            call_id: c.id.clone(),
                            name: c.name.clone().into(),
                            kind: vouch_session::tool_kind(Format::Chat, &c.name),
                            args: Args::from_value(c.arguments.clone()),
                        }),
                    );
                }
            }
            ChatMessage::Tool {
                call_id, content, ..
            } => {
                s.push(
                    Actor::named(Role::Tool, name.as_str()),
                    EventKind::ToolResult(ToolResult {
                        call_id: call_id.clone(),
                        outcome: if content.starts_with("[ERROR]")
                            || content.starts_with("[DENIED]")
                        {
                            vouch_session::Outcome::Error
                        } else {
                            vouch_session::Outcome::Ok
                        },
                        output: Output::inline(content.as_str()),
                    }),
                );
            }
        }
    }
    s
}

/// The sub-agent's loop: its answer, its tokens, its conversation.
fn explore(t: &SubContext<'_>, call: &ToolCallRequest) -> (ToolOutput, Usage, Vec<ChatMessage>) {
    let arg = |k: &str| call.arguments.get(k).and_then(Value::as_str).map(str::trim);
    let question = match (call.name.as_str(), arg("question"), arg("symbol")) {
        ("sub_agent_explore", Some(q), _) if !q.is_empty() => {
            let format = arg("format").unwrap_or("summary");
            format!("{q}\n\nAnswer as a {format} (for `file_list`: one path per line).")
        }
        ("sub_agent_locate", _, Some(s)) if !s.is_empty() => {
            format!(
                "Where is `{s}` defined? Answer with the file, line and a one-line description."
            )
        }
        ("sub_agent_explore", ..) => {
            return (
                ToolOutput::error("missing the string argument `question`"),
                Usage::default(),
                Vec::new(),
            );
        }
        _ => {
            return (
                ToolOutput::error("missing the string argument `symbol`"),
                Usage::default(),
                Vec::new(),
            );
        }
    };
    let agent = t.agent;
    let allowed: Vec<String> = if agent.sub_agent.tools.is_empty() {
        DEFAULT_TOOLS.iter().map(|s| (*s).to_owned()).collect()
    } else {
        agent.sub_agent.tools.clone()
    };
    let specs = tools::specs(&allowed);
    let (client, model) = t.sub;
    let mut messages = vec![ChatMessage::User { text: question }];
    let mut usage = Usage::default();
    let mut calls = 0u32;
    let cap = agent.sub_agent.max_tool_calls;
    loop {
        let request = ChatRequest {
            system: Some(
                "You are a read-only explorer of the working directory. Use your tools to find the facts the question asks for, cite file paths, and answer briefly. You cannot change files."
                    .to_owned(),
            ),
            messages: messages.clone(),
            tools: if calls >= cap { Vec::new() } else { specs.clone() },
            model: model.and_then(|m| m.model.clone()),
            max_tokens: model.map_or(4096, |m| m.max_tokens),
            temperature: model.and_then(|m| m.temperature),
            reasoning_effort: model.and_then(|m| m.reasoning_effort.clone()),
            tool_choice: ToolChoice::Auto,
            agent: Some(format!("{}:sub", agent.name)),
        };
        let reply = match t.runtime.block_on(client.chat(&request)) {
            Ok(r) => r,
            Err(e) => {
                return (
                    ToolOutput::error(format!("the sub-agent's model failed: {e}")),
                    usage,
                    messages,
                );
            }
        };
        if let Some(u) = reply.usage {
            usage = usage + u;
        }
        if reply.calls.is_empty() || calls >= cap {
            let text = if reply.text.trim().is_empty() {
                "(the sub-agent found nothing to say)".to_owned()
            } else {
                reply.text
            };
            messages.push(ChatMessage::Assistant {
                text: text.clone(),
                calls: Vec::new(),
            });
            return (ToolOutput::ok(text), usage, messages);
        }
        messages.push(ChatMessage::Assistant {
            text: reply.text.clone(),
            calls: reply.calls.clone(),
        });
        for c in &reply.calls {
            calls += 1;
            let out = if !allowed.contains(&c.name) {
                ToolOutput::denied(format!(
                    "`{}` is not one of the sub-agent's read tools",
                    c.name
                ))
            } else if calls > cap {
                ToolOutput::error(format!(
                    "the sub-agent's cap of {cap} calls is reached: answer now"
                ))
            } else {
                tools::call(&c.name, &c.arguments, t.cx)
            };
            messages.push(ChatMessage::Tool {
                call_id: c.id.clone(),
                name: c.name.clone(),
                content: out.text,
            });
        }
    }
}
