//! opencode sessions as `opencode export [session]` writes them: one JSON object `{info,
//! messages}`, each message `{info, parts}`. A message's `info` has its role, times (epoch
//! milliseconds), model and token counts; its parts are `text`, `reasoning`, `tool` (with a
//! `state` of `pending`, `running`, `completed` or `error`), `step-start`, `step-finish`,
//! `patch`, `file` and others.
//!
//! Also read: the same messages one per line (JSONL), as checkpoint tools copy a session
//! message by message — each line a `{info, parts}` object whose `info` names its session.
//!
//! A tool still `pending` or `running` has no result: the call is unanswered. A completed
//! `bash` call whose metadata records a non-zero `exit` failed.

use std::borrow::Cow;
use std::io::Read;

use jiff::Timestamp;
use serde::Deserialize;
use serde_json::value::RawValue;

use crate::driver::LineError;
use crate::error::Error;
use crate::event::{Actor, Role};
use crate::output::{Encoding, Output};
use crate::readers::common::{Count, Events};
use crate::readers::descriptor::{Descriptor, Match, Sniff};
use crate::readers::document;
use crate::session::{Agent, Format, Session, Usage};
use crate::source::{Input, ReadOptions, ReadReport};
use crate::tool::{Args, Outcome, ToolCall, ToolKind, ToolResult};

/// Maps an opencode tool name to its kind (decision G7).
pub(crate) fn tool_kind(name: &str) -> ToolKind {
    match name {
        "bash" => ToolKind::Shell,
        "write" => ToolKind::WriteFile,
        "edit" | "multiedit" | "patch" | "apply_patch" => ToolKind::PatchFile,
        "read" => ToolKind::ReadFile,
        "grep" | "glob" | "list" | "codesearch" => ToolKind::Search,
        "webfetch" | "websearch" => ToolKind::Web,
        "task" => ToolKind::Subagent,
        _ => ToolKind::Other,
    }
}

/// The opencode format.
pub(crate) const DESCRIPTOR: Descriptor = Descriptor {
    format: Format::Opencode,
    label: "opencode",
    read: |reader, input, options| read(reader, input, options),
    tool_kind,
    turns: None,
    sniff: Sniff {
        document: is_export,
        record: sniff_record,
        keys: &[],
    },
};

/// An export: an object whose top-level keys are `info` and `messages` — after any lines of
/// text `opencode export` printed before it (its session picker, when it asked for one).
fn is_export(head: &[u8]) -> bool {
    let Some(start) = document_start(head) else {
        return false;
    };
    let keys = document::top_level_keys(&head[start..]);
    keys.iter().any(|k| k == "info") && keys.iter().any(|k| k == "messages")
}

/// A message on a line of its own: `{info, parts}` whose `info` has a `role` and opencode's
/// `sessionID`.
fn sniff_record(record: &serde_json::Map<String, serde_json::Value>) -> Match {
    let info = record.get("info").and_then(serde_json::Value::as_object);
    let sure = record.contains_key("parts")
        && info.is_some_and(|i| i.contains_key("role") && i.contains_key("sessionID"));
    if sure { Match::Sure } else { Match::No }
}

/// Returns where the JSON object starts: the first line whose first non-blank character is
/// `{`, within the first 64 lines.
fn document_start(text: &[u8]) -> Option<usize> {
    let mut at = 0;
    for line in text.split_inclusive(|&b| b == b'\n').take(64) {
        if let Some(i) = line.iter().position(|b| !b.is_ascii_whitespace())
            && line[i] == b'{'
        {
            return Some(at + i);
        }
        at += line.len();
    }
    None
}

/// The session's `info`.
#[derive(Deserialize)]
struct SessionInfo<'a> {
    #[serde(borrow, default)]
    id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    directory: Option<Cow<'a, str>>,
}

/// One exported message.
#[derive(Deserialize)]
struct Message<'a> {
    #[serde(borrow)]
    info: MessageInfo<'a>,
    #[serde(borrow, default)]
    parts: Vec<Part<'a>>,
}

#[derive(Deserialize)]
struct MessageInfo<'a> {
    #[serde(borrow)]
    role: Cow<'a, str>,
    /// The session (named on every message; read from the lines of a per-message copy).
    #[serde(rename = "sessionID", borrow, default)]
    session_id: Option<Cow<'a, str>>,
    #[serde(default)]
    time: Option<Times>,
    #[serde(rename = "modelID", borrow, default)]
    model_id: Option<Cow<'a, str>>,
    #[serde(default)]
    tokens: Option<Tokens>,
}

/// Start and end times in epoch milliseconds (`created`/`completed` on messages).
#[derive(Deserialize, Default, Clone, Copy)]
struct Times {
    #[serde(default, alias = "created")]
    start: Option<f64>,
}

impl Times {
    fn timestamp(self) -> Option<Timestamp> {
        #[expect(
            clippy::cast_possible_truncation,
            reason = "milliseconds since 1970 fit an i64; a fraction of one is dropped"
        )]
        let ms = self.start? as i64;
        Timestamp::from_millisecond(ms).ok()
    }
}

#[derive(Deserialize)]
struct Tokens {
    #[serde(default)]
    input: Option<Count>,
    #[serde(default)]
    output: Option<Count>,
    #[serde(default)]
    reasoning: Option<Count>,
    #[serde(default)]
    cache: Option<CacheTokens>,
}

#[derive(Deserialize)]
struct CacheTokens {
    #[serde(default)]
    read: Option<Count>,
    #[serde(default)]
    write: Option<Count>,
}

impl Tokens {
    fn usage(&self) -> Usage {
        let n = |c: &Option<Count>| c.as_ref().map_or(0, |c| c.0);
        Usage {
            input: n(&self.input),
            output: n(&self.output) + n(&self.reasoning),
            cache_read: self.cache.as_ref().map_or(0, |c| n(&c.read)),
            cache_write: self.cache.as_ref().map_or(0, |c| n(&c.write)),
        }
    }
}

/// A part of a message; only the keys vouch uses.
#[derive(Deserialize)]
struct Part<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    #[serde(borrow, default)]
    text: Option<Cow<'a, str>>,
    #[serde(default)]
    synthetic: Option<bool>,
    #[serde(rename = "callID", borrow, default)]
    call_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    tool: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    state: Option<ToolState<'a>>,
    #[serde(default)]
    time: Option<Times>,
}

/// A tool part's state.
#[derive(Deserialize)]
struct ToolState<'a> {
    #[serde(borrow, default)]
    status: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    input: Option<&'a RawValue>,
    #[serde(borrow, default)]
    output: Option<&'a RawValue>,
    #[serde(borrow, default)]
    error: Option<&'a RawValue>,
    #[serde(default)]
    metadata: Option<ToolMetadata>,
    #[serde(default)]
    time: Option<Times>,
}

#[derive(Deserialize)]
struct ToolMetadata {
    #[serde(default)]
    exit: Option<serde_json::Value>,
}

/// Reads an `opencode export` document.
pub(crate) fn read(
    mut reader: impl Read,
    input: &Input<'_>,
    options: &ReadOptions,
) -> Result<ReadReport, Error> {
    let mut bytes = document::read_all(&mut reader, input)?;
    if !is_export(&bytes) {
        return read_lines(&bytes, input, options);
    }
    // Text printed before the document is blanked, its line breaks kept: lines keep their
    // numbers.
    if let Some(start) = document_start(&bytes) {
        for b in &mut bytes[..start] {
            if *b != b'\n' {
                *b = b' ';
            }
        }
    }
    let text = document::text(&bytes, input)?;
    let doc = document::parse(text, input, options, true)?;
    let info = doc
        .field("info")
        .and_then(|raw| serde_json::from_str::<SessionInfo<'_>>(raw.get()).ok());
    let mut session = Session {
        id: info
            .as_ref()
            .and_then(|i| i.id.as_deref())
            .unwrap_or_default()
            .to_owned(),
        agent: Agent::Other("opencode".to_owned()),
        cwd: info
            .as_ref()
            .and_then(|i| i.directory.as_deref())
            .map(str::to_owned),
        source: Some(input.source(Format::Opencode)),
        ..Session::default()
    };
    let mut events = Events::default();
    let diagnostics = doc.each_message(input, options, |raw, line| {
        let message: Message<'_> = serde_json::from_str(raw.get())?;
        add_message(&mut session, &mut events, &message, line)
    })?;
    session.events = events.events;
    Ok(ReadReport {
        session,
        diagnostics,
    })
}

/// The messages of a session one per line.
#[derive(Default)]
struct Lines {
    session: Session,
    events: Events,
}

impl crate::driver::LineSink for Lines {
    fn line(&mut self, text: &str, number: u64, _offset: u64) -> Result<(), LineError> {
        LineError::expect_object(text)?;
        let message: Message<'_> = serde_json::from_str(text).map_err(|e| LineError::json(&e))?;
        if self.session.id.is_empty()
            && let Some(id) = &message.info.session_id
        {
            id.as_ref().clone_into(&mut self.session.id);
        }
        add_message(&mut self.session, &mut self.events, &message, number)
    }
}

/// Reads messages one per line.
fn read_lines(bytes: &[u8], input: &Input<'_>, options: &ReadOptions) -> Result<ReadReport, Error> {
    let mut lines = Lines::default();
    let diagnostics = crate::driver::drive(bytes, input, options, &mut lines)?;
    let mut session = lines.session;
    session.agent = Agent::Other("opencode".to_owned());
    session.source = Some(input.source(Format::Opencode));
    session.events = lines.events.events;
    Ok(ReadReport {
        session,
        diagnostics,
    })
}

/// Adds the events of one message.
fn add_message(
    session: &mut Session,
    events: &mut Events,
    m: &Message<'_>,
    line: u64,
) -> Result<(), LineError> {
    let ts = m.info.time.and_then(Times::timestamp);
    let role = match &*m.info.role {
        "user" => Role::User,
        "assistant" => Role::Assistant,
        _ => Role::System,
    };
    if role == Role::Assistant {
        if session.model.is_none() {
            session.model = m.info.model_id.as_deref().map(str::to_owned);
        }
        if let Some(tokens) = &m.info.tokens {
            *session.usage.get_or_insert_default() += tokens.usage();
        }
    }
    for part in &m.parts {
        let part_ts = part.time.and_then(Times::timestamp).or(ts);
        match &*part.kind {
            "text" => {
                // Text opencode adds on the person's behalf (file contents) is not what they
                // said.
                let who = if part.synthetic == Some(true) {
                    Role::System
                } else {
                    role
                };
                let text = part.text.as_deref().unwrap_or_default().to_owned();
                events.message(Actor::new(who), part_ts, Some(line), text);
            }
            "tool" => tool_part(events, part, part_ts, line)?,
            // Reasoning, steps, patches, files, agents and part types added later carry no
            // events.
            _ => {}
        }
    }
    Ok(())
}

/// Adds a tool part's call and, once it has ended, its result.
fn tool_part(
    events: &mut Events,
    part: &Part<'_>,
    ts: Option<Timestamp>,
    line: u64,
) -> Result<(), LineError> {
    let name = part.tool.as_deref().unwrap_or_default();
    let call_id = part
        .call_id
        .as_deref()
        .or(part.id.as_deref())
        .ok_or_else(|| LineError::shape("a `tool` part without `callID`"))?
        .to_owned();
    let kind = tool_kind(name);
    let state = part.state.as_ref();
    let call_ts = state.and_then(|s| s.time).and_then(Times::timestamp).or(ts);
    events.call(
        Actor::new(Role::Assistant),
        call_ts,
        Some(line),
        ToolCall {
            call_id: call_id.clone(),
            name: crate::names::tool_name(name),
            kind,
            args: state
                .and_then(|s| s.input)
                .map_or_else(Args::default, Args::from_raw),
        },
    );
    let Some(state) = state else { return Ok(()) };
    let text = |raw: Option<&RawValue>| {
        raw.map(|r| {
            Encoding::ContentBlocks
                .decode(r.get())
                .unwrap_or_else(|_| r.get().to_owned())
        })
        .unwrap_or_default()
    };
    let (outcome, output) = match state.status.as_deref() {
        Some("completed") => {
            let exit = state
                .metadata
                .as_ref()
                .and_then(|m| m.exit.as_ref())
                .and_then(serde_json::Value::as_i64);
            let outcome = match exit {
                Some(code) if kind == ToolKind::Shell => Outcome::from_exit_code(code),
                _ => Outcome::Ok,
            };
            (outcome, text(state.output))
        }
        Some("error") => {
            let error = text(state.error);
            let lower = error.to_ascii_lowercase();
            let outcome = if lower.contains("rejected permission") || lower.contains("denied") {
                Outcome::Denied
            } else {
                Outcome::Error
            };
            (outcome, error)
        }
        // `pending` and `running`: the call has not ended.
        _ => return Ok(()),
    };
    events.result(
        Actor::new(Role::Tool),
        call_ts,
        Some(line),
        ToolResult {
            call_id,
            output: Output::inline(output),
            outcome,
        },
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_tool_names() {
        assert_eq!(tool_kind("bash"), ToolKind::Shell);
        assert_eq!(tool_kind("edit"), ToolKind::PatchFile);
        assert_eq!(tool_kind("task"), ToolKind::Subagent);
        assert_eq!(tool_kind("todowrite"), ToolKind::Other);
    }

    #[test]
    fn exports_are_told_by_their_top_level_keys() {
        assert!(is_export(br#"{"info":{"id":"ses_1"},"messages":[]}"#));
        assert!(!is_export(br#"{"messages":[{"role":"user"}]}"#));
        assert!(is_export(
            b"\n\xe2\x94\x8c  Export session\n\xe2\x94\x82\n{\"info\":{},\"messages\":[]}"
        ));
    }
}
