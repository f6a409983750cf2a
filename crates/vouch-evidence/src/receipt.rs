//! Command receipts: one shape for every recorded shell command, whether vouch's change log
//! holds it or an agent's session log does — the exact command, its exit code, when it ran,
//! the call it answers, how much it printed, a SHA-256 of that output and its tail.

use std::fmt;

use jiff::Timestamp;
use vouch_session::{Event, Outcome, ToolCall, ToolKind};

use crate::changelog::{ChangeEntry, CommandReceipt, CommandRun, sha256_hex, tail};

/// A recorded shell command: the change log's record of it (its command, outcome, output and
/// receipt keys), and where it was recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Receipt {
    /// Where it was recorded.
    pub origin: Origin,
    /// The command with its exit code, output and receipt, in the change log's shape whatever
    /// its origin.
    pub run: CommandRun,
}

/// Where a receipt was recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// In `changes.json`, in a turn of `agent`.
    ChangeLog {
        /// The agent whose turn recorded it.
        agent: String,
        /// The turn's number.
        turn: Option<i64>,
    },
    /// In the session log, at a line (when the log is line-oriented).
    Session {
        /// The 1-based line of the call.
        line: Option<u64>,
    },
}

impl Receipt {
    /// Returns the receipt of a command the change log recorded in `entry`.
    pub fn of_run(run: &CommandRun, entry: &ChangeEntry) -> Receipt {
        Receipt {
            origin: Origin::ChangeLog {
                agent: entry.agent.clone(),
                turn: entry.turn_index,
            },
            run: run.clone(),
        }
    }

    /// Returns the receipt of a shell call of a session log, `None` for a call that is not a
    /// shell command: `event` holds the call (its timestamp is the start), `outcome` and
    /// `output` are its result's, `ended` when that result was logged; the output's size,
    /// hash and tail are computed from it.
    pub fn of_call(
        call: &ToolCall,
        event: &Event,
        outcome: Option<Outcome>,
        output: String,
        ended: Option<Timestamp>,
    ) -> Option<Receipt> {
        if call.kind != ToolKind::Shell {
            return None;
        }
        let command = call.command()?.to_owned();
        let started = event.timestamp;
        let (succeeded, exit_code) = match outcome {
            Some(Outcome::Ok) => (true, Some(0)),
            Some(Outcome::Failed { exit_code }) => (false, exit_code.map(i64::from)),
            _ => (false, None),
        };
        let duration_ms = match (started, ended) {
            (Some(s), Some(e)) => u64::try_from(e.duration_since(s).as_millis()).ok(),
            _ => None,
        };
        let receipt = CommandReceipt {
            call_id: Some(call.call_id.clone()),
            started_at: started.map(|t| t.to_string()),
            ended_at: ended.map(|t| t.to_string()),
            duration_ms,
            output_bytes: Some(output.len() as u64),
            output_tail: Some(tail(&output).to_owned()),
        };
        Some(Receipt {
            origin: Origin::Session {
                line: event.line_number(),
            },
            run: CommandRun {
                command,
                succeeded,
                output_sha256: Some(sha256_hex(output.as_bytes())),
                output,
                exit_code,
                receipt,
            },
        })
    }

    /// Returns the output a check reads: what was kept, and the tail when it may reach
    /// further.
    pub fn full_output(&self) -> std::borrow::Cow<'_, str> {
        match &self.run.receipt.output_tail {
            Some(tail) if !self.run.output.ends_with(tail.as_str()) => {
                format!("{}\n{tail}", self.run.output).into()
            }
            _ => self.run.output.as_str().into(),
        }
    }
}

impl fmt::Display for Receipt {
    /// Writes the command and where it was recorded: `` `npm test || true` (changes.json,
    /// Tester's turn 3) ``.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}` (", one_line(&self.run.command))?;
        match &self.origin {
            Origin::ChangeLog { agent, turn } => {
                write!(f, "changes.json")?;
                match (agent.is_empty(), turn) {
                    (false, Some(t)) => write!(f, ", {agent}'s turn {t}")?,
                    (false, None) => write!(f, ", {agent}'s turn")?,
                    _ => {}
                }
            }
            Origin::Session { line } => {
                write!(f, "session")?;
                if let Some(line) = line {
                    write!(f, " line {line}")?;
                }
            }
        }
        if let Some(id) = &self.run.receipt.call_id {
            write!(f, ", call {id}")?;
        }
        f.write_str(")")
    }
}

/// Returns `text` on one line, cut to a length a message can quote.
pub(crate) fn one_line(text: &str) -> String {
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if line.chars().count() <= 100 {
        line
    } else {
        format!("{}…", line.chars().take(99).collect::<String>())
    }
}
