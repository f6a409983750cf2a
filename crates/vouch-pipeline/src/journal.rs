//! The run's journal (`.vouch/run/journal.jsonl`): every step of the run as it happens — the
//! task, each user message, each turn's start, each model reply with its exact tool calls,
//! each tool result with its effects, each routing decision with the router's state — one
//! JSON line each, appended and flushed before the run goes on. `vouch run --resume` rebuilds
//! the run from it exactly: the same conversation, the same session, the same state.

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use vouch_gate::{Decision, RouterState};
use vouch_llm::{ToolCallRequest, Usage};
use vouch_session::Outcome;

use crate::error::RunError;
use crate::tools::Effect;

/// One line of the journal.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "record", rename_all = "snake_case")]
pub(crate) enum Record {
    /// The run began.
    Start {
        /// The run's id (its change-log session).
        run_id: String,
        /// The task.
        task: String,
    },
    /// A user message: a routing note or a correction.
    User {
        /// Its text.
        text: String,
    },
    /// An agent's turn began.
    Turn {
        /// The agent.
        agent: String,
        /// The turn's number.
        number: u32,
    },
    /// The agent's model answered.
    Step {
        /// The agent.
        agent: String,
        /// What it said.
        text: String,
        /// The tools it called.
        calls: Vec<ToolCallRequest>,
        /// What it cost.
        usage: Option<Usage>,
    },
    /// A tool call was answered.
    Result {
        /// The agent.
        agent: String,
        /// The call.
        call_id: String,
        /// The tool.
        name: String,
        /// What the model read.
        text: String,
        /// The outcome.
        outcome: Outcome,
        /// What the call did.
        effects: Vec<Effect>,
        /// The route keyword of a `handoff` call.
        handoff: Option<String>,
    },
    /// A turn's change-log entry was written (a resumed run does not write it again).
    Recorded {
        /// The agent.
        agent: String,
    },
    /// The router decided on a turn's reply (after its change-log entry was written).
    Decided {
        /// The agent.
        agent: String,
        /// The decision.
        decision: Decision,
        /// The router's state after it.
        state: RouterState,
    },
}

/// The journal being written.
#[derive(Debug)]
pub(crate) struct Journal {
    path: PathBuf,
    file: std::fs::File,
}

impl Journal {
    /// Opens the journal at `path` for appending (created when missing).
    pub(crate) fn open(path: &Path) -> Result<Journal, RunError> {
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|e| RunError::Io(format!("cannot open {}: {e}", path.display())))?;
        Ok(Journal {
            path: path.to_owned(),
            file,
        })
    }

    /// Appends `record` as one line.
    pub(crate) fn write(&mut self, record: &Record) -> Result<(), RunError> {
        let mut line = serde_json::to_vec(record)
            .map_err(|e| RunError::Io(format!("cannot write the journal: {e}")))?;
        line.push(b'\n');
        self.file
            .write_all(&line)
            .and_then(|()| self.file.flush())
            .map_err(|e| RunError::Io(format!("cannot write {}: {e}", self.path.display())))
    }
}

/// Reads every record of the journal at `path`. A torn last line (the run was killed while
/// writing it) is dropped; any other bad line is an error naming it.
pub(crate) fn read(path: &Path) -> Result<Vec<Record>, RunError> {
    let file = std::fs::File::open(path)
        .map_err(|e| RunError::Io(format!("cannot read {}: {e}", path.display())))?;
    let lines: Vec<String> = std::io::BufReader::new(file)
        .lines()
        .collect::<Result<_, _>>()
        .map_err(|e| RunError::Io(format!("cannot read {}: {e}", path.display())))?;
    let mut records = Vec::with_capacity(lines.len());
    for (i, line) in lines.iter().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str(line) {
            Ok(record) => records.push(record),
            Err(_) if i + 1 == lines.len() => break,
            Err(e) => {
                return Err(RunError::Io(format!(
                    "{}:{}: not a journal record: {e}",
                    path.display(),
                    i + 1
                )));
            }
        }
    }
    Ok(records)
}
