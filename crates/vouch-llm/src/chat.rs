//! Conversations with tools: what an agent of a pipeline sends a model each step (its
//! instructions, the conversation so far, the tools it may call) and what comes back (text,
//! tool calls, usage). Each provider client speaks its own wire format for it.

use serde::{Deserialize, Serialize};

use crate::client::Usage;

/// A tool the model may call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolSpec {
    /// Its name (`write_file`).
    pub name: String,
    /// What it does, for the model.
    pub description: String,
    /// The JSON Schema of its arguments: an object.
    pub parameters: serde_json::Value,
}

/// A call of a tool the model asked for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCallRequest {
    /// The call's id, which its result answers.
    pub id: String,
    /// The tool.
    pub name: String,
    /// Its arguments.
    pub arguments: serde_json::Value,
}

/// One message of a conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "snake_case")]
pub enum ChatMessage {
    /// What the user (the task, a routing note, a correction) says.
    User {
        /// The text.
        text: String,
    },
    /// What the model said, and the tools it called.
    Assistant {
        /// The text (empty when it only called tools).
        text: String,
        /// The tools it called.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        calls: Vec<ToolCallRequest>,
    },
    /// A tool's answer to a call.
    Tool {
        /// The call it answers.
        call_id: String,
        /// The tool's name.
        name: String,
        /// What the tool answered.
        content: String,
    },
}

/// One step of a conversation: everything the model is given.
#[derive(Debug, Clone, PartialEq)]
pub struct ChatRequest {
    /// The agent's instructions.
    pub system: Option<String>,
    /// The conversation so far.
    pub messages: Vec<ChatMessage>,
    /// The tools it may call.
    pub tools: Vec<ToolSpec>,
    /// The model; the client's own when `None`.
    pub model: Option<String>,
    /// The most tokens the reply may take.
    pub max_tokens: u32,
    /// Sampling temperature, when set.
    pub temperature: Option<f32>,
    /// `reasoning_effort` for OpenAI-compatible reasoning models (`none`, `low`, `high`, ...),
    /// when set.
    pub reasoning_effort: Option<String>,
    /// Whether the model must call a tool in this step (`Required`), may (`Auto`, the
    /// default), or is offered none (`None`).
    pub tool_choice: ToolChoice,
    /// The agent asking (a scripted model answers per agent; providers never see it).
    pub agent: Option<String>,
}

/// Whether a step must, may or cannot call a tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ToolChoice {
    /// The model decides.
    #[default]
    Auto,
    /// The model must call one of the tools.
    Required,
    /// No tools are offered.
    None,
}

/// What the model answered.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ChatReply {
    /// Its text.
    pub text: String,
    /// The tools it called, in order.
    pub calls: Vec<ToolCallRequest>,
    /// The tokens it cost, when the provider said.
    pub usage: Option<Usage>,
    /// The model that answered.
    pub model: String,
}
