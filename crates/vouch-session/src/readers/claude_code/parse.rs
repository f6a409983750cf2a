//! Parsing one Claude Code line into what it adds to a session: the work the reader's threads
//! share, with no state but the line.

use std::borrow::Cow;
use std::path::PathBuf;

use super::fast;
use super::records::{Content, Message, ProgressData, Record};
use super::tools::tool_kind;
use crate::driver::{LineError, LineParser};
use crate::event::Role;
use crate::hash::hash;
use crate::readers::common;
use crate::session::Usage;
use crate::source::{Input, Start};
use crate::tool::{Args, Outcome, ToolCall, ToolResult};

/// Returns true when `line` is a record that starts a turn: a user's message (not a tool
/// result, not injected context, not a subagent's).
pub(crate) fn starts_turn(line: &str) -> bool {
    let input = Input {
        path: None,
        display: PathBuf::new(),
        spill: false,
        start: Start::default(),
    };
    let parser = ClaudeParser { input: &input };
    match parser.parse(&mut Scratch::default(), line, 0) {
        Ok(Line {
            place: Place::Main { sidechain },
            body:
                Body::Message {
                    role: Role::User,
                    items,
                    ..
                },
            ..
        }) => {
            sidechain != Some(true)
                && items
                    .into_iter()
                    .any(|(_, item)| matches!(item, Item::Text(_)))
        }
        _ => false,
    }
}

/// Parses Claude Code lines; the worker threads share it.
pub(super) struct ClaudeParser<'i> {
    pub(super) input: &'i Input<'i>,
}

/// What a worker remembers across the lines of one block: which one-off facts it has already
/// passed on, so that each line does not copy them again.
#[derive(Default)]
pub(super) struct Scratch {
    pub(super) meta: bool,
    pub(super) model: bool,
    /// The scanner's index of the line, its buffers kept between lines.
    pub(super) index: crate::scan::Buffers,
}

/// One parsed line.
pub(super) struct Line {
    /// Boxed, as most lines have none: a parsed line is moved several times.
    pub(super) meta: Option<Box<Meta>>,
    /// The token usage the record's message reports, keyed by its message id when it has one.
    pub(super) usage: Option<(Option<u64>, Usage)>,
    pub(super) model: Option<String>,
    pub(super) timestamp: Option<jiff::Timestamp>,
    pub(super) place: Place,
    pub(super) body: Body,
}

/// Facts about the whole log that every line repeats.
pub(super) struct Meta {
    pub(super) session_id: Option<String>,
    pub(super) agent_id: Option<String>,
    pub(super) cwd: Option<String>,
}

/// Where a line's events belong.
pub(super) enum Place {
    /// The main session, unless the record's `isSidechain` says otherwise.
    Main { sidechain: Option<bool> },
    /// The subagent of a `stream-json` `parent_tool_use_id`.
    Call(String),
    /// A sidechain record inline in an older log (boxed: rare, and a line is moved often).
    Sidechain(Box<Sidechain>),
}

/// A sidechain record's place: its id, its parent's and its agent's.
pub(super) struct Sidechain {
    pub(super) uuid: Option<String>,
    pub(super) parent: Option<String>,
    pub(super) agent_id: Option<String>,
}

pub(super) enum Body {
    Nothing,
    /// The content of a message: its items with their merge keys.
    Message {
        role: Role,
        message: Option<u64>,
        items: Items,
        link: Option<Box<(String, String)>>,
    },
    /// An `agent_progress` record's `(agent id, call id)`.
    Link(String, String),
}

pub(super) enum Item {
    Text(String),
    Call(ToolCall),
    Result(ToolResult),
}

/// The items of one record with their merge keys; nearly every record holds one, which is kept
/// without allocating a list.
#[derive(Default)]
pub(super) enum Items {
    #[default]
    None,
    One(u64, Item),
    Many(Vec<(u64, Item)>),
}

impl Items {
    pub(super) fn push(&mut self, key: u64, item: Item) {
        *self = match std::mem::take(self) {
            Items::None => Items::One(key, item),
            Items::One(k, i) => Items::Many(vec![(k, i), (key, item)]),
            Items::Many(mut list) => {
                list.push((key, item));
                Items::Many(list)
            }
        };
    }
}

impl IntoIterator for Items {
    type Item = (u64, Item);
    type IntoIter =
        std::iter::Chain<std::option::IntoIter<(u64, Item)>, std::vec::IntoIter<(u64, Item)>>;

    fn into_iter(self) -> Self::IntoIter {
        match self {
            Items::None => None.into_iter().chain(Vec::new()),
            Items::One(k, i) => Some((k, i)).into_iter().chain(Vec::new()),
            Items::Many(list) => None.into_iter().chain(list),
        }
    }
}

impl LineParser for ClaudeParser<'_> {
    type Item = Line;
    type Scratch = Scratch;

    fn parse(&self, scratch: &mut Scratch, text: &str, offset: u64) -> Result<Line, LineError> {
        LineError::expect_object(text)?;
        let mut rec = Record::default();
        if fast::record(text, &mut scratch.index, &mut rec).is_err() {
            rec = serde_json::from_str(text)?;
        }
        let owned = |s: &Option<Cow<'_, str>>| s.as_deref().map(str::to_owned);
        let mut line = Line {
            meta: None,
            usage: None,
            model: None,
            timestamp: None,
            place: Place::Main {
                sidechain: rec.is_sidechain,
            },
            body: Body::Nothing,
        };
        if !scratch.meta && (rec.session_id.is_some() || rec.cwd.is_some()) {
            scratch.meta = true;
            line.meta = Some(Box::new(Meta {
                session_id: owned(&rec.session_id),
                agent_id: owned(&rec.agent_id),
                cwd: owned(&rec.cwd),
            }));
        }
        match rec.kind.as_deref() {
            Some(kind @ ("user" | "assistant")) => {
                let Some(Message::Api {
                    id,
                    model,
                    content,
                    usage,
                }) = &rec.message
                else {
                    return Err(LineError::shape(match rec.message {
                        None => format!("`message` is missing (record type `{kind}`)"),
                        Some(_) => format!("`message` is not an object (record type `{kind}`)"),
                    }));
                };
                let assistant = kind == "assistant";
                line.usage = usage.map(|u| (id.as_deref().map(|i| hash(i.as_bytes())), u));
                if assistant && !scratch.model {
                    line.model = model
                        .as_deref()
                        .filter(|m| !m.starts_with('<'))
                        .map(str::to_owned);
                    scratch.model = line.model.is_some();
                }
                line.timestamp = common::timestamp(rec.timestamp.as_deref());
                line.place = if let Some(call) = &rec.parent_tool_use_id {
                    Place::Call(call.to_string())
                } else if rec.is_sidechain == Some(true) {
                    Place::Sidechain(Box::new(Sidechain {
                        uuid: owned(&rec.uuid),
                        parent: owned(&rec.parent_uuid),
                        agent_id: owned(&rec.agent_id),
                    }))
                } else {
                    Place::Main {
                        sidechain: rec.is_sidechain,
                    }
                };
                line.body = self.message(assistant, &rec, id.as_deref(), content, text, offset)?;
            }
            Some("progress") => {
                if let (Some(data), Some(call)) = (rec.data, rec.progress_tool_use_id.as_deref())
                    && let Ok(data) = serde_json::from_str::<ProgressData<'_>>(data)
                    && let (Some("agent_progress"), Some(agent)) =
                        (data.kind.as_deref(), data.agent_id.as_deref())
                {
                    line.body = Body::Link(agent.to_owned(), call.to_owned());
                }
            }
            Some("system") if rec.subtype.as_deref() == Some("init") => {
                line.model = owned(&rec.model);
            }
            // Snapshots, summaries, queue operations, hooks, results and record types added
            // after this reader was written carry no events.
            _ => {}
        }
        Ok(line)
    }
}

impl ClaudeParser<'_> {
    pub(super) fn message(
        &self,
        assistant: bool,
        rec: &Record<'_>,
        message_id: Option<&str>,
        content: &Content<'_>,
        line: &str,
        offset: u64,
    ) -> Result<Body, LineError> {
        let role = if assistant {
            Role::Assistant
        } else if rec.is_meta == Some(true) || rec.is_compact_summary == Some(true) {
            Role::System
        } else {
            Role::User
        };
        let message = message_id
            .filter(|_| assistant)
            .map(|id| hash(id.as_bytes()));
        let mut items = Items::None;
        let mut link = None;
        match content {
            Content::Missing => {}
            Content::Text(text) => items.push(0, Item::Text(text.to_string())),
            Content::Invalid => {
                return Err(LineError::shape(
                    "`message.content` must be a string or an array of blocks",
                ));
            }
            Content::Blocks(blocks) => {
                let results = blocks
                    .iter()
                    .filter(|b| b.kind.ends_with("tool_result"))
                    .count();
                for block in blocks {
                    let kind = &*block.kind;
                    // A block is the same block again (Claude Code repeats blocks of a split
                    // message) only when its kind, id, text and input all agree: a second call
                    // under one id with another input is a call of its own, which strict
                    // evidence must see.
                    let key = || {
                        let mut h = hash(kind.as_bytes());
                        h ^=
                            hash(block.id.as_deref().unwrap_or_default().as_bytes()).rotate_left(1);
                        h ^= hash(block.text.as_deref().unwrap_or_default().as_bytes())
                            .rotate_left(2);
                        h ^ hash(block.input.unwrap_or_default().as_bytes()).rotate_left(3)
                    };
                    if kind == "text" {
                        let text = block.text.as_deref().unwrap_or_default().to_owned();
                        items.push(key(), Item::Text(text));
                    } else if matches!(kind, "tool_use" | "server_tool_use" | "mcp_tool_use") {
                        let (Some(id), Some(name)) = (block.id.as_deref(), block.name.as_deref())
                        else {
                            return Err(LineError::shape(format!(
                                "a `{kind}` block without `id` or `name`"
                            )));
                        };
                        let call = ToolCall {
                            call_id: id.to_owned(),
                            name: crate::names::tool_name(name),
                            kind: tool_kind(name),
                            args: block.input.map_or_else(Args::default, Args::from_checked),
                        };
                        items.push(key(), Item::Call(call));
                    } else if kind.ends_with("tool_result") {
                        let Some(call_id) = block.tool_use_id.as_deref() else {
                            return Err(LineError::shape(format!(
                                "a `{kind}` block without `tool_use_id`"
                            )));
                        };
                        let output = common::output(self.input, line, offset, block.content)
                            .map_err(|e| LineError::nested("content", &e))?;
                        let info = rec.tool_use_result.as_ref();
                        let outcome = outcome(
                            block.is_error.unwrap_or(false),
                            info.is_some_and(|i| i.interrupted),
                            output.preview(),
                        );
                        if results == 1
                            && let Some(agent) = info.and_then(|i| i.agent_id.as_deref())
                        {
                            link = Some(Box::new((agent.to_owned(), call_id.to_owned())));
                        }
                        let result = ToolResult {
                            call_id: call_id.to_owned(),
                            output,
                            outcome,
                        };
                        items.push(key(), Item::Result(result));
                    }
                    // Thinking, images, documents and unknown block types carry nothing vouch
                    // uses.
                }
            }
        }
        Ok(Body::Message {
            role,
            message,
            items,
            link,
        })
    }
}

/// Classifies a Claude Code tool result. Claude Code records no exit code beside a failed
/// `Bash` call; its text starts with `Exit code N`.
pub(super) fn outcome(is_error: bool, interrupted: bool, text: &str) -> Outcome {
    if !is_error {
        return if interrupted {
            Outcome::Error
        } else {
            Outcome::Ok
        };
    }
    let t = text.trim_start();
    if let Some(rest) = t.strip_prefix("Exit code ") {
        let code = rest
            .split(|c: char| !(c.is_ascii_digit() || c == '-'))
            .next();
        return Outcome::Failed {
            exit_code: code.and_then(|c| c.parse().ok()),
        };
    }
    let lower = t.get(..t.len().min(160)).unwrap_or(t).to_ascii_lowercase();
    if lower.contains("timed out") || lower.contains("timeout") {
        Outcome::TimedOut
    } else if lower.starts_with("the user doesn't want to proceed")
        || lower.contains("permission to use")
        || lower.contains("requested permissions")
        || lower.contains("denied")
        || lower.contains("was blocked")
    {
        Outcome::Denied
    } else {
        Outcome::Error
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_error_results() {
        assert_eq!(outcome(false, false, "fine"), Outcome::Ok);
        assert_eq!(
            outcome(true, false, "Exit code 2\nboom"),
            Outcome::Failed { exit_code: Some(2) }
        );
        assert_eq!(
            outcome(true, false, "Command timed out after 2m"),
            Outcome::TimedOut
        );
        assert_eq!(
            outcome(
                true,
                false,
                "The user doesn't want to proceed with this tool use."
            ),
            Outcome::Denied
        );
        assert_eq!(
            outcome(
                true,
                false,
                "<tool_use_error>File does not exist.</tool_use_error>"
            ),
            Outcome::Error
        );
        assert_eq!(outcome(false, true, ""), Outcome::Error);
    }
}
