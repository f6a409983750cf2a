//! The run's journal (`journal.jsonl` in the run's state directory): every step of the run as
//! it happens — the task, each turn's start, each model reply with its exact tool calls, the
//! intent of each call that changes files or commits, each tool result with its effects, each
//! change-log entry (written here before it is appended there), each routing decision with the
//! message it implies and the router's state — one JSON line each, written before the run
//! acts on it. `vouch run --resume` rebuilds the run from it exactly.
//!
//! Every line is sealed: its last key, `mac`, is an HMAC-SHA256 over the line before it and
//! the record, keyed by the run's own key (in the state directory, never in an agent's
//! environment). A line edited, removed, inserted or moved breaks the chain from there on and
//! is refused as tampering. Whole records removed from the end leave a valid chain: that is
//! what a crash leaves too, and resuming from it repeats nothing already acted on (the records
//! are ordered so). Bytes after the last newline are a record the run was killed while
//! writing: reading ignores them and resuming cuts them off before writing on.

use std::io::Write;
use std::path::{Path, PathBuf};

use hmac::{KeyInit, Mac};
use serde::{Deserialize, Serialize};
use vouch_gate::{Decision, RouterState};
use vouch_llm::{ToolCallRequest, Usage};
use vouch_session::Outcome;

use crate::error::RunError;
use crate::tools::{Effect, Intent};

/// The HMAC of the journal.
type Seal = hmac::Hmac<sha2::Sha256>;

/// How a sealed line ends: `,"mac":"` + 64 hex digits + `"}`.
const MAC_PREFIX: &[u8] = b",\"mac\":\"";
/// The length of a line's seal, from its `,` to its final `}`.
const SEAL_LEN: usize = MAC_PREFIX.len() + 64 + 2;

/// One line of the journal.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "record", rename_all = "snake_case", deny_unknown_fields)]
pub(crate) enum Record {
    /// The run began.
    Start {
        /// The run's id (its change-log session).
        run_id: String,
        /// The task.
        task: String,
    },
    /// How the kernel confines what the agents run, as the run (re)started: `Security.Sandbox`
    /// and what this machine could not enforce.
    Sandbox {
        /// `on`, `best-effort` or `off`.
        mode: String,
        /// What the kernel could not enforce (best-effort), or everything (off).
        missing: Vec<String>,
    },
    /// A person (or `--approve`/`--deny`) decided a call `Security.Approve` held.
    Approval {
        /// The call.
        call_id: String,
        /// The tool.
        tool: String,
        /// What was asked about: the command, or the tool and its arguments.
        subject: String,
        /// Approved or not.
        approved: bool,
        /// Who decided.
        by: String,
        /// When.
        at: String,
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
    /// A call that changes files or commits is about to act: what the change will be, so
    /// that a run killed right after it can tell whether it happened.
    Begin {
        /// The call.
        call_id: String,
        /// The change.
        intent: Intent,
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
    /// A sub-agent a call started (`sub_agent_explore`): its conversation, recorded as a
    /// subagent of the calling turn.
    Subagent {
        /// The agent whose call started it.
        agent: String,
        /// The call.
        call_id: String,
        /// What it said and did.
        messages: Vec<vouch_llm::ChatMessage>,
    },
    /// A CLI agent's turn is about to run its CLI: a run killed during it resumes the CLI's
    /// session with this prompt.
    CliBegin {
        /// The agent.
        agent: String,
        /// The call that stands for the turn in the run's session.
        call_id: String,
        /// The CLI's session, when known before it runs.
        session: Option<String>,
        /// The prompt.
        prompt: String,
        /// How many events of the session's saved log earlier turns account for.
        before: usize,
        /// The tokens the saved log counted before the turn.
        before_usage: Usage,
    },
    /// A CLI agent's turn ended: what its own log says it did.
    CliTurn {
        /// The agent.
        agent: String,
        /// The call that stands for the turn.
        call_id: String,
        /// The CLI (`claude-code`, `codex`, `gemini`).
        cli: String,
        /// The CLI's session.
        session: Option<String>,
        /// The prompt.
        prompt: String,
        /// Its reply, as the router reads it (with vouch's note when the CLI failed).
        text: String,
        /// The outcome: the CLI's exit.
        outcome: Outcome,
        /// Where its session was read from.
        source: String,
        /// The tokens of the turn.
        usage: Usage,
        /// The turn's part of the CLI's session, as vouch JSONL.
        log: String,
        /// What its calls did.
        effects: Vec<Effect>,
    },
    /// A turn's change-log entry, journaled before it is appended to the change log (a
    /// resumed run appends it when the change log lacks it, never twice); `None` when the turn
    /// changed and ran nothing.
    Recorded {
        /// The agent.
        agent: String,
        /// The entry, as JSON.
        entry: Option<String>,
    },
    /// The router decided on a turn's reply.
    Decided {
        /// The agent.
        agent: String,
        /// The decision.
        decision: Decision,
        /// The router's state after it.
        state: RouterState,
        /// The user message the decision adds (a routing note or a correction), journaled
        /// with it so that no crash separates the two.
        message: Option<String>,
    },
}

/// The journal being written.
#[derive(Debug)]
pub(crate) struct Journal {
    path: PathBuf,
    file: std::fs::File,
    key: [u8; 32],
    last: [u8; 32],
}

/// A journal read and verified.
#[derive(Debug)]
pub(crate) struct Read {
    /// Its records, in order.
    pub(crate) records: Vec<Record>,
    /// The seal of its last whole line (zeros for an empty journal).
    last: [u8; 32],
    /// Where its whole lines end: bytes after this are a torn record.
    whole: u64,
    /// How many bytes of a torn record follow.
    pub(crate) torn: u64,
}

impl Journal {
    /// Creates the journal at `path` (replacing any), sealed with `key`.
    pub(crate) fn create(path: &Path, key: [u8; 32]) -> Result<Journal, RunError> {
        let file = std::fs::OpenOptions::new()
            .create(true)
            .write(true)
            .truncate(true)
            .open(path)
            .map_err(|e| RunError::Io(format!("cannot create {}: {e}", path.display())))?;
        Ok(Journal {
            path: path.to_owned(),
            file,
            key,
            last: [0; 32],
        })
    }

    /// Opens the journal at `path`, read as `read` found it, to write on: a torn record at its
    /// end is cut off first, byte-exact.
    pub(crate) fn resume(path: &Path, key: [u8; 32], read: &Read) -> Result<Journal, RunError> {
        let file = std::fs::OpenOptions::new()
            .write(true)
            .open(path)
            .map_err(|e| RunError::Io(format!("cannot open {}: {e}", path.display())))?;
        if read.torn > 0 {
            file.set_len(read.whole)
                .and_then(|()| file.sync_data())
                .map_err(|e| {
                    RunError::Io(format!(
                        "cannot cut the torn record off {}: {e}",
                        path.display()
                    ))
                })?;
        }
        let mut journal = Journal {
            path: path.to_owned(),
            file,
            key,
            last: read.last,
        };
        use std::io::Seek;
        journal
            .file
            .seek(std::io::SeekFrom::End(0))
            .map_err(|e| RunError::Io(format!("cannot open {}: {e}", journal.path.display())))?;
        Ok(journal)
    }

    /// Appends `record` as one sealed line.
    pub(crate) fn write(&mut self, record: &Record) -> Result<(), RunError> {
        let body = serde_json::to_vec(record)
            .map_err(|e| RunError::Io(format!("cannot write the journal: {e}")))?;
        let mac = seal(&self.key, &self.last, &body);
        let mut line = Vec::with_capacity(body.len() + SEAL_LEN + 1);
        line.extend_from_slice(&body[..body.len() - 1]);
        line.extend_from_slice(MAC_PREFIX);
        line.extend_from_slice(hex(&mac).as_bytes());
        line.extend_from_slice(b"\"}\n");
        self.file
            .write_all(&line)
            .map_err(|e| RunError::Io(format!("cannot write {}: {e}", self.path.display())))?;
        self.last = mac;
        Ok(())
    }
}

/// Reads and verifies the journal at `path` with `key`. A line that does not verify is
/// [`RunError::Tampered`]; bytes after the last newline are a torn record, not read.
pub(crate) fn read(path: &Path, key: &[u8; 32]) -> Result<Read, RunError> {
    let bytes = std::fs::read(path)
        .map_err(|e| RunError::Io(format!("cannot read {}: {e}", path.display())))?;
    let whole = bytes.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
    let mut out = Read {
        records: Vec::new(),
        last: [0; 32],
        whole: whole as u64,
        torn: (bytes.len() - whole) as u64,
    };
    let lines = match whole {
        0 => None,
        end => Some(bytes[..end - 1].split(|b| *b == b'\n')),
    };
    for (i, line) in lines.into_iter().flatten().enumerate() {
        let number = i + 1;
        let (body, mac) =
            unseal(line).ok_or_else(|| tampered(path, number, "it carries no seal"))?;
        let expected = seal(key, &out.last, &body);
        if hex(&expected) != mac {
            return Err(tampered(
                path,
                number,
                "its seal does not match (a line was changed, removed, inserted or moved)",
            ));
        }
        let record: Record = serde_json::from_slice(&body).map_err(|e| {
            tampered(
                path,
                number,
                &format!("its seal holds but its record does not read: {e}"),
            )
        })?;
        out.records.push(record);
        out.last = expected;
    }
    Ok(out)
}

/// Returns the record and the seal of a sealed line (without its newline).
fn unseal(line: &[u8]) -> Option<(Vec<u8>, &str)> {
    if line.len() < SEAL_LEN + 2 || !line.ends_with(b"\"}") {
        return None;
    }
    let at = line.len() - SEAL_LEN;
    if &line[at..at + MAC_PREFIX.len()] != MAC_PREFIX {
        return None;
    }
    let mac = std::str::from_utf8(&line[at + MAC_PREFIX.len()..line.len() - 2]).ok()?;
    let mut body = line[..at].to_vec();
    body.push(b'}');
    Some((body, mac))
}

/// Returns the seal of `body` after the line sealed `last`.
fn seal(key: &[u8; 32], last: &[u8; 32], body: &[u8]) -> [u8; 32] {
    // HMAC takes a key of any length; 32 bytes cannot fail.
    let mut mac = <Seal as KeyInit>::new_from_slice(key).unwrap_or_else(|_| unreachable!());
    mac.update(last);
    mac.update(body);
    mac.finalize().into_bytes().into()
}

/// Returns `bytes` as lowercase hex.
pub(crate) fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    bytes.iter().fold(String::with_capacity(64), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

fn tampered(path: &Path, line: usize, why: &str) -> RunError {
    RunError::Tampered(format!(
        "the run's journal {}:{line} does not verify: {why}",
        path.display()
    ))
}

/// Reads back the turn's part of a CLI session the journal holds (vouch JSONL).
pub(crate) fn cli_session(log: &str) -> Result<vouch_session::Session, RunError> {
    let options = vouch_session::ReadOptions {
        format: Some(vouch_session::Format::Vouch),
        ..vouch_session::ReadOptions::default()
    };
    vouch_session::read_from(log.as_bytes(), "<journal>", &options)
        .map(|r| r.session)
        .map_err(|e| RunError::Io(format!("the journal's CLI session cannot be read: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn user(n: u32) -> Record {
        Record::Turn {
            agent: format!("Agent «{n}»"),
            number: n,
        }
    }

    /// Writes five records; returns the journal's path and its lines.
    fn five(dir: &Path) -> (PathBuf, Vec<String>) {
        let path = dir.join("journal.jsonl");
        let mut j = Journal::create(&path, [7; 32]).unwrap();
        for n in 1..=5 {
            j.write(&user(n)).unwrap();
        }
        let text = std::fs::read_to_string(&path).unwrap();
        (path, text.lines().map(|l| format!("{l}\n")).collect())
    }

    #[test]
    fn every_line_is_sealed_and_a_whole_prefix_still_verifies() {
        let dir = tempfile::tempdir().unwrap();
        let (path, lines) = five(dir.path());
        assert!(lines[0].ends_with("\"}\n") && lines[0].contains(",\"mac\":\""));
        assert_eq!(read(&path, &[7; 32]).unwrap().records.len(), 5);
        std::fs::write(&path, lines[..3].concat()).unwrap();
        assert_eq!(read(&path, &[7; 32]).unwrap().records.len(), 3);
        // Another key does not verify it.
        assert!(matches!(read(&path, &[8; 32]), Err(RunError::Tampered(_))));
    }

    #[test]
    fn a_line_edited_removed_inserted_or_moved_is_tampering() {
        let dir = tempfile::tempdir().unwrap();
        let (path, lines) = five(dir.path());
        let edited = lines[1].replace("«2»", "«9»");
        let unsealed = "{\"record\":\"turn\",\"agent\":\"x\",\"number\":2}\n".to_owned();
        let cases = [
            ("edited", [&lines[..1], &[edited], &lines[2..]].concat(), 2),
            ("removed", [&lines[..1], &lines[2..]].concat(), 2),
            (
                "inserted",
                [&lines[..2], &[lines[1].clone()], &lines[2..]].concat(),
                3,
            ),
            (
                "moved",
                [
                    &lines[..1],
                    &[lines[2].clone(), lines[1].clone()],
                    &lines[3..],
                ]
                .concat(),
                2,
            ),
            ("unsealed", [&lines[..1], &[unsealed]].concat(), 2),
        ];
        for (what, text, line) in cases {
            std::fs::write(&path, text.concat()).unwrap();
            let err = read(&path, &[7; 32]).unwrap_err();
            assert!(
                err.to_string()
                    .contains(&format!("journal.jsonl:{line} does not verify")),
                "{what}: {err}"
            );
        }
    }

    #[test]
    fn a_torn_tail_is_not_read_and_is_cut_before_writing_on() {
        let dir = tempfile::tempdir().unwrap();
        let (path, lines) = five(dir.path());
        let whole = lines[..4].concat();
        for cut in 0..lines[4].len() - 1 {
            // Cuts inside `«` leave half a character.
            let torn = [whole.as_bytes(), &lines[4].as_bytes()[..cut]].concat();
            std::fs::write(&path, &torn).unwrap();
            let read = read(&path, &[7; 32]).unwrap();
            assert_eq!((read.records.len(), read.torn), (4, cut as u64));
            let mut j = Journal::resume(&path, [7; 32], &read).unwrap();
            j.write(&user(6)).unwrap();
            let again = super::read(&path, &[7; 32]).unwrap();
            assert_eq!((again.records.len(), again.torn), (5, 0), "cut at {cut}");
        }
    }
}
