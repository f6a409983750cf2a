//! vouch's own JSONL format: a session header line, then one line per event; subagents follow
//! their parent, each opened by a header naming its parent. Documented in
//! `docs/session-format.md`; writing, reading and writing again gives back the same bytes.
//! The same records, nested, make the JSON document of `--format json`.

use std::borrow::Cow;
use std::collections::HashMap;
use std::io::{Read, Write};

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use crate::driver::{LineError, LineSink, drive};
use crate::error::Error;
use crate::event::{Actor, Event, EventKind, Message, Role};
use crate::output::{Encoding, Output, span_within};
use crate::readers::descriptor::{Descriptor, Match, Sniff};
use crate::session::Usage;
use crate::session::{Agent, Format, Session};
use crate::source::{Input, ReadOptions, ReadReport};
use crate::tool::{Args, Outcome, ToolCall, ToolKind, ToolResult};

/// The format version written in every header line.
pub(crate) const VERSION: u32 = 1;

/// A session's own fields: the header line of the JSONL format.
#[derive(Serialize, Deserialize)]
struct Header<'a> {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    vouch: Option<u32>,
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    key: Option<Cow<'a, str>>,
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    parent: Option<Cow<'a, str>>,
    #[serde(borrow)]
    id: Cow<'a, str>,
    #[serde(borrow)]
    agent: Cow<'a, str>,
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    name: Option<Cow<'a, str>>,
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    spawned_by: Option<Cow<'a, str>>,
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    cwd: Option<Cow<'a, str>>,
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    model: Option<Cow<'a, str>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    usage: Option<Usage>,
}

/// An event line. `O` is the output field: a string when writing, a raw value when reading
/// (so that a long output can be held as a span); `A` the arguments: a raw value both ways.
#[derive(Serialize, Deserialize)]
struct EventLine<'a, O, A> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    seq: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    ts: Option<jiff::Timestamp>,
    role: Role,
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    actor: Option<Cow<'a, str>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    line: Option<u64>,
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    text: Option<Cow<'a, str>>,
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    call_id: Option<Cow<'a, str>>,
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    tool: Option<Cow<'a, str>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    tool_kind: Option<ToolKind>,
    #[serde(skip_serializing_if = "Option::is_none")]
    args: Option<A>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    outcome: Option<Outcome>,
    #[serde(skip_serializing_if = "Option::is_none")]
    output: Option<O>,
}

/// vouch's own format.
pub(crate) const DESCRIPTOR: Descriptor = Descriptor {
    format: Format::Vouch,
    label: "vouch",
    read: |reader, input, options| read(reader, input, options),
    tool_kind: |_| ToolKind::Other,
    // Subagents' events follow their header lines: a log is read whole.
    turns: None,
    sniff: Sniff::lines(
        |record| {
            if record.contains_key("vouch") {
                Match::Sure
            } else {
                Match::No
            }
        },
        &[("\"vouch\"", Match::Sure)],
    ),
};

/// Reads a vouch JSONL log.
pub(crate) fn read(
    reader: impl Read,
    input: &Input<'_>,
    options: &ReadOptions,
) -> Result<ReadReport, Error> {
    let mut log = VouchLog {
        input,
        sessions: Vec::new(),
        keys: HashMap::new(),
        parents: Vec::new(),
        current: 0,
    };
    let diagnostics = drive(reader, input, options, &mut log)?;
    if log.sessions.is_empty() {
        return Err(Error::UnknownFormat {
            path: input.display.clone(),
            reason: "a vouch log must start with a session header line".into(),
        });
    }
    let mut sessions: Vec<Option<Session>> = log.sessions.into_iter().map(Some).collect();
    // Children always follow their parents, so attaching from the last one up builds the tree.
    for i in (1..sessions.len()).rev() {
        let Some(child) = sessions[i].take() else {
            continue;
        };
        let parent = log.parents[i].unwrap_or(0);
        if let Some(p) = sessions[parent].as_mut() {
            p.subagents.insert(0, child);
        }
    }
    let session = sessions[0].take().unwrap_or_default();
    Ok(ReadReport {
        session,
        diagnostics,
    })
}

struct VouchLog<'i> {
    input: &'i Input<'i>,
    sessions: Vec<Session>,
    keys: HashMap<String, usize>,
    parents: Vec<Option<usize>>,
    /// The session event lines go to: the last opened, or one a header reopened.
    current: usize,
}

impl LineSink for VouchLog<'_> {
    fn line(&mut self, line: &str, number: u64, offset: u64) -> Result<(), LineError> {
        if line.starts_with("{\"vouch\"") {
            return self.header(line);
        }
        LineError::expect_object(line)?;
        let e: EventLine<'_, &RawValue, &RawValue> = serde_json::from_str(line)?;
        let Some(session) = self.sessions.get_mut(self.current) else {
            return Err(LineError::shape("an event before the first session header"));
        };
        let kind = match &*e.kind {
            "message" => EventKind::Message(Message {
                text: e.text.unwrap_or_default().into_owned(),
            }),
            "tool_call" => EventKind::ToolCall(ToolCall {
                call_id: e.call_id.unwrap_or_default().into_owned(),
                name: crate::names::tool_name(&e.tool.unwrap_or_default()),
                kind: e.tool_kind.unwrap_or(ToolKind::Other),
                args: e.args.map_or_else(Args::default, Args::from_raw),
            }),
            "tool_result" => {
                let output = match e.output {
                    Some(raw) => {
                        let span = span_within(line, offset, raw.get(), Encoding::JsonString)
                            .filter(|_| self.input.spill);
                        Output::from_json(raw.get(), span)
                            .map_err(|err| LineError::nested("output", &err))?
                    }
                    None => Output::default(),
                };
                EventKind::ToolResult(ToolResult {
                    call_id: e.call_id.unwrap_or_default().into_owned(),
                    output,
                    outcome: e.outcome.unwrap_or(Outcome::Ok),
                })
            }
            other => return Err(LineError::shape(format!("unknown event type `{other}`"))),
        };
        let _ = number;
        session.events.push(Event {
            seq: crate::event::seq_at(session.events.len()),
            timestamp: e.ts,
            actor: Actor {
                role: e.role,
                name: e.actor.map(|a| a.into_owned().into_boxed_str()),
            },
            kind,
            line: e.line.and_then(crate::event::line_at),
        });
        Ok(())
    }
}

impl VouchLog<'_> {
    fn header(&mut self, line: &str) -> Result<(), LineError> {
        let h: Header<'_> = serde_json::from_str(line)?;
        if h.vouch != Some(VERSION) {
            let v = h.vouch.unwrap_or_default();
            return Err(LineError::shape(format!(
                "unsupported vouch log version `{v}`"
            )));
        }
        // A header of a key already read reopens that session (a run's log, after the
        // subagents it appended).
        if let Some(&index) = h.key.as_deref().and_then(|k| self.keys.get(k)) {
            self.current = index;
            return Ok(());
        }
        let parent = match h.parent.as_deref() {
            Some(p) => Some(*self.keys.get(p).ok_or_else(|| {
                LineError::shape(format!("a session header names an unknown parent `{p}`"))
            })?),
            None if self.sessions.is_empty() => None,
            None => return Err(LineError::shape("a second session header without `parent`")),
        };
        let key = h.key.as_deref().unwrap_or_default().to_owned();
        self.current = self.sessions.len();
        self.keys.insert(key, self.sessions.len());
        self.parents.push(parent);
        self.sessions.push(Session {
            id: h.id.into_owned(),
            agent: Agent::from_name(&h.agent),
            name: h.name.map(Cow::into_owned),
            spawned_by: h.spawned_by.map(Cow::into_owned),
            cwd: h.cwd.map(Cow::into_owned),
            model: h.model.map(Cow::into_owned),
            usage: h.usage,
            source: Some(self.input.source(Format::Vouch)),
            ..Session::default()
        });
        Ok(())
    }
}

fn header(s: &Session, key: Option<String>, parent: Option<String>) -> Header<'_> {
    Header {
        vouch: key.as_ref().map(|_| VERSION),
        key: key.map(Cow::Owned),
        parent: parent.map(Cow::Owned),
        id: Cow::Borrowed(&s.id),
        agent: Cow::Borrowed(s.agent.as_str()),
        name: s.name.as_deref().map(Cow::Borrowed),
        spawned_by: s.spawned_by.as_deref().map(Cow::Borrowed),
        cwd: s.cwd.as_deref().map(Cow::Borrowed),
        model: s.model.as_deref().map(Cow::Borrowed),
        usage: s.usage,
    }
}

/// Returns the line of one event, with the full text of its output (read back from the log
/// when only a preview is held).
fn event_line<'a>(
    s: &Session,
    e: &'a Event,
) -> Result<EventLine<'a, Cow<'a, str>, &'a RawValue>, Error> {
    let mut line = EventLine {
        kind: Cow::Borrowed(""),
        seq: u64::from(e.seq),
        ts: e.timestamp,
        role: e.actor.role,
        actor: e.actor.name.as_deref().map(Cow::Borrowed),
        line: e.line_number(),
        text: None,
        call_id: None,
        tool: None,
        tool_kind: None,
        args: None,
        outcome: None,
        output: None,
    };
    match &e.kind {
        EventKind::Message(m) => {
            line.kind = Cow::Borrowed("message");
            line.text = Some(Cow::Borrowed(&m.text));
        }
        EventKind::ToolCall(c) => {
            line.kind = Cow::Borrowed("tool_call");
            line.call_id = Some(Cow::Borrowed(&c.call_id));
            line.tool = Some(Cow::Borrowed(&c.name));
            line.tool_kind = Some(c.kind);
            line.args = Some(raw_args(&c.args));
        }
        EventKind::ToolResult(r) => {
            line.kind = Cow::Borrowed("tool_result");
            line.call_id = Some(Cow::Borrowed(&r.call_id));
            line.outcome = Some(r.outcome);
            line.output = Some(s.output_text(&r.output)?);
        }
    }
    Ok(line)
}

/// Returns the arguments' JSON text as a raw value, written as it is.
fn raw_args(args: &Args) -> &RawValue {
    let json = args.as_json();
    // Arguments hold valid JSON (see `Args`); an empty text is an empty object.
    serde_json::from_str(if json.is_empty() { "{}" } else { json }).unwrap_or_else(|_| {
        serde_json::from_str("null").unwrap_or_else(|_| unreachable!("`null` is JSON"))
    })
}

/// Writes a session and its subagents in vouch's JSONL format.
///
/// Outputs held as previews are read back from the session's log file, so the result is
/// self-contained.
pub fn write_jsonl<W: Write + ?Sized>(session: &Session, out: &mut W) -> Result<(), Error> {
    let mut stack = vec![(session, "0".to_owned(), None::<String>)];
    while let Some((s, key, parent)) = stack.pop() {
        write_json_line(out, &header(s, Some(key.clone()), parent))?;
        for e in &s.events {
            write_json_line(out, &event_line(s, e)?)?;
        }
        for (i, sub) in s.subagents.iter().enumerate().rev() {
            stack.push((sub, format!("{key}.{i}"), Some(key.clone())));
        }
    }
    Ok(())
}

/// Writes the header line of `session` (without its subagents) in vouch's JSONL format: the
/// start of a log that [`write_jsonl_events`] then appends to, as a run goes on.
pub fn write_jsonl_header<W: Write + ?Sized>(session: &Session, out: &mut W) -> Result<(), Error> {
    write_json_line(out, &header(session, Some("0".to_owned()), None))
}

/// Writes `sub` (and its events; not its own subagents) as a subagent section of a log being
/// appended to: a header with key `key` naming its parent `parent`, then its events.
pub fn write_jsonl_subagent<W: Write + ?Sized>(
    sub: &Session,
    key: &str,
    parent: &str,
    out: &mut W,
) -> Result<(), Error> {
    write_json_line(
        out,
        &header(sub, Some(key.to_owned()), Some(parent.to_owned())),
    )?;
    for e in &sub.events {
        write_json_line(out, &event_line(sub, e)?)?;
    }
    Ok(())
}

/// Writes a header line that reopens the session of key `key` (written earlier in the log):
/// the event lines after it are that session's again. A run appends its subagents as they
/// happen and reopens its own session after them.
pub fn write_jsonl_reopen<W: Write + ?Sized>(
    session: &Session,
    key: &str,
    out: &mut W,
) -> Result<(), Error> {
    write_json_line(out, &header(session, Some(key.to_owned()), None))
}

/// Writes `events` of `session` as event lines of vouch's JSONL format, after its header line.
pub fn write_jsonl_events<W: Write + ?Sized>(
    session: &Session,
    events: &[Event],
    out: &mut W,
) -> Result<(), Error> {
    for e in events {
        write_json_line(out, &event_line(session, e)?)?;
    }
    Ok(())
}

/// Writes a session as one JSON document: the header's fields, `events`, and `subagents`
/// nested the same way.
pub fn write_json<W: Write + ?Sized>(session: &Session, out: &mut W) -> Result<(), Error> {
    let fields = serde_json::to_string(&header(session, None, None)).map_err(write_error)?;
    out.write_all(&fields.as_bytes()[..fields.len() - 1])
        .map_err(write_error_io)?;
    if let Some(source) = &session.source {
        #[derive(Serialize)]
        struct SourceOut<'a> {
            path: Option<Cow<'a, str>>,
            format: &'a str,
        }
        let source = SourceOut {
            path: source.path.as_deref().map(|p| p.to_string_lossy()),
            format: source.format.as_str(),
        };
        write!(out, ",\"source\":").map_err(write_error_io)?;
        serde_json::to_writer(&mut *out, &source).map_err(write_error)?;
    }
    out.write_all(b",\"events\":[").map_err(write_error_io)?;
    for (i, e) in session.events.iter().enumerate() {
        if i > 0 {
            out.write_all(b",").map_err(write_error_io)?;
        }
        serde_json::to_writer(&mut *out, &event_line(session, e)?).map_err(write_error)?;
    }
    out.write_all(b"],\"subagents\":[")
        .map_err(write_error_io)?;
    for (i, sub) in session.subagents.iter().enumerate() {
        if i > 0 {
            out.write_all(b",").map_err(write_error_io)?;
        }
        write_json(sub, out)?;
    }
    out.write_all(b"]}").map_err(write_error_io)
}

fn write_json_line<W: Write + ?Sized>(out: &mut W, value: &impl Serialize) -> Result<(), Error> {
    serde_json::to_writer(&mut *out, value).map_err(write_error)?;
    out.write_all(b"\n").map_err(write_error_io)
}

fn write_error(e: serde_json::Error) -> Error {
    Error::Write(e.into())
}

fn write_error_io(e: std::io::Error) -> Error {
    Error::Write(e)
}
