//! `changes.json`: the turns an orchestrator recorded — files written and deleted, commands run
//! with their outcome and output, commits — in the orchestrator's layout (decision G9).
//!
//! Keys are read case-insensitively; vouch writes `ExitCode` and `OutputSha256` beside each
//! command, which other readers ignore. Only entries of `ActiveSessionId` count (all entries when
//! it is null).

use std::fmt;
use std::path::Path;

use serde::de::{self, Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use sha2::{Digest, Sha256};

use crate::error::{Error, parse_json, read_text};
use crate::store;

/// The most bytes of a command's output kept in the change log; the SHA-256 of the whole output
/// is kept beside it.
pub const OUTPUT_CAP: usize = 4096;

/// The change log.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct ChangeLog {
    /// Every recorded turn, in order.
    pub entries: Vec<ChangeEntry>,
    /// The session whose entries count; all entries count when `None`.
    pub active_session_id: Option<String>,
}

/// One recorded turn.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct ChangeEntry {
    /// The agent whose turn it was.
    pub agent: String,
    /// The turn's number within its session.
    pub turn_index: Option<i64>,
    /// When it was recorded, as written.
    pub timestamp: Option<String>,
    /// The session it belongs to.
    pub session_id: Option<String>,
    /// Files written (created or modified).
    pub files_written: Vec<String>,
    /// Files deleted.
    pub files_deleted: Vec<String>,
    /// Commands run, in order.
    pub commands_run: Vec<CommandRun>,
    /// Commits made.
    pub git_commits: Vec<String>,
    /// Calls of tools beyond files and commands (MCP servers' tools): vouch's extension,
    /// `ToolCalls` in the file.
    pub tool_calls: Vec<ToolCallRun>,
}

/// A call of an MCP server's tool during a turn, as the change log keeps it.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "PascalCase", default)]
#[non_exhaustive]
pub struct ToolCallRun {
    /// The tool, as the session names it (`mcp__github__create_pull_request`).
    pub tool: String,
    /// Its arguments.
    pub arguments: serde_json::Value,
    /// True when the tool answered with an error.
    pub is_error: bool,
}

impl ToolCallRun {
    /// Returns the record of a call of `tool` with `arguments`.
    pub fn new(
        tool: impl Into<String>,
        arguments: serde_json::Value,
        is_error: bool,
    ) -> ToolCallRun {
        ToolCallRun {
            tool: tool.into(),
            arguments,
            is_error,
        }
    }
}

/// A command run during a turn.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct CommandRun {
    /// The command line.
    pub command: String,
    /// Whether it succeeded.
    pub succeeded: bool,
    /// Its output, capped at [`OUTPUT_CAP`] bytes by vouch's writer.
    pub output: String,
    /// Its exit code, when recorded.
    pub exit_code: Option<i64>,
    /// The SHA-256 of its whole output, when recorded.
    pub output_sha256: Option<String>,
    /// The receipt vouch keeps beside it, when recorded (keys other readers ignore).
    pub receipt: CommandReceipt,
}

/// What vouch records of a command beyond the orchestrators' layout: which call it answers,
/// when it ran and for how long, how much it wrote and how that output ended.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct CommandReceipt {
    /// The tool call it answers (`CallId`).
    pub call_id: Option<String>,
    /// When it started (`StartedAt`, RFC 3339).
    pub started_at: Option<String>,
    /// When it ended (`EndedAt`).
    pub ended_at: Option<String>,
    /// How long it ran, in milliseconds (`DurationMs`).
    pub duration_ms: Option<u64>,
    /// How many bytes of output it wrote in all (`OutputBytes`).
    pub output_bytes: Option<u64>,
    /// The last bytes of its output (`OutputTail`): where a test run says how it ended.
    pub output_tail: Option<String>,
}

impl ChangeLog {
    /// Reads the change log at `path`.
    pub fn read(path: &Path) -> Result<ChangeLog, Error> {
        ChangeLog::parse(path, &read_text(path)?)
    }

    /// Parses a change log's text; `path` names it in errors.
    pub fn parse(path: &Path, text: &str) -> Result<ChangeLog, Error> {
        parse_json(path, text)
    }

    /// Returns the entries that count: those of the active session, or all when none is active.
    pub fn session_entries(&self) -> impl Iterator<Item = &ChangeEntry> {
        self.entries
            .iter()
            .filter(|e| match &self.active_session_id {
                Some(active) => e.session_id.as_deref() == Some(active.as_str()),
                None => true,
            })
    }

    /// Returns the commands of the entries that count, in order.
    pub fn session_commands(&self) -> impl Iterator<Item = &CommandRun> {
        self.session_entries().flat_map(|e| e.commands_run.iter())
    }

    /// Returns the files written by the entries that count, in order.
    pub fn session_files_written(&self) -> impl Iterator<Item = &str> {
        self.session_entries()
            .flat_map(|e| e.files_written.iter().map(String::as_str))
    }
}

/// A turn to append with [`append`]. As JSON (`vouch changes record --json`), its keys are the
/// field names below; unknown keys are errors.
#[derive(Debug, Clone, Default, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
#[non_exhaustive]
pub struct NewTurn {
    /// The agent whose turn it was.
    pub agent: String,
    /// The session; the log's active session when `None`, or a new one when there is none.
    pub session_id: Option<String>,
    /// The turn's number; one more than the session's recorded turns when `None`.
    pub turn_index: Option<i64>,
    /// Makes the turn's session the active one.
    pub activate: bool,
    /// Files written.
    pub files_written: Vec<String>,
    /// Files deleted.
    pub files_deleted: Vec<String>,
    /// Commands run.
    pub commands: Vec<NewCommand>,
    /// Commits made.
    pub git_commits: Vec<String>,
    /// MCP tools called.
    pub tool_calls: Vec<ToolCallRun>,
}

/// A command to record: its output is capped and hashed when written.
#[derive(Debug, Clone, Default, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
#[non_exhaustive]
pub struct NewCommand {
    /// The command line.
    pub command: String,
    /// Its exit code; a command without one is recorded as failed.
    pub exit_code: Option<i64>,
    /// Its whole output.
    pub output: String,
    /// The tool call it answers.
    pub call_id: Option<String>,
    /// When it started (RFC 3339).
    pub started_at: Option<String>,
    /// When it ended.
    pub ended_at: Option<String>,
    /// How long it ran, in milliseconds.
    pub duration_ms: Option<u64>,
    /// How many bytes of output it wrote in all, when more than `output` holds.
    pub output_bytes: Option<u64>,
    /// The SHA-256 of its whole output, when `output` holds only part of it.
    pub output_sha256: Option<String>,
}

impl NewCommand {
    /// Returns a command with its exit code and output.
    pub fn new(
        command: impl Into<String>,
        exit_code: Option<i64>,
        output: impl Into<String>,
    ) -> Self {
        NewCommand {
            command: command.into(),
            exit_code,
            output: output.into(),
            ..NewCommand::default()
        }
    }
}

impl NewTurn {
    /// Returns an empty turn of `agent`.
    pub fn new(agent: impl Into<String>) -> NewTurn {
        NewTurn {
            agent: agent.into(),
            ..NewTurn::default()
        }
    }

    /// Parses a turn written as JSON; `path` names it in errors.
    pub fn parse(path: &Path, text: &str) -> Result<NewTurn, Error> {
        parse_json(path, text)
    }
}

/// What [`append`] recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Appended {
    /// The session the turn went to.
    pub session_id: String,
    /// The turn's number.
    pub turn_index: i64,
    /// How many entries the log holds now.
    pub entries: usize,
}

/// Appends a turn to the change log at `path` (created when missing), under an exclusive lock
/// and with an atomic replace, so that concurrent writers never lose a turn.
pub fn append(path: &Path, turn: &NewTurn) -> Result<Appended, Error> {
    store::update(path, |current| {
        let raw = RawLog::read(path, current)?;
        let session_id = turn
            .session_id
            .clone()
            .or_else(|| raw.active.clone())
            .unwrap_or_else(new_session_id);
        let turn_index = match turn.turn_index {
            Some(i) => i,
            None => {
                1 + raw
                    .entries
                    .iter()
                    .filter(|e| e.session.as_deref() == Some(&session_id))
                    .map(|e| e.turn.unwrap_or(0))
                    .max()
                    .unwrap_or(0)
            }
        };
        let active = if turn.activate || raw.active.is_none() {
            Some(session_id.clone())
        } else {
            raw.active.clone()
        };
        let entry = entry_json(turn, &session_id, turn_index);
        let out = raw.with_entry(&entry, active.as_deref(), current.map_or(0, str::len));
        let appended = Appended {
            session_id,
            turn_index,
            entries: raw.entries.len() + 1,
        };
        Ok((out, appended))
    })
}

/// Returns a new session id: a random UUID (v4).
pub fn new_session_id() -> String {
    uuid::Uuid::new_v4().to_string()
}

/// Returns the JSON of one entry in the orchestrator's layout.
pub(crate) fn entry_json(turn: &NewTurn, session_id: &str, turn_index: i64) -> String {
    let commands: Vec<serde_json::Value> = turn
        .commands
        .iter()
        .map(|c| {
            serde_json::json!({
                "Command": c.command,
                "succeeded": c.exit_code == Some(0),
                "Output": cap(&c.output),
                "ExitCode": c.exit_code,
                "OutputSha256": c.output_sha256.clone().unwrap_or_else(|| sha256_hex(c.output.as_bytes())),
                "OutputBytes": c.output_bytes.unwrap_or(c.output.len() as u64),
                "OutputTail": tail(&c.output),
                "CallId": c.call_id,
                "StartedAt": c.started_at,
                "EndedAt": c.ended_at,
                "DurationMs": c.duration_ms,
            })
        })
        .collect();
    let mut entry = serde_json::json!({
        "Agent": turn.agent,
        "TurnIndex": turn_index,
        "Timestamp": jiff::Timestamp::now().to_string(),
        "SessionId": session_id,
        "FilesWritten": turn.files_written,
        "FilesDeleted": turn.files_deleted,
        "CommandsRun": commands,
        "GitCommits": turn.git_commits,
    });
    if !turn.tool_calls.is_empty()
        && let Some(map) = entry.as_object_mut()
    {
        map.insert(
            "ToolCalls".to_owned(),
            serde_json::to_value(&turn.tool_calls).unwrap_or_default(),
        );
    }
    entry.to_string()
}

/// How many bytes of a command's output its receipt keeps from the end.
const TAIL: usize = 1024;

/// Returns the last [`TAIL`] bytes of `output`, cut at a character boundary.
pub(crate) fn tail(output: &str) -> &str {
    let mut start = output.len().saturating_sub(TAIL);
    while !output.is_char_boundary(start) {
        start += 1;
    }
    &output[start..]
}

/// Returns the first [`OUTPUT_CAP`] bytes of `output`, cut at a character boundary.
fn cap(output: &str) -> &str {
    if output.len() <= OUTPUT_CAP {
        return output;
    }
    let mut end = OUTPUT_CAP;
    while !output.is_char_boundary(end) {
        end -= 1;
    }
    &output[..end]
}

/// Returns the SHA-256 of `bytes` as lowercase hex.
pub(crate) fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .fold(String::with_capacity(64), |mut s, b| {
            use fmt::Write;
            let _ = write!(s, "{b:02x}");
            s
        })
}

/// A change log read for appending: entries kept as raw JSON, so rewriting the file does not
/// rebuild them.
#[derive(Default)]
pub(crate) struct RawLog {
    pub(crate) entries: Vec<RawEntry>,
    pub(crate) active: Option<String>,
    other: Vec<(String, Box<RawValue>)>,
}

pub(crate) struct RawEntry {
    pub(crate) json: Box<RawValue>,
    pub(crate) session: Option<String>,
    turn: Option<i64>,
}

impl RawLog {
    /// Reads the log's current text (`None` or blank: an empty log).
    pub(crate) fn read(path: &Path, current: Option<&str>) -> Result<RawLog, Error> {
        match current {
            Some(text) if !text.trim().is_empty() => parse_json(path, text),
            _ => Ok(RawLog::default()),
        }
    }

    /// Returns the log's text with `entry` appended and `active` the active session; `size`
    /// is the current text's length, to size the new one.
    pub(crate) fn with_entry(&self, entry: &str, active: Option<&str>, size: usize) -> String {
        let mut out = String::with_capacity(size + entry.len() + 64);
        out.push_str("{\"Entries\":[");
        for (i, e) in self.entries.iter().enumerate() {
            out.push_str(if i == 0 { "\n" } else { ",\n" });
            out.push_str(e.json.get());
        }
        out.push_str(if self.entries.is_empty() { "\n" } else { ",\n" });
        out.push_str(entry);
        out.push_str("\n],\"ActiveSessionId\":");
        out.push_str(&serde_json::to_string(&active).unwrap_or_else(|_| "null".into()));
        for (key, value) in &self.other {
            out.push(',');
            out.push_str(&serde_json::to_string(key).unwrap_or_default());
            out.push(':');
            out.push_str(value.get());
        }
        out.push_str("}\n");
        out
    }
}

fn key_is(key: &str, name: &str) -> bool {
    key.eq_ignore_ascii_case(name)
}

impl<'de> Deserialize<'de> for RawLog {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = RawLog;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a change log object with `Entries`")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawLog, A::Error> {
                let mut log = RawLog::default();
                while let Some(key) = map.next_key::<String>()? {
                    if key_is(&key, "Entries") {
                        let raws: Option<Vec<Box<RawValue>>> = map.next_value()?;
                        for json in raws.unwrap_or_default() {
                            let probe: EntryProbe =
                                serde_json::from_str(json.get()).map_err(de::Error::custom)?;
                            log.entries.push(RawEntry {
                                json,
                                session: probe.session,
                                turn: probe.turn,
                            });
                        }
                    } else if key_is(&key, "ActiveSessionId") {
                        log.active = map.next_value()?;
                    } else {
                        log.other.push((key, map.next_value()?));
                    }
                }
                Ok(log)
            }
        }
        d.deserialize_map(V)
    }
}

/// The two fields of an entry that appending needs.
#[derive(Default)]
struct EntryProbe {
    session: Option<String>,
    turn: Option<i64>,
}

impl<'de> Deserialize<'de> for EntryProbe {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = EntryProbe;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a change log entry")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<EntryProbe, A::Error> {
                let mut probe = EntryProbe::default();
                while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                    if key_is(&key, "SessionId") {
                        probe.session = map.next_value()?;
                    } else if key_is(&key, "TurnIndex") {
                        probe.turn = map
                            .next_value::<Option<serde_json::Value>>()?
                            .and_then(|v| v.as_i64());
                    } else {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
                Ok(probe)
            }
        }
        d.deserialize_map(V)
    }
}

impl<'de> Deserialize<'de> for ChangeLog {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = ChangeLog;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a change log object with `Entries`")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ChangeLog, A::Error> {
                let mut log = ChangeLog::default();
                while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                    if key_is(&key, "Entries") {
                        log.entries = map
                            .next_value::<Option<Vec<ChangeEntry>>>()?
                            .unwrap_or_default();
                    } else if key_is(&key, "ActiveSessionId") {
                        log.active_session_id = map.next_value()?;
                    } else {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
                Ok(log)
            }
        }
        d.deserialize_map(V)
    }
}

impl<'de> Deserialize<'de> for ChangeEntry {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = ChangeEntry;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a change log entry object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ChangeEntry, A::Error> {
                let mut e = ChangeEntry::default();
                while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                    let k = &*key;
                    if key_is(k, "Agent") {
                        e.agent = map.next_value::<Option<String>>()?.unwrap_or_default();
                    } else if key_is(k, "TurnIndex") {
                        e.turn_index = map
                            .next_value::<Option<serde_json::Value>>()?
                            .and_then(|v| v.as_i64());
                    } else if key_is(k, "Timestamp") {
                        e.timestamp =
                            map.next_value::<Option<serde_json::Value>>()?
                                .map(|v| match v {
                                    serde_json::Value::String(s) => s,
                                    other => other.to_string(),
                                });
                    } else if key_is(k, "SessionId") {
                        e.session_id = map.next_value()?;
                    } else if key_is(k, "FilesWritten") {
                        e.files_written =
                            map.next_value::<Option<Vec<String>>>()?.unwrap_or_default();
                    } else if key_is(k, "FilesDeleted") {
                        e.files_deleted =
                            map.next_value::<Option<Vec<String>>>()?.unwrap_or_default();
                    } else if key_is(k, "CommandsRun") {
                        e.commands_run = map
                            .next_value::<Option<Vec<CommandRun>>>()?
                            .unwrap_or_default();
                    } else if key_is(k, "ToolCalls") {
                        e.tool_calls = map
                            .next_value::<Option<Vec<ToolCallRun>>>()?
                            .unwrap_or_default();
                    } else if key_is(k, "GitCommits") {
                        let commits: Option<Vec<serde_json::Value>> = map.next_value()?;
                        e.git_commits = commits
                            .unwrap_or_default()
                            .into_iter()
                            .map(|c| match c {
                                serde_json::Value::String(s) => s,
                                other => other.to_string(),
                            })
                            .collect();
                    } else {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
                Ok(e)
            }
        }
        d.deserialize_map(V)
    }
}

impl<'de> Deserialize<'de> for CommandRun {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = CommandRun;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a command object or a command line")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<CommandRun, E> {
                // A bare command line records that it ran, not that it succeeded.
                Ok(CommandRun {
                    command: s.to_owned(),
                    ..CommandRun::default()
                })
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<CommandRun, A::Error> {
                let mut c = CommandRun::default();
                let mut succeeded = None;
                while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                    let k = &*key;
                    if key_is(k, "Command") {
                        c.command = map.next_value::<Option<String>>()?.unwrap_or_default();
                    } else if key_is(k, "succeeded") {
                        succeeded = map.next_value::<Option<bool>>()?;
                    } else if key_is(k, "Output") {
                        c.output = map.next_value::<Option<String>>()?.unwrap_or_default();
                    } else if key_is(k, "ExitCode") {
                        c.exit_code = map.next_value()?;
                    } else if key_is(k, "OutputSha256") {
                        c.output_sha256 = map.next_value()?;
                    } else if key_is(k, "CallId") {
                        c.receipt.call_id = map.next_value()?;
                    } else if key_is(k, "StartedAt") {
                        c.receipt.started_at = map.next_value()?;
                    } else if key_is(k, "EndedAt") {
                        c.receipt.ended_at = map.next_value()?;
                    } else if key_is(k, "DurationMs") {
                        c.receipt.duration_ms = map.next_value()?;
                    } else if key_is(k, "OutputBytes") {
                        c.receipt.output_bytes = map.next_value()?;
                    } else if key_is(k, "OutputTail") {
                        c.receipt.output_tail = map.next_value()?;
                    } else {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
                c.succeeded = succeeded.unwrap_or(c.exit_code == Some(0));
                Ok(c)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, _: A) -> Result<CommandRun, A::Error> {
                Err(de::Error::invalid_type(de::Unexpected::Seq, &self))
            }
        }
        d.deserialize_any(V)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_match_case_insensitively_and_only_the_active_session_counts() {
        let text = r#"{"entries": [
            {"agent": "Developer", "sessionid": "old", "FilesWritten": ["a.rs"], "commandsrun": [{"command": "make", "Succeeded": true}]},
            {"Agent": "Developer", "SessionId": "s2", "TurnIndex": 1, "FilesWritten": ["b.rs"], "CommandsRun": [{"Command": "cargo test", "succeeded": false, "Output": "1 failed", "ExitCode": 101}]}
        ], "activeSessionId": "s2", "Extra": 1}"#;
        let log = ChangeLog::parse(Path::new("changes.json"), text).unwrap();
        assert_eq!(log.entries.len(), 2);
        assert_eq!(
            log.session_files_written().collect::<Vec<_>>(),
            vec!["b.rs"]
        );
        let cmd = log.session_commands().next().unwrap();
        assert_eq!(
            (cmd.command.as_str(), cmd.succeeded, cmd.exit_code),
            ("cargo test", false, Some(101))
        );
        assert!(log.entries[0].commands_run[0].succeeded);
    }

    #[test]
    fn a_wrong_shape_names_its_path() {
        let text = r#"{"Entries": [{"Agent": "Dev", "CommandsRun": [{"Command": "x", "succeeded": "yes"}]}]}"#;
        let err = ChangeLog::parse(Path::new("changes.json"), text).unwrap_err();
        assert_eq!(
            err.to_string(),
            "`changes.json` has the wrong shape at `$.Entries[0].CommandsRun[0].succeeded`: invalid type: string \"yes\", expected a boolean"
        );
    }

    #[test]
    fn appends_cap_outputs_and_keep_unknown_keys() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state/changes.json");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(
            &path,
            r#"{"Entries": [], "ActiveSessionId": "s1", "Orchestrator": {"v": 2}}"#,
        )
        .unwrap();
        let mut turn = NewTurn::new("Developer");
        turn.files_written.push("src/lib.rs".into());
        let long = "é".repeat(3000);
        turn.commands
            .push(NewCommand::new("cargo test", Some(0), long.clone()));
        let first = append(&path, &turn).unwrap();
        let second = append(&path, &turn).unwrap();
        assert_eq!(
            (first.turn_index, second.turn_index, second.entries),
            (1, 2, 2)
        );
        assert_eq!(first.session_id, "s1");
        let log = ChangeLog::read(&path).unwrap();
        let cmd = &log.entries[1].commands_run[0];
        assert!(cmd.succeeded);
        assert!(cmd.output.len() <= OUTPUT_CAP && long.starts_with(&cmd.output));
        assert_eq!(
            cmd.output_sha256.as_deref(),
            Some(sha256_hex(long.as_bytes()).as_str())
        );
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains(r#""Orchestrator":{"v": 2}"#), "{text}");
    }

    #[test]
    fn a_new_log_gets_a_session() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("changes.json");
        let appended = append(&path, &NewTurn::new("Planner")).unwrap();
        let log = ChangeLog::read(&path).unwrap();
        assert_eq!(
            log.active_session_id.as_deref(),
            Some(appended.session_id.as_str())
        );
    }
}
