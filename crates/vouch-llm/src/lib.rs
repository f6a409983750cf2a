//! Model clients for vouch's graders, behind one trait, [`ModelClient`]:
//!
//! - [`OpenAiCompatible`]: chat completions on any OpenAI-compatible server (OpenAI, Ollama,
//!   vLLM, llama.cpp's server, LM Studio), with JSON-schema structured output where the server
//!   has it and plain JSON where it does not;
//! - [`Anthropic`]: the Messages API, the reply forced into a tool call (structured output);
//! - [`AgentCli`]: an agent's command line as a grader — `claude -p` or `codex exec` — with the
//!   prompt on standard input, never as an argument, and no session of it left behind;
//! - [`Scripted`]: replies read from a file, for tests and offline demos.
//!
//! HTTP clients share a [`Transport`]: a timeout per attempt, retries with exponential backoff
//! and jitter on 429, 5xx and connection errors (a `Retry-After` is obeyed), and a limit of
//! simultaneous requests shared by every client of one provider ([`Limits`]).

#![deny(missing_docs)]

mod anthropic;
mod anthropic_chat;
mod chat;
mod cli;
mod client;
mod error;
mod http;
mod limit;
mod openai;
mod openai_chat;
mod provider;
mod retry;
mod scripted;
mod scripted_chat;

pub use anthropic::Anthropic;
pub mod guarded;
pub use chat::{ChatMessage, ChatReply, ChatRequest, ToolCallRequest, ToolChoice, ToolSpec};
pub use cli::{AgentCli, CliKind};
pub use client::{BoxFuture, ModelClient, Reply, Request, Schema, Usage};
pub use error::Error;
pub use http::Transport;
pub use limit::{DEFAULT_CONCURRENCY, Limits};
pub use openai::{OpenAiCompatible, Structured};
pub use provider::HttpProvider;
pub use retry::RetryPolicy;
pub use scripted::{Scripted, ScriptedReply, yaml_error};
pub use scripted_chat::{ScriptedCall, ScriptedChat, ScriptedStep};
