//! Reading a Claude Code log with its subagents, and the format's descriptor: its turns, its
//! tool table and how it is recognised.

use std::io::Read;
use std::path::Path;

use super::log::{Parsed, read_log};
use super::parse::starts_turn;
use super::subagents::{agent_id_from_file_name, assemble, flat_subagent_files, subagent_files};
use super::tools::tool_kind;
use crate::error::Error;
use crate::readers::descriptor::{Descriptor, Match, Sniff};
use crate::session::Format;
use crate::source::{Input, ReadOptions, ReadReport};
use crate::tail::Turns;

/// Reads a Claude Code log and, when it is a file, the subagent logs stored beside it.
pub(crate) fn read(
    reader: impl Read,
    input: &Input<'_>,
    options: &ReadOptions,
) -> Result<ReadReport, Error> {
    let (mut parsed, mut diagnostics) = read_log(reader, input, options)?;
    if let (Some(path), false) = (input.path, options.no_subagents) {
        let mut pending = subagent_files(path);
        for file in flat_subagent_files(path, &parsed.session.id) {
            if !pending.contains(&file) {
                pending.push(file);
            }
        }
        // A tail reads only the subagents it links to a call; reading one may link another.
        let linked = |parsed: &Parsed, file: &Path| {
            options.last_turns.is_none()
                || parsed
                    .links
                    .iter()
                    .any(|(agent, _)| *agent == agent_id_from_file_name(file))
        };
        while let Some(i) = pending.iter().position(|f| linked(&parsed, f)) {
            let file = pending.remove(i);
            tracing::debug!(path = %file.display(), "reading subagent log");
            let file_input = Input::file(&file, input.spill);
            let reader = std::fs::File::open(&file).map_err(|e| Error::io(&file, e))?;
            let sub_options = ReadOptions {
                last_turns: None,
                ..options.clone()
            };
            let (mut sub, d) = match read_log(reader, &file_input, &sub_options) {
                Ok(read) => read,
                // An empty subagent file holds no agent; it is not an error of the session.
                Err(Error::Empty { .. }) => continue,
                Err(e) => return Err(e),
            };
            diagnostics.extend(d);
            if sub.session.id.is_empty() {
                sub.session.id = agent_id_from_file_name(&file);
            }
            parsed.links.append(&mut sub.links);
            parsed.subagents.push(sub.session);
            parsed.subagents.append(&mut sub.subagents);
        }
    }
    Ok(ReadReport {
        session: assemble(parsed),
        diagnostics,
    })
}

/// The Claude Code format.
pub(crate) const DESCRIPTOR: Descriptor = Descriptor {
    format: Format::ClaudeCode,
    label: "Claude Code",
    read: |reader, input, options| read(reader, input, options),
    tool_kind,
    turns: Some(Turns::of_lines(starts_turn)),
    sniff: Sniff::lines(
        sniff_record,
        &[
            ("\"sessionId\"", Match::Sure),
            ("\"parentUuid\"", Match::Sure),
        ],
    ),
};

/// Record types of Claude Code session logs and `stream-json` output.
const CLAUDE_TYPES: &[&str] = &[
    "user",
    "assistant",
    "system",
    "progress",
    "summary",
    "file-history-snapshot",
    "queue-operation",
    "result",
];

/// A record of a Claude Code type with a session key or a message is surely Claude Code; so
/// are its session summaries (`leafUuid`) and file-history snapshots (`snapshot`), which some of
/// its files hold alone (such a file reads as an empty session).
fn sniff_record(record: &serde_json::Map<String, serde_json::Value>) -> Match {
    let has = |key: &str| record.contains_key(key);
    let kind = record.get("type").and_then(serde_json::Value::as_str);
    let session_keys = has("sessionId") || has("session_id") || has("parentUuid");
    match kind {
        Some(kind) if CLAUDE_TYPES.contains(&kind) && (session_keys || has("message")) => {
            Match::Sure
        }
        Some("summary") if has("leafUuid") => Match::Sure,
        Some("file-history-snapshot") if has("snapshot") && has("messageId") => Match::Sure,
        _ => Match::No,
    }
}
