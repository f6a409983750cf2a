//! Events: the ordered record of messages, tool calls and tool results in a session.

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use crate::tool::{ToolCall, ToolResult};

/// The role of whoever produced an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// A person, or an orchestrator speaking for one (corrections and routing markers included).
    User,
    /// The agent.
    Assistant,
    /// Context injected by the agent product itself (reminders, hook output, compaction
    /// summaries); never a turn boundary.
    System,
    /// A tool answering a call.
    Tool,
}

impl Role {
    /// Returns the lowercase name of the role.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::System => "system",
            Role::Tool => "tool",
        }
    }
}

/// Who produced an event: a role, and the agent's name when the log gives one.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Actor {
    /// The role.
    pub role: Role,
    /// The agent's name (`Developer`, `Tester`), when known.
    pub name: Option<String>,
}

impl Actor {
    /// Returns an actor with a role and no name.
    pub fn new(role: Role) -> Actor {
        Actor { role, name: None }
    }

    /// Returns an actor with a role and a name.
    pub fn named(role: Role, name: impl Into<String>) -> Actor {
        Actor {
            role,
            name: Some(name.into()),
        }
    }
}

/// One thing that happened in a session.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    /// Position in the session, from 0, without gaps.
    pub seq: u64,
    /// When it happened, when the log says.
    pub timestamp: Option<Timestamp>,
    /// Who produced it.
    pub actor: Actor,
    /// What it was.
    pub kind: EventKind,
    /// The 1-based line of the log it was read from, when read from a line-oriented log.
    pub line: Option<u64>,
}

/// What an event was.
#[derive(Debug, Clone, PartialEq)]
pub enum EventKind {
    /// Text said by a person, the agent or the agent product.
    Message(Message),
    /// A call of a tool.
    ToolCall(ToolCall),
    /// A tool's answer to a call.
    ToolResult(ToolResult),
}

/// Text said in a session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    /// The text.
    pub text: String,
}

impl Event {
    /// Returns the tool call, if this event is one.
    pub fn as_tool_call(&self) -> Option<&ToolCall> {
        match &self.kind {
            EventKind::ToolCall(call) => Some(call),
            _ => None,
        }
    }

    /// Returns the tool result, if this event is one.
    pub fn as_tool_result(&self) -> Option<&ToolResult> {
        match &self.kind {
            EventKind::ToolResult(result) => Some(result),
            _ => None,
        }
    }

    /// Returns the message text, if this event is a message.
    pub fn as_message(&self) -> Option<&str> {
        match &self.kind {
            EventKind::Message(m) => Some(&m.text),
            _ => None,
        }
    }

    /// Returns true for a message by the user role: the events after the most recent one form
    /// the current turn (decision G5).
    pub fn is_user_message(&self) -> bool {
        self.actor.role == Role::User && matches!(self.kind, EventKind::Message(_))
    }
}
