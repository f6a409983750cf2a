//! The session: one agent's run, its events, its subagents and where it was read from.

use std::borrow::Cow;
use std::fmt;
use std::path::PathBuf;

use jiff::SignedDuration;

use crate::error::Error;
use crate::event::{Actor, Event, EventKind};
use crate::hash::FastMap;
use crate::output::Output;
use crate::tool::{ToolCall, ToolResult};

/// One agent's run: its ordered events and the subagents it started.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Session {
    /// The session id the log gives (Claude's `sessionId`, Codex's thread id, a subagent's
    /// agent id); empty when the log gives none.
    pub id: String,
    /// The product that wrote the log.
    pub agent: Agent,
    /// The agent's name or role (`Explore`, `Developer`), when the log gives one.
    pub name: Option<String>,
    /// For a subagent, the id of the tool call in the parent that started it, when the log
    /// links them.
    pub spawned_by: Option<String>,
    /// The working directory the agent ran in, when the log says.
    pub cwd: Option<String>,
    /// The model that answered, when the log says.
    pub model: Option<String>,
    /// The tokens the session's model calls used, when the log records them; each model
    /// message counted once, however many lines of the log repeat it. A subagent's tokens are
    /// its own, not added here.
    pub usage: Option<Usage>,
    /// The file and format the session was read from.
    pub source: Option<Source>,
    /// What happened, in order.
    pub events: Vec<Event>,
    /// The sessions this one started, each linked to its spawning call where the log allows.
    pub subagents: Vec<Session>,
}

/// Tokens used by a session's model calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct Usage {
    /// Input tokens not read from a cache.
    pub input: u64,
    /// Output tokens (reasoning included where the log counts it there).
    pub output: u64,
    /// Input tokens read from a prompt cache.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cache_read: u64,
    /// Input tokens written to a prompt cache.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cache_write: u64,
}

#[expect(
    clippy::trivially_copy_pass_by_ref,
    reason = "serde's skip_serializing_if passes a reference"
)]
fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl Usage {
    /// Returns the sum of all four counts.
    pub fn total(&self) -> u64 {
        self.input + self.output + self.cache_read + self.cache_write
    }
}

impl std::ops::AddAssign for Usage {
    fn add_assign(&mut self, other: Usage) {
        self.input += other.input;
        self.output += other.output;
        self.cache_read += other.cache_read;
        self.cache_write += other.cache_write;
    }
}

/// The product that wrote a log.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub enum Agent {
    /// Anthropic's Claude Code.
    ClaudeCode,
    /// OpenAI's Codex CLI.
    Codex,
    /// An orchestrator that dumped OpenAI-style chat messages.
    Orchestrator,
    /// Another product, by name.
    Other(String),
    /// Not known.
    #[default]
    Unknown,
}

impl Agent {
    /// Returns the product's name as vouch spells it (`claude-code`, `codex`, ...).
    pub fn as_str(&self) -> &str {
        match self {
            Agent::ClaudeCode => "claude-code",
            Agent::Codex => "codex",
            Agent::Orchestrator => "orchestrator",
            Agent::Other(name) => name,
            Agent::Unknown => "unknown",
        }
    }

    /// Returns the product named `name` (the inverse of [`Agent::as_str`]).
    pub fn from_name(name: &str) -> Agent {
        match name {
            "claude-code" => Agent::ClaudeCode,
            "codex" => Agent::Codex,
            "orchestrator" => Agent::Orchestrator,
            "unknown" | "" => Agent::Unknown,
            other => Agent::Other(other.to_owned()),
        }
    }
}

impl fmt::Display for Agent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Where a session was read from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source {
    /// The file, when read from one (not from standard input).
    pub path: Option<PathBuf>,
    /// The format it was read as.
    pub format: Format,
}

/// A log format vouch reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// Claude Code session JSONL (and `claude -p --output-format stream-json` output).
    ClaudeCode,
    /// Codex CLI rollout JSONL (and `codex exec --json` output).
    Codex,
    /// OpenAI-style chat messages, as a JSON array or JSONL.
    Chat,
    /// vouch's own JSONL format.
    Vouch,
    /// Gemini CLI chat files (JSON or JSONL) and `gemini -p --output-format stream-json` output.
    Gemini,
    /// `opencode export` JSON.
    Opencode,
    /// Cursor agent transcripts (JSONL).
    Cursor,
}

impl Format {
    /// Every format, in the order above.
    pub const ALL: [Format; 7] = [
        Format::ClaudeCode,
        Format::Codex,
        Format::Gemini,
        Format::Opencode,
        Format::Cursor,
        Format::Chat,
        Format::Vouch,
    ];

    /// Returns the format's name as the command line spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            Format::ClaudeCode => "claude-code",
            Format::Codex => "codex",
            Format::Chat => "chat",
            Format::Vouch => "vouch",
            Format::Gemini => "gemini",
            Format::Opencode => "opencode",
            Format::Cursor => "cursor",
        }
    }

    /// Returns what the format is, in a line (for `--help`).
    pub fn description(self) -> &'static str {
        match self {
            Format::ClaudeCode => {
                "Claude Code session JSONL, or `claude -p --output-format stream-json` output"
            }
            Format::Codex => "Codex CLI rollout JSONL, or `codex exec --json` output",
            Format::Chat => {
                "OpenAI-style chat messages: a JSON array, `{\"messages\": [...]}`, or JSONL"
            }
            Format::Vouch => "vouch's own JSONL",
            Format::Gemini => {
                "Gemini CLI chat files (`~/.gemini/tmp/*/chats/`), or `gemini -p --output-format stream-json` output"
            }
            Format::Opencode => "`opencode export` JSON",
            Format::Cursor => {
                "Cursor agent transcripts (`~/.cursor/projects/*/agent-transcripts/`)"
            }
        }
    }

    /// Returns the format named `name`, if any.
    pub fn from_name(name: &str) -> Option<Format> {
        Format::ALL.into_iter().find(|f| f.as_str() == name)
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A turn: a user message and what followed it until the next user message.
#[derive(Debug, Clone, Copy)]
pub struct Turn<'a> {
    /// The turn's position, from 0.
    pub index: usize,
    /// Its events, the opening user message first (when there is one).
    pub events: &'a [Event],
}

impl Session {
    /// Appends an event by `actor` with the next `seq`, no timestamp and no line: how sessions
    /// are built in code (tests, generators, orchestrators).
    pub fn push(&mut self, actor: Actor, kind: EventKind) -> &mut Event {
        self.events.push(Event {
            seq: crate::event::seq_at(self.events.len()),
            timestamp: None,
            actor,
            kind,
            line: None,
        });
        let last = self.events.len() - 1;
        &mut self.events[last]
    }

    /// Returns the tool calls, in order.
    pub fn tool_calls(&self) -> impl Iterator<Item = &ToolCall> {
        self.events.iter().filter_map(Event::as_tool_call)
    }

    /// Returns the tool results, in order.
    pub fn tool_results(&self) -> impl Iterator<Item = &ToolResult> {
        self.events.iter().filter_map(Event::as_tool_result)
    }

    /// Returns an index from call id to the call's result.
    pub fn results_by_call(&self) -> FastMap<&str, &ToolResult> {
        self.tool_results()
            .map(|r| (r.call_id.as_str(), r))
            .collect()
    }

    /// Returns the turns: a new one starts at every user message (decision G5). Events before
    /// the first user message form a turn of their own.
    pub fn turns(&self) -> Vec<Turn<'_>> {
        let mut turns = Vec::new();
        let mut start = 0;
        for (i, event) in self.events.iter().enumerate() {
            if event.is_user_message() && i > start {
                turns.push(Turn {
                    index: turns.len(),
                    events: &self.events[start..i],
                });
                start = i;
            }
        }
        if start < self.events.len() {
            turns.push(Turn {
                index: turns.len(),
                events: &self.events[start..],
            });
        }
        turns
    }

    /// Returns the events of the current turn: those after the most recent user message.
    pub fn current_turn(&self) -> &[Event] {
        let start = self
            .events
            .iter()
            .rposition(Event::is_user_message)
            .map_or(0, |i| i + 1);
        &self.events[start..]
    }

    /// Returns the agent's final answer: the text of its last message.
    pub fn final_answer(&self) -> Option<&str> {
        self.events.iter().rev().find_map(|e| match &e.kind {
            EventKind::Message(m) if e.actor.role == crate::Role::Assistant => Some(&*m.text),
            _ => None,
        })
    }

    /// Returns the time from the first to the last timestamped event, when there are two.
    pub fn duration(&self) -> Option<SignedDuration> {
        let mut stamps = self.events.iter().filter_map(|e| e.timestamp);
        let first = stamps.next()?;
        let last = stamps.next_back().unwrap_or(first);
        Some(last.duration_since(first))
    }

    /// Returns the subagent started by the call `call_id`, if it was read.
    pub fn subagent_of(&self, call_id: &str) -> Option<&Session> {
        self.subagents
            .iter()
            .find(|s| s.spawned_by.as_deref() == Some(call_id))
    }

    /// Returns the full text of an output of this session, reading it from the log file when
    /// only a preview is held in memory.
    pub fn output_text<'o>(&self, output: &'o Output) -> Result<Cow<'o, str>, Error> {
        output.load(self.source.as_ref().and_then(|s| s.path.as_deref()))
    }

    /// Returns what `event` of this session says, in one line, without its place in the log
    /// or its time — `User None: the task`, `call ID NAME ARGS`, `result ID OUTCOME OUTPUT` —
    /// so that two records of one run can be compared event by event. An output that cannot be
    /// loaded reads as its error.
    pub fn event_line(&self, event: &Event) -> String {
        match &event.kind {
            EventKind::Message(m) => {
                format!("{:?} {:?}: {}", event.actor.role, event.actor.name, m.text)
            }
            EventKind::ToolCall(c) => format!("call {} {} {}", c.call_id, c.name, c.args.as_json()),
            EventKind::ToolResult(r) => format!(
                "result {} {:?} {}",
                r.call_id,
                r.outcome,
                self.output_text(&r.output)
                    .unwrap_or_else(|e| Cow::Owned(format!("(unreadable: {e})")))
            ),
        }
    }

    /// Returns this session and every subagent below it, depth first, each with its depth.
    pub fn walk(&self) -> Vec<(usize, &Session)> {
        let mut out = Vec::new();
        let mut stack = vec![(0, self)];
        while let Some((depth, s)) = stack.pop() {
            out.push((depth, s));
            stack.extend(s.subagents.iter().rev().map(|c| (depth + 1, c)));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::{Actor, Message, Role};

    fn msg(seq: u32, role: Role, text: &str) -> Event {
        Event {
            seq,
            timestamp: None,
            actor: Actor::new(role),
            kind: EventKind::Message(Message { text: text.into() }),
            line: None,
        }
    }

    #[test]
    fn turns_split_at_user_messages() {
        let s = Session {
            events: vec![
                msg(0, Role::System, "boot"),
                msg(1, Role::User, "do it"),
                msg(2, Role::Assistant, "done"),
                msg(3, Role::System, "reminder"),
                msg(4, Role::User, "again"),
                msg(5, Role::Assistant, "again done"),
            ],
            ..Session::default()
        };
        let turns = s.turns();
        assert_eq!(turns.len(), 3);
        assert_eq!(turns[1].events.len(), 3);
        assert_eq!(s.current_turn().len(), 1);
        assert_eq!(s.final_answer(), Some("again done"));
    }

    #[test]
    fn a_session_without_user_messages_is_one_turn() {
        let s = Session {
            events: vec![msg(0, Role::Assistant, "hi")],
            ..Session::default()
        };
        assert_eq!(s.turns().len(), 1);
        assert_eq!(s.current_turn().len(), 1);
        assert!(Session::default().turns().is_empty());
    }
}
