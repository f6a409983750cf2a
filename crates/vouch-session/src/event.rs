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
    pub name: Option<Box<str>>,
}

impl Actor {
    /// Returns an actor with a role and no name.
    pub fn new(role: Role) -> Actor {
        Actor { role, name: None }
    }

    /// Returns an actor with a role and a name.
    pub fn named(role: Role, name: impl Into<Box<str>>) -> Actor {
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
    pub seq: u32,
    /// When it happened, when the log says.
    pub timestamp: Option<Timestamp>,
    /// Who produced it.
    pub actor: Actor,
    /// What it was.
    pub kind: EventKind,
    /// The 1-based line of the log it was read from, when read from a line-oriented log (and
    /// the line's number fits 32 bits).
    pub line: Option<std::num::NonZeroU32>,
}

impl Event {
    /// Returns the 1-based line of the log the event was read from, as a plain number.
    pub fn line_number(&self) -> Option<u64> {
        self.line.map(|l| u64::from(l.get()))
    }
}

/// Returns the `line` of an event read from line `n`: `None` for 0, and for a line past the
/// 4,294,967,295th (an event keeps its line in 32 bits; a session holds hundreds of thousands).
pub fn line_at(n: u64) -> Option<std::num::NonZeroU32> {
    u32::try_from(n).ok().and_then(std::num::NonZeroU32::new)
}

/// Returns the `seq` of the event at `index` of a session.
pub(crate) fn seq_at(index: usize) -> u32 {
    u32::try_from(index).unwrap_or(u32::MAX)
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
