//! What a run reports as it goes: each turn's start, each answered call, each decision.

use vouch_gate::Decision;
use vouch_llm::Usage;
use vouch_session::{ToolCall, ToolResult};

/// What a run reports as it goes.
#[derive(Debug)]
#[non_exhaustive]
pub enum Progress<'a> {
    /// An agent's turn begins.
    Turn {
        /// The agent.
        agent: &'a str,
        /// The turn's number, from 1.
        turn: u32,
    },
    /// A tool call was answered.
    ToolCall {
        /// The agent.
        agent: &'a str,
        /// The call.
        call: &'a ToolCall,
        /// Its answer.
        result: &'a ToolResult,
    },
    /// The router decided on a reply.
    Decided {
        /// The agent whose reply it was.
        agent: &'a str,
        /// The decision.
        decision: &'a Decision,
        /// Tokens the turn cost.
        usage: Usage,
    },
}
