//! What a tool call answers and what it did.

use std::time::Duration;

use vouch_session::Outcome;

/// The answer to one tool call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolOutput {
    /// What the model reads: the result, or `[EXIT n]`, `[ERROR]`, `[TIMEOUT]` or `[DENIED]`
    /// and why.
    pub text: String,
    /// The outcome, structured, as the session records it.
    pub outcome: Outcome,
    /// What the call changed or ran, for the change log.
    pub effects: Vec<Effect>,
    /// The route keyword of a `handoff` call.
    pub handoff: Option<String>,
}

/// Something a tool call did that the change log records.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Effect {
    /// A file written or patched (its path, relative to the working directory).
    Wrote(String),
    /// A file deleted.
    Deleted(String),
    /// A shell command run.
    Ran(Receipt),
    /// A commit made (its hash).
    Committed(String),
    /// A git call the runner made for a commit (kept in the journal; the change log keeps
    /// the commit).
    Git(Receipt),
    /// A call of an MCP server's tool (the change log's `ToolCalls`).
    Tool(vouch_evidence::ToolCallRun),
}

/// A shell command run by the runner, as the change log keeps it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Receipt {
    /// The command, as the agent wrote it.
    pub command: String,
    /// Its exit code; `None` when it was killed.
    pub exit_code: Option<i32>,
    /// True when it ran past its time and its process group was killed.
    pub timed_out: bool,
    /// How long it ran.
    pub duration: Duration,
    /// Its output (standard error merged), capped to its head and tail.
    pub output: String,
    /// How many bytes of output it wrote in all.
    pub output_len: u64,
    /// The SHA-256 of its whole output (before the cap).
    pub output_sha256: String,
    /// When it started (RFC 3339).
    pub started_at: String,
    /// The tool call it answers (set by the runner).
    pub call_id: Option<String>,
    /// Processes it started that left its process group, stopped when it ended.
    #[serde(default)]
    pub escaped: Vec<String>,
}

impl ToolOutput {
    /// A success reading `text`.
    pub fn ok(text: impl Into<String>) -> ToolOutput {
        ToolOutput {
            text: text.into(),
            outcome: Outcome::Ok,
            effects: Vec::new(),
            handoff: None,
        }
    }

    /// An `[ERROR]` answer: the call could not do what it asked.
    pub fn error(why: impl std::fmt::Display) -> ToolOutput {
        ToolOutput {
            text: format!("[ERROR] {why}"),
            outcome: Outcome::Error,
            effects: Vec::new(),
            handoff: None,
        }
    }

    /// A `[DENIED]` answer: the call was refused.
    pub fn denied(why: impl std::fmt::Display) -> ToolOutput {
        ToolOutput {
            text: format!("[DENIED] {why}"),
            outcome: Outcome::Denied,
            effects: Vec::new(),
            handoff: None,
        }
    }

    /// Returns the answer with `effect` recorded.
    #[must_use]
    pub fn with(mut self, effect: Effect) -> ToolOutput {
        self.effects.push(effect);
        self
    }
}
