//! OpenAI-style chat messages, the shape most orchestrators can dump: a JSON array of
//! `{role, content, tool_calls, tool_call_id, name}` objects, the same wrapped as
//! `{"messages": [...]}`, or one message per line (JSONL).
//!
//! `name` on an assistant message is the agent's name. Tool results carry no structured
//! outcome, so the bracket-prefix convention decides (decision G6).

use std::borrow::Cow;
use std::io::Read;

use serde::Deserialize;
use serde_json::value::RawValue;

use crate::driver::{LineError, LineSink, drive};
use crate::error::{Diagnostic, Error};
use crate::event::{Actor, Role};
use crate::output::Encoding;
use crate::readers::descriptor::{Descriptor, Match, Sniff};
use crate::readers::{
    claude_code,
    common::{self, Events},
    document,
};
use crate::session::{Agent, Format, Session};
use crate::source::{Input, ReadOptions, ReadReport};
use crate::tail::Turns;
use crate::tool::{Args, Outcome, ToolCall, ToolKind, ToolResult};

/// Maps an orchestrator's tool name to its kind (decision G7): Claude Code's names exactly,
/// then by case-insensitive containment, so `FileSystem-write_file` is a write.
pub(crate) fn tool_kind(name: &str) -> ToolKind {
    const BY_CONTAINMENT: &[(&str, ToolKind)] = &[
        ("write_file", ToolKind::WriteFile),
        ("patch_file", ToolKind::PatchFile),
        ("apply_patch", ToolKind::PatchFile),
        ("edit_file", ToolKind::PatchFile),
        ("read_file", ToolKind::ReadFile),
        ("git_commit", ToolKind::GitCommit),
        ("shell_run", ToolKind::Shell),
        ("run_shell", ToolKind::Shell),
        ("exec_command", ToolKind::Shell),
        ("run_command", ToolKind::Shell),
        ("shell", ToolKind::Shell),
        ("bash", ToolKind::Shell),
        ("spawn_agent", ToolKind::Subagent),
        ("subagent", ToolKind::Subagent),
        ("web_search", ToolKind::Web),
        ("web_fetch", ToolKind::Web),
        ("fetch_url", ToolKind::Web),
        ("grep", ToolKind::Search),
        ("glob", ToolKind::Search),
        ("list_dir", ToolKind::Search),
        ("search", ToolKind::Search),
    ];
    let exact = claude_code::tool_kind(name);
    if exact != ToolKind::Other {
        return exact;
    }
    let lower = name.to_ascii_lowercase();
    BY_CONTAINMENT
        .iter()
        .find(|(needle, _)| lower.contains(needle))
        .map_or(ToolKind::Other, |(_, kind)| *kind)
}

/// One chat message.
#[derive(Deserialize)]
struct ChatMessage<'a> {
    #[serde(borrow)]
    role: Cow<'a, str>,
    #[serde(borrow, default)]
    content: Option<&'a RawValue>,
    #[serde(borrow, default)]
    name: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    tool_calls: Option<Vec<ChatToolCall<'a>>>,
    #[serde(borrow, default)]
    tool_call_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    function_call: Option<ChatFunction<'a>>,
    #[serde(borrow, default, alias = "created_at")]
    timestamp: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct ChatToolCall<'a> {
    #[serde(borrow, default)]
    id: Option<Cow<'a, str>>,
    #[serde(borrow)]
    function: ChatFunction<'a>,
}

#[derive(Deserialize)]
struct ChatFunction<'a> {
    #[serde(borrow)]
    name: Cow<'a, str>,
    #[serde(borrow, default)]
    arguments: Option<&'a RawValue>,
}

/// The chat-message format.
pub(crate) const DESCRIPTOR: Descriptor = Descriptor {
    format: Format::Chat,
    label: "chat-message",
    read: |reader, input, options| read(reader, input, options),
    tool_kind,
    turns: Some(Turns::of_lines(starts_turn)),
    sniff: Sniff {
        document: common::is_document,
        record: sniff_record,
        keys: &[("\"role\"", Match::Weak)],
    },
};

/// A `{"messages": …}` wrapper is surely chat; any other record with a `role` may be.
fn sniff_record(record: &serde_json::Map<String, serde_json::Value>) -> Match {
    if record.contains_key("messages") && record.len() <= 4 {
        Match::Sure
    } else if record.contains_key("role") {
        Match::Weak
    } else {
        Match::No
    }
}

/// Reads chat messages from a JSON array, a `{"messages": [...]}` object, or JSONL.
pub(crate) fn read(
    mut reader: impl Read,
    input: &Input<'_>,
    options: &ReadOptions,
) -> Result<ReadReport, Error> {
    let mut head = [0u8; 1];
    let mut first = None;
    let mut prefix = Vec::new();
    // Skip leading whitespace to see whether this is one JSON document or JSONL.
    while reader
        .read(&mut head)
        .map_err(|e| Error::io(&input.display, e))?
        == 1
    {
        prefix.push(head[0]);
        if !head[0].is_ascii_whitespace() {
            first = Some(head[0]);
            break;
        }
    }
    let reader = std::io::Cursor::new(prefix).chain(reader);
    let mut log = ChatLog {
        events: Events::default(),
    };
    let diagnostics = match first {
        Some(b'[') => read_document(reader, input, options, &mut log, false)?,
        Some(b'{') => {
            // `{"messages": [...]}` is one document; `{"role": ...}` starts a JSONL file.
            let mut all = Vec::new();
            reader
                .take(u64::MAX)
                .read_to_end(&mut all)
                .map_err(|e| Error::io(&input.display, e))?;
            if common::is_wrapped(&all) {
                read_document(all.as_slice(), input, options, &mut log, true)?
            } else {
                drive(all.as_slice(), input, options, &mut log)?
            }
        }
        Some(_) => drive(reader, input, options, &mut log)?,
        None => {
            return Err(Error::Empty {
                path: input.display.clone(),
            });
        }
    };
    let session = Session {
        agent: Agent::Orchestrator,
        source: Some(input.source(Format::Chat)),
        events: log.events.events,
        ..Session::default()
    };
    Ok(ReadReport {
        session,
        diagnostics,
    })
}

/// Returns true when `line` (of a JSONL chat log) starts a turn: a user message.
pub(crate) fn starts_turn(line: &str) -> bool {
    #[derive(Deserialize)]
    struct Role<'a> {
        #[serde(borrow)]
        role: Cow<'a, str>,
    }
    serde_json::from_str::<Role<'_>>(line).is_ok_and(|m| m.role == "user")
}

struct ChatLog {
    events: Events,
}

impl LineSink for ChatLog {
    fn line(&mut self, text: &str, number: u64, _offset: u64) -> Result<(), LineError> {
        LineError::expect_object(text)?;
        let message: ChatMessage<'_> = serde_json::from_str(text)?;
        self.message(&message, number)
    }
}

impl ChatLog {
    fn message(&mut self, m: &ChatMessage<'_>, line: u64) -> Result<(), LineError> {
        let ts = common::timestamp(m.timestamp.as_deref());
        let text = match m.content {
            Some(raw) => Encoding::ContentBlocks
                .decode(raw.get())
                .map_err(|e| LineError::nested("content", &e))?,
            None => String::new(),
        };
        let name: Option<Box<str>> = m.name.as_deref().map(Into::into);
        match &*m.role {
            "assistant" => {
                let actor = Actor {
                    role: Role::Assistant,
                    name,
                };
                self.events.message(actor.clone(), ts, Some(line), text);
                let calls = m
                    .tool_calls
                    .iter()
                    .flatten()
                    .map(|c| (c.id.as_deref(), &c.function));
                for (id, function) in calls.chain(m.function_call.as_ref().map(|f| (None, f))) {
                    let args = match function.arguments {
                        Some(raw) => match serde_json::from_str::<serde_json::Value>(raw.get()) {
                            Ok(serde_json::Value::String(s)) => common::arguments(&s),
                            Ok(v) => v,
                            Err(e) => return Err(LineError::nested("arguments", &e)),
                        },
                        None => serde_json::Value::Object(serde_json::Map::new()),
                    };
                    let call = ToolCall {
                        call_id: id.map_or_else(
                            || format!("call-{}", self.events.events.len()),
                            str::to_owned,
                        ),
                        name: crate::names::tool_name(&function.name),
                        kind: tool_kind(&function.name),
                        args: Args::from_value(args),
                    };
                    self.events.call(actor.clone(), ts, Some(line), call);
                }
            }
            "tool" | "function" => {
                let call_id = match (m.tool_call_id.as_deref(), &name) {
                    (Some(id), _) => id.to_owned(),
                    // A legacy `function` result answers the latest call of that name.
                    (None, Some(n)) => self
                        .events
                        .events
                        .iter()
                        .rev()
                        .filter_map(|e| e.as_tool_call())
                        .find(|c| *c.name == **n)
                        .map(|c| c.call_id.clone())
                        .unwrap_or_default(),
                    (None, None) => {
                        return Err(LineError::shape("a `tool` message without `tool_call_id`"));
                    }
                };
                let outcome = Outcome::from_text(&text);
                let result = ToolResult {
                    call_id,
                    output: crate::Output::inline(text),
                    outcome,
                };
                self.events.result(
                    Actor {
                        role: Role::Tool,
                        name,
                    },
                    ts,
                    Some(line),
                    result,
                );
            }
            "user" => self.events.message(
                Actor {
                    role: Role::User,
                    name,
                },
                ts,
                Some(line),
                text,
            ),
            _ => self.events.message(
                Actor {
                    role: Role::System,
                    name,
                },
                ts,
                Some(line),
                text,
            ),
        }
        Ok(())
    }
}

/// Reads a whole JSON document: an array of messages, or an object with a `messages` array.
/// A document cut short keeps the messages before the cut.
fn read_document(
    mut reader: impl Read,
    input: &Input<'_>,
    options: &ReadOptions,
    log: &mut ChatLog,
    wrapped: bool,
) -> Result<Vec<Diagnostic>, Error> {
    let bytes = document::read_all(&mut reader, input)?;
    let text = document::text(&bytes, input)?;
    let doc = document::parse(text, input, options, wrapped)?;
    let diagnostics = doc.each_message(input, options, |raw, line| {
        let m =
            serde_json::from_str::<ChatMessage<'_>>(raw.get()).map_err(|e| LineError::json(&e))?;
        log.message(&m, line)
    })?;
    if log.events.events.is_empty() && diagnostics.is_empty() {
        return Err(Error::Empty {
            path: input.display.clone(),
        });
    }
    Ok(diagnostics)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_orchestrator_names_by_containment() {
        assert_eq!(tool_kind("FileSystem-write_file"), ToolKind::WriteFile);
        assert_eq!(tool_kind("Shell-shell_run"), ToolKind::Shell);
        assert_eq!(tool_kind("git_commit"), ToolKind::GitCommit);
        assert_eq!(tool_kind("Write"), ToolKind::WriteFile);
        assert_eq!(tool_kind("handoff"), ToolKind::Other);
    }
}
