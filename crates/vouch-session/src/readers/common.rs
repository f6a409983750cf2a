//! Pieces every reader uses: appending events in order, timestamps, and JSON text helpers.

use std::borrow::Cow;

use jiff::Timestamp;
use serde::de::{self, Visitor};
use serde_json::Value;
use serde_json::value::RawValue;

use crate::event::{Actor, Event, EventKind, Message, line_at, seq_at};
use crate::output::{Encoding, Output, span_within};
use crate::readers::document;
use crate::source::Input;
use crate::tool::{Outcome, ToolCall, ToolResult};

/// Events of one session under construction; `seq` is assigned on push.
#[derive(Debug, Default)]
pub(crate) struct Events {
    pub(crate) events: Vec<Event>,
}

impl Events {
    /// Appends an event.
    pub(crate) fn push(
        &mut self,
        actor: Actor,
        timestamp: Option<Timestamp>,
        line: Option<u64>,
        kind: EventKind,
    ) {
        self.events.push(Event {
            seq: seq_at(self.events.len()),
            timestamp,
            actor,
            kind,
            line: line.and_then(line_at),
        });
    }

    /// Appends a message, unless its text is blank.
    pub(crate) fn message(
        &mut self,
        actor: Actor,
        timestamp: Option<Timestamp>,
        line: Option<u64>,
        text: String,
    ) {
        if !text.trim().is_empty() {
            self.push(actor, timestamp, line, EventKind::Message(Message { text }));
        }
    }

    /// Appends a tool call.
    pub(crate) fn call(
        &mut self,
        actor: Actor,
        timestamp: Option<Timestamp>,
        line: Option<u64>,
        call: ToolCall,
    ) {
        self.push(actor, timestamp, line, EventKind::ToolCall(call));
    }

    /// Appends a tool result.
    pub(crate) fn result(
        &mut self,
        actor: Actor,
        timestamp: Option<Timestamp>,
        line: Option<u64>,
        result: ToolResult,
    ) {
        self.push(actor, timestamp, line, EventKind::ToolResult(result));
    }

    /// Returns the index of the result of `call_id`, searching from the end.
    pub(crate) fn find_result(&self, call_id: &str) -> Option<usize> {
        self.events
            .iter()
            .rposition(|e| matches!(&e.kind, EventKind::ToolResult(r) if r.call_id == call_id))
    }

    /// Sets the outcome (and, when given, the output) of the result of `call_id`. Returns false
    /// when there is no such result.
    pub(crate) fn amend_result(
        &mut self,
        call_id: &str,
        outcome: Outcome,
        output: Option<Output>,
    ) -> bool {
        let Some(i) = self.find_result(call_id) else {
            return false;
        };
        if let EventKind::ToolResult(r) = &mut self.events[i].kind {
            r.outcome = outcome;
            if let Some(output) = output
                && r.output.is_empty()
            {
                r.output = output;
            }
        }
        true
    }
}

/// Parses an RFC 3339 timestamp; anything else is `None` (a bad timestamp does not make a line
/// unusable).
pub(crate) fn timestamp(s: Option<&str>) -> Option<Timestamp> {
    let s = s?;
    super::utc::timestamp(s).or_else(|| s.parse().ok())
}

/// Parses tool arguments given as a JSON string (OpenAI and Codex style); arguments that are
/// not JSON are kept as the string itself.
pub(crate) fn arguments(s: &str) -> Value {
    if s.trim().is_empty() {
        return Value::Object(serde_json::Map::new());
    }
    serde_json::from_str(s).unwrap_or_else(|_| Value::String(s.to_owned()))
}

/// Parses a borrowed raw JSON value into an owned value.
pub(crate) fn value(raw: Option<&RawValue>) -> Result<Value, serde_json::Error> {
    raw.map_or(Ok(Value::Object(serde_json::Map::new())), |r| {
        serde_json::from_str(r.get())
    })
}

/// Turns the raw JSON of an output (a string, or an array of content blocks) into an
/// [`Output`], held as a span into the file when long and the input allows it. `raw` is a slice
/// of `line`. Classify the outcome on [`Output::preview`]: it holds at least the first
/// [`crate::PREVIEW_LEN`] bytes.
pub(crate) fn output(
    input: &Input<'_>,
    line: &str,
    line_offset: u64,
    raw: Option<&str>,
) -> Result<Output, serde_json::Error> {
    let Some(raw) = raw else {
        return Ok(Output::default());
    };
    let span = if input.spill {
        span_within(line, line_offset, raw, Encoding::ContentBlocks)
    } else {
        None
    };
    Output::from_json(raw, span)
}

/// Returns the text of an optional borrowed string.
pub(crate) fn text(s: Option<&Cow<'_, str>>) -> String {
    s.map(std::string::ToString::to_string).unwrap_or_default()
}

/// Returns true when `text` starts an object with a `messages` key at the top, whether or not
/// the text holds the whole document.
pub(crate) fn is_wrapped(text: &[u8]) -> bool {
    document::top_level_keys(text)
        .last()
        .is_some_and(|k| k == "messages")
}

/// Returns true when a log that starts with `head` is one JSON document — an array, or an
/// object with `messages` — rather than one record per line.
pub(crate) fn is_document(head: &[u8]) -> bool {
    match head.iter().find(|b| !b.is_ascii_whitespace()) {
        Some(b'[') => true,
        Some(b'{') => is_wrapped(head),
        _ => false,
    }
}

/// A token count: a non-negative integer; any other value counts as zero.
pub(crate) struct Count(pub(crate) u64);

impl<'de> serde::Deserialize<'de> for Count {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(match <Value as serde::Deserialize>::deserialize(d)? {
            Value::Number(n) => Count(n.as_u64().unwrap_or(0)),
            _ => Count(0),
        })
    }
}

/// Deserializes an optional string, borrowing it from the line when it holds no escape. serde's
/// derive borrows a `Cow<str>` field but not an `Option<Cow<str>>` one, which it copies into a
/// new `String` every time: on a log of a hundred thousand records, millions of allocations.
/// Use as `#[serde(borrow, default, deserialize_with = "common::opt_cow")]`.
pub(crate) fn opt_cow<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Option<Cow<'de, str>>, D::Error> {
    struct Opt;
    impl<'de> Visitor<'de> for Opt {
        type Value = Option<Cow<'de, str>>;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a string or null")
        }
        fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_some<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
            d.deserialize_str(Str).map(Some)
        }
    }
    struct Str;
    impl<'de> Visitor<'de> for Str {
        type Value = Cow<'de, str>;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a string")
        }
        fn visit_borrowed_str<E: de::Error>(self, s: &'de str) -> Result<Self::Value, E> {
            Ok(Cow::Borrowed(s))
        }
        fn visit_str<E: de::Error>(self, s: &str) -> Result<Self::Value, E> {
            Ok(Cow::Owned(s.to_owned()))
        }
        fn visit_string<E: de::Error>(self, s: String) -> Result<Self::Value, E> {
            Ok(Cow::Owned(s))
        }
    }
    d.deserialize_option(Opt)
}

/// Deserializes an optional raw JSON value into its text as it stands in the line (`null` is
/// `None`). Use as `#[serde(borrow, default, deserialize_with = "common::opt_raw")]`.
pub(crate) fn opt_raw<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Option<&'de str>, D::Error> {
    let raw = <Option<&'de serde_json::value::RawValue> as serde::Deserialize>::deserialize(d)?;
    Ok(raw.map(serde_json::value::RawValue::get))
}

/// Returns the subagent call of `parent` that started `sub`: the first of kind subagent for
/// which `carries` says it holds the subagent's first prompt (readers whose logs do not link
/// a subagent to its call by id).
pub(crate) fn spawning_call<'p>(
    parent: &'p crate::session::Session,
    sub: &crate::session::Session,
    carries: impl Fn(&ToolCall, &str) -> bool,
) -> Option<&'p ToolCall> {
    let prompt = sub
        .events
        .iter()
        .find(|e| e.is_user_message())
        .and_then(|e| e.as_message())
        .map(str::trim)?;
    parent
        .tool_calls()
        .filter(|c| c.kind == crate::tool::ToolKind::Subagent)
        .find(|c| carries(c, prompt))
}

/// Returns the files directly in `dir` whose extension is one of `extensions`, sorted by path;
/// none when the folder cannot be read (a session without subagents has none).
pub(crate) fn log_files(dir: &std::path::Path, extensions: &[&str]) -> Vec<std::path::PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<std::path::PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.is_file()
                && p.extension()
                    .is_some_and(|e| extensions.iter().any(|x| e == *x))
        })
        .collect();
    files.sort();
    files
}

/// Reads each subagent log of `files` with `read` (subagents of subagents left out), links
/// it to its spawning call with `link` and hangs it under `session`; the lines its read
/// skipped join `diagnostics`.
pub(crate) fn attach_subagents(
    session: &mut crate::session::Session,
    diagnostics: &mut Vec<crate::error::Diagnostic>,
    files: Vec<std::path::PathBuf>,
    (input, options): (&Input<'_>, &crate::source::ReadOptions),
    read: impl Fn(
        std::fs::File,
        &Input<'_>,
        &crate::source::ReadOptions,
    ) -> Result<crate::source::ReadReport, crate::error::Error>,
    link: fn(&crate::session::Session, &mut crate::session::Session),
) -> Result<(), crate::error::Error> {
    let sub_options = crate::source::ReadOptions {
        last_turns: None,
        no_subagents: true,
        ..options.clone()
    };
    for file in files {
        let sub_input = Input::file(&file, input.spill);
        let reader = std::fs::File::open(&file).map_err(|e| crate::error::Error::io(&file, e))?;
        let mut report = read(reader, &sub_input, &sub_options)?;
        diagnostics.append(&mut report.diagnostics);
        let mut sub = report.session;
        link(session, &mut sub);
        session.subagents.push(sub);
    }
    Ok(())
}
