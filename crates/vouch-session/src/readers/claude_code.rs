//! Claude Code session logs (`~/.claude/projects/<project>/<session-id>.jsonl`), their
//! `<session-id>/subagents/` folders, and `claude -p --output-format stream-json` output.
//!
//! Each line is a record; `user` and `assistant` records carry an Anthropic Messages API
//! message. One assistant message may be split over several records with the same
//! `message.id`: blocks already seen are dropped. Tool results come as `tool_result` blocks in
//! `user` records, with `is_error` and a `toolUseResult` beside them. Thinking is ignored.
//! Subagents come from three places: files under `<session-id>/` (at any depth), sidechain
//! records inline in older logs, and `parent_tool_use_id` in `stream-json` output.

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde::de::{self, IgnoredAny, MapAccess, Visitor};
use serde_json::value::RawValue;

use crate::error::Error;
use crate::event::{Actor, EventKind, Role};
use crate::hash::hash;
use crate::pipeline::{LineParser, drive_parallel};
use crate::read::{Input, LineError, ReadOptions, ReadReport, Start};
use crate::readers::common::{self, Events};
use crate::session::{Agent, Format, Session};
use crate::tool::{Args, Outcome, ToolCall, ToolKind, ToolResult};

/// Maps a Claude Code tool name to its kind (decision G7). MCP tools (`mcp__server__tool`) and
/// names not listed are [`ToolKind::Other`].
pub fn tool_kind(name: &str) -> ToolKind {
    match name {
        "Bash" => ToolKind::Shell,
        "Write" => ToolKind::WriteFile,
        "Edit" | "MultiEdit" | "NotebookEdit" => ToolKind::PatchFile,
        "Read" | "NotebookRead" => ToolKind::ReadFile,
        "Task" | "Agent" => ToolKind::Subagent,
        "Grep" | "Glob" | "LS" => ToolKind::Search,
        "WebFetch" | "WebSearch" | "web_search" | "web_fetch" => ToolKind::Web,
        _ => ToolKind::Other,
    }
}

/// Reads a Claude Code log and, when it is a file, the subagent logs stored beside it.
pub(crate) fn read(
    reader: impl Read,
    input: &Input<'_>,
    options: &ReadOptions,
) -> Result<ReadReport, Error> {
    let (mut parsed, mut diagnostics) = read_log(reader, input, options)?;
    if let (Some(path), false) = (input.path, options.no_subagents) {
        let mut pending = subagent_files(path);
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

/// Returns the `.jsonl` files under `<dir>/<session-id>/`, at any depth, sorted by path.
fn subagent_files(session_file: &Path) -> Vec<PathBuf> {
    let (Some(dir), Some(stem)) = (session_file.parent(), session_file.file_stem()) else {
        return Vec::new();
    };
    let root = dir.join(stem);
    let mut files = Vec::new();
    let mut stack = vec![root];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            match entry.file_type() {
                Ok(t) if t.is_dir() => stack.push(path),
                Ok(t) if t.is_file() && path.extension().is_some_and(|e| e == "jsonl") => {
                    files.push(path);
                }
                _ => {}
            }
        }
    }
    files.sort();
    files
}

fn agent_id_from_file_name(path: &Path) -> String {
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    stem.strip_prefix("agent-")
        .map(str::to_owned)
        .unwrap_or(stem)
}

/// One line of a Claude Code log; only the keys vouch uses.
#[derive(Deserialize)]
struct Record<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    subtype: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    message: Option<Message<'a>>,
    #[serde(borrow, default)]
    uuid: Option<Cow<'a, str>>,
    #[serde(rename = "parentUuid", borrow, default)]
    parent_uuid: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    timestamp: Option<Cow<'a, str>>,
    #[serde(rename = "isSidechain", default)]
    is_sidechain: Option<bool>,
    #[serde(rename = "isMeta", default)]
    is_meta: Option<bool>,
    #[serde(rename = "isCompactSummary", default)]
    is_compact_summary: Option<bool>,
    #[serde(rename = "sessionId", alias = "session_id", borrow, default)]
    session_id: Option<Cow<'a, str>>,
    #[serde(rename = "agentId", borrow, default)]
    agent_id: Option<Cow<'a, str>>,
    #[serde(rename = "toolUseResult", default)]
    tool_use_result: Option<ResultInfo>,
    #[serde(borrow, default)]
    data: Option<&'a RawValue>,
    #[serde(rename = "parentToolUseID", borrow, default)]
    progress_tool_use_id: Option<Cow<'a, str>>,
    #[serde(rename = "parent_tool_use_id", borrow, default)]
    parent_tool_use_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    cwd: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    model: Option<Cow<'a, str>>,
}

/// Implements a visitor's methods for numbers and booleans, each returning `$value`: the
/// tolerant fields below accept any JSON and use only some shapes of it.
macro_rules! numbers_and_bools_become {
    ($value:expr) => {
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
            Ok($value)
        }
        fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
            Ok($value)
        }
        fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
            Ok($value)
        }
        fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
            Ok($value)
        }
    };
}

/// What a record holds under `message`: an Anthropic Messages API message, or, in a record
/// type this reader does not know, anything else.
enum Message<'a> {
    Api {
        id: Option<Cow<'a, str>>,
        model: Option<Cow<'a, str>>,
        content: Content<'a>,
    },
    NotAnObject,
}

/// A message's `content`: a string, or an array of blocks.
enum Content<'a> {
    Missing,
    Text(Cow<'a, str>),
    Blocks(Vec<Block<'a>>),
    Invalid,
}

impl<'de: 'a, 'a> Deserialize<'de> for Message<'a> {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = Message<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a message")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Message<'a>, A::Error> {
                let (mut id, mut model, mut content) = (None, None, Content::Missing);
                while let Some(key) = map.next_key::<Cow<'de, str>>()? {
                    match &*key {
                        "id" => id = map.next_value::<Option<Cow<'de, str>>>()?,
                        "model" => model = map.next_value::<Option<Cow<'de, str>>>()?,
                        "content" => content = map.next_value::<Content<'de>>()?,
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(Message::Api { id, model, content })
            }
            fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Message<'a>, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Message::NotAnObject)
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Message<'a>, E> {
                Ok(Message::NotAnObject)
            }
            fn visit_unit<E: de::Error>(self) -> Result<Message<'a>, E> {
                Ok(Message::NotAnObject)
            }
            numbers_and_bools_become!(Message::NotAnObject);
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Content<'a> {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = Content<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string or an array of content blocks")
            }
            fn visit_borrowed_str<E: de::Error>(self, s: &'de str) -> Result<Content<'a>, E> {
                Ok(Content::Text(Cow::Borrowed(s)))
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Content<'a>, E> {
                Ok(Content::Text(Cow::Owned(s.to_owned())))
            }
            fn visit_string<E: de::Error>(self, s: String) -> Result<Content<'a>, E> {
                Ok(Content::Text(Cow::Owned(s)))
            }
            fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Content<'a>, A::Error> {
                let mut blocks = Vec::with_capacity(seq.size_hint().unwrap_or(1));
                while let Some(block) = seq.next_element::<Block<'de>>()? {
                    blocks.push(block);
                }
                Ok(Content::Blocks(blocks))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Content<'a>, E> {
                Ok(Content::Missing)
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Content<'a>, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Content::Invalid)
            }
            numbers_and_bools_become!(Content::Invalid);
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

/// A content block of a message.
#[derive(Deserialize)]
struct Block<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    #[serde(borrow, default)]
    text: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    name: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    input: Option<&'a RawValue>,
    #[serde(borrow, default)]
    tool_use_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    content: Option<&'a RawValue>,
    #[serde(default)]
    is_error: Option<bool>,
}

/// The `data` of a `progress` record; `agent_progress` links a subagent to its Task call.
#[derive(Deserialize)]
struct ProgressData<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(rename = "agentId", borrow, default)]
    agent_id: Option<Cow<'a, str>>,
}

/// What vouch takes from a `toolUseResult`, which is a string or an object of any shape.
#[derive(Default)]
struct ResultInfo {
    agent_id: Option<String>,
    interrupted: bool,
}

impl<'de> Deserialize<'de> for ResultInfo {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = ResultInfo;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a tool use result")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ResultInfo, A::Error> {
                let mut info = ResultInfo::default();
                while let Some(key) = map.next_key::<Cow<'de, str>>()? {
                    match &*key {
                        "agentId" => info.agent_id = map.next_value::<Option<String>>()?,
                        "interrupted" => {
                            info.interrupted = map.next_value::<Option<bool>>()?.unwrap_or(false);
                        }
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(info)
            }
            fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<ResultInfo, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(ResultInfo::default())
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<ResultInfo, E> {
                Ok(ResultInfo::default())
            }
            fn visit_unit<E: de::Error>(self) -> Result<ResultInfo, E> {
                Ok(ResultInfo::default())
            }
            numbers_and_bools_become!(ResultInfo::default());
        }
        d.deserialize_any(V)
    }
}

/// Parses Claude Code lines; the worker threads share it.
struct ClaudeParser<'i> {
    input: &'i Input<'i>,
}

/// What a worker remembers across the lines of one block: which one-off facts it has already
/// passed on, so that each line does not copy them again.
#[derive(Default)]
struct Scratch {
    meta: bool,
    model: bool,
}

/// One parsed line.
struct Line {
    meta: Option<Meta>,
    model: Option<String>,
    timestamp: Option<jiff::Timestamp>,
    place: Place,
    body: Body,
}

/// Facts about the whole log that every line repeats.
struct Meta {
    session_id: Option<String>,
    agent_id: Option<String>,
    cwd: Option<String>,
}

/// Where a line's events belong.
enum Place {
    /// The main session, unless the record's `isSidechain` says otherwise.
    Main { sidechain: Option<bool> },
    /// The subagent of a `stream-json` `parent_tool_use_id`.
    Call(String),
    /// A sidechain record inline in an older log.
    Sidechain {
        uuid: Option<String>,
        parent: Option<String>,
        agent_id: Option<String>,
    },
}

enum Body {
    Nothing,
    /// The content of a message: its items with their merge keys.
    Message {
        role: Role,
        message: Option<u64>,
        items: Items,
        link: Option<(String, String)>,
    },
    /// An `agent_progress` record's `(agent id, call id)`.
    Link(String, String),
}

enum Item {
    Text(String),
    Call(ToolCall),
    Result(ToolResult),
}

/// The items of one record with their merge keys; nearly every record holds one, which is kept
/// without allocating a list.
#[derive(Default)]
enum Items {
    #[default]
    None,
    One(u64, Item),
    Many(Vec<(u64, Item)>),
}

impl Items {
    fn push(&mut self, key: u64, item: Item) {
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
        let rec: Record<'_> = serde_json::from_str(text)?;
        let owned = |s: &Option<Cow<'_, str>>| s.as_deref().map(str::to_owned);
        let mut line = Line {
            meta: None,
            model: None,
            timestamp: None,
            place: Place::Main {
                sidechain: rec.is_sidechain,
            },
            body: Body::Nothing,
        };
        if !scratch.meta && (rec.session_id.is_some() || rec.cwd.is_some()) {
            scratch.meta = true;
            line.meta = Some(Meta {
                session_id: owned(&rec.session_id),
                agent_id: owned(&rec.agent_id),
                cwd: owned(&rec.cwd),
            });
        }
        match rec.kind.as_deref() {
            Some(kind @ ("user" | "assistant")) => {
                let Some(Message::Api { id, model, content }) = &rec.message else {
                    return Err(LineError::shape(match rec.message {
                        None => format!("`message` is missing (record type `{kind}`)"),
                        Some(_) => format!("`message` is not an object (record type `{kind}`)"),
                    }));
                };
                let assistant = kind == "assistant";
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
                    Place::Sidechain {
                        uuid: owned(&rec.uuid),
                        parent: owned(&rec.parent_uuid),
                        agent_id: owned(&rec.agent_id),
                    }
                } else {
                    Place::Main {
                        sidechain: rec.is_sidechain,
                    }
                };
                line.body = self.message(assistant, &rec, id.as_deref(), content, text, offset)?;
            }
            Some("progress") => {
                if let (Some(data), Some(call)) = (rec.data, rec.progress_tool_use_id.as_deref())
                    && let Ok(data) = serde_json::from_str::<ProgressData<'_>>(data.get())
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
    fn message(
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
                    let key = || {
                        let mut h = hash(kind.as_bytes());
                        h ^=
                            hash(block.id.as_deref().unwrap_or_default().as_bytes()).rotate_left(1);
                        h ^ hash(block.text.as_deref().unwrap_or_default().as_bytes())
                            .rotate_left(2)
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
                            name: name.to_owned(),
                            kind: tool_kind(name),
                            args: block.input.map_or_else(Args::default, Args::from_raw),
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
                            link = Some((agent.to_owned(), call_id.to_owned()));
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

/// A run of records that belongs to a subagent: a sidechain inline in an older log, or the
/// messages of one `parent_tool_use_id` in `stream-json` output.
#[derive(Debug, Default)]
struct Group {
    events: Events,
    spawned_by: Option<String>,
    agent_id: Option<String>,
}

/// The state of a Claude Code log being read: parsed lines are applied to it in order.
#[derive(Default)]
struct ClaudeLog {
    main: Events,
    groups: Vec<Group>,
    group_of_call: HashMap<String, usize>,
    group_of_uuid: HashMap<String, usize>,
    /// Block keys already seen of the latest assistant messages, to merge split records.
    seen: SeenBlocks,
    /// `(agent id, call id)` pairs that link subagents to the calls that started them.
    links: Vec<(String, String)>,
    session_id: Option<String>,
    agent_id: Option<String>,
    cwd: Option<String>,
    model: Option<String>,
    /// Set at the first message record: true when the whole file is one subagent's log.
    sidechain_file: Option<bool>,
}

/// A log read on its own, before its subagents are attached.
struct Parsed {
    session: Session,
    subagents: Vec<Session>,
    links: Vec<(String, String)>,
}

/// Reads one Claude Code log file (or stream) on its own.
fn read_log(
    reader: impl Read,
    input: &Input<'_>,
    options: &ReadOptions,
) -> Result<(Parsed, Vec<crate::Diagnostic>), Error> {
    let parser = ClaudeParser { input };
    let mut log = ClaudeLog::default();
    let diagnostics = drive_parallel(reader, input, options, &parser, |line, number| {
        log.apply(line, number);
        Ok(())
    })?;
    Ok((log.finish(input), diagnostics))
}

impl ClaudeLog {
    fn apply(&mut self, line: Line, number: u64) {
        if let Some(meta) = line.meta {
            self.session_id = self.session_id.take().or(meta.session_id);
            self.agent_id = self.agent_id.take().or(meta.agent_id);
            self.cwd = self.cwd.take().or(meta.cwd);
        }
        if self.model.is_none() {
            self.model = line.model;
        }
        match line.body {
            Body::Nothing => {}
            Body::Link(agent, call) => {
                if !self.links.iter().any(|(a, c)| *a == agent && *c == call) {
                    self.links.push((agent, call));
                }
            }
            Body::Message {
                role,
                message,
                items,
                link,
            } => {
                let group = self.group_for(line.place);
                let ts = line.timestamp;
                for (key, item) in items {
                    if let Some(message) = message
                        && !self.seen.first_time(message, key)
                    {
                        continue;
                    }
                    let events = match group {
                        Some(i) => &mut self.groups[i].events,
                        None => &mut self.main,
                    };
                    match item {
                        Item::Text(text) => {
                            events.message(Actor::new(role), ts, Some(number), text);
                        }
                        Item::Call(call) => {
                            events.call(Actor::new(Role::Assistant), ts, Some(number), call);
                        }
                        Item::Result(result) => {
                            events.result(Actor::new(Role::Tool), ts, Some(number), result);
                        }
                    }
                }
                self.links.extend(link);
            }
        }
    }

    /// Returns the index of the group a record belongs to, or `None` for the main session.
    fn group_for(&mut self, place: Place) -> Option<usize> {
        let sidechain = match &place {
            Place::Call(_) => None,
            Place::Main { sidechain } => Some(sidechain.unwrap_or(false)),
            Place::Sidechain { .. } => Some(true),
        };
        if let Some(sidechain) = sidechain {
            let sidechain_file = *self.sidechain_file.get_or_insert(sidechain);
            if !sidechain || sidechain_file {
                return None;
            }
        }
        match place {
            Place::Call(call) => {
                let next = self.groups.len();
                let i = *self.group_of_call.entry(call.clone()).or_insert(next);
                if i == next {
                    self.groups.push(Group {
                        spawned_by: Some(call),
                        ..Group::default()
                    });
                }
                Some(i)
            }
            Place::Sidechain {
                uuid,
                parent,
                agent_id,
            } => {
                let parent = parent
                    .as_deref()
                    .and_then(|p| self.group_of_uuid.get(p))
                    .copied();
                let i = parent.unwrap_or_else(|| {
                    // A sidechain without an agent id is named after its first record.
                    let agent_id = agent_id.or_else(|| uuid.clone());
                    self.groups.push(Group {
                        agent_id,
                        ..Group::default()
                    });
                    self.groups.len() - 1
                });
                if let Some(uuid) = uuid {
                    self.group_of_uuid.insert(uuid, i);
                }
                Some(i)
            }
            Place::Main { .. } => None,
        }
    }

    fn finish(self, input: &Input<'_>) -> Parsed {
        let source = input.source(Format::ClaudeCode);
        let session = Session {
            id: self
                .agent_id
                .clone()
                .or(self.session_id.clone())
                .unwrap_or_default(),
            agent: Agent::ClaudeCode,
            cwd: self.cwd.clone(),
            model: self.model.clone(),
            source: Some(source.clone()),
            events: self.main.events,
            ..Session::default()
        };
        let subagents = self
            .groups
            .into_iter()
            .map(|g| Session {
                id: g
                    .agent_id
                    .or_else(|| g.spawned_by.clone())
                    .unwrap_or_default(),
                agent: Agent::ClaudeCode,
                spawned_by: g.spawned_by,
                cwd: self.cwd.clone(),
                source: Some(source.clone()),
                events: g.events.events,
                ..Session::default()
            })
            .collect();
        Parsed {
            session,
            subagents,
            links: self.links,
        }
    }
}

/// The content blocks already taken from the latest assistant messages. The records of one
/// message are written together, so a short window of messages is enough to merge them.
#[derive(Default)]
struct SeenBlocks {
    messages: std::collections::VecDeque<(u64, Vec<u64>)>,
}

impl SeenBlocks {
    const WINDOW: usize = 64;

    /// Records block `key` of message `message`; returns false when it was already recorded.
    fn first_time(&mut self, message: u64, key: u64) -> bool {
        if let Some((_, blocks)) = self.messages.iter_mut().rev().find(|(m, _)| *m == message) {
            if blocks.contains(&key) {
                return false;
            }
            blocks.push(key);
            return true;
        }
        if self.messages.len() == Self::WINDOW {
            self.messages.pop_front();
        }
        self.messages.push_back((message, vec![key]));
        true
    }
}

/// Classifies a Claude Code tool result. Claude Code records no exit code beside a failed
/// `Bash` call; its text starts with `Exit code N`.
fn outcome(is_error: bool, interrupted: bool, text: &str) -> Outcome {
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

/// Links subagents to the calls that started them and hangs each under the session holding
/// that call; subagents that cannot be linked hang under the main session with no call.
fn assemble(parsed: Parsed) -> Session {
    let Parsed {
        session: mut main,
        subagents,
        links,
    } = parsed;
    if subagents.is_empty() {
        return main;
    }
    let call_of_agent: HashMap<&str, &str> = links
        .iter()
        .map(|(a, c)| (a.as_str(), c.as_str()))
        .collect();
    // Node 0 is the main session, node i + 1 is subagents[i].
    let mut nodes: Vec<Option<Session>> = std::iter::once(None)
        .chain(subagents.into_iter().map(Some))
        .collect();
    let owner_of_call: HashMap<String, (usize, Option<String>)> = {
        let mut map = HashMap::new();
        let all = std::iter::once((0, &main)).chain(
            nodes
                .iter()
                .enumerate()
                .filter_map(|(i, n)| n.as_ref().map(|s| (i, s))),
        );
        for (i, s) in all {
            for call in s.tool_calls() {
                let name = call.arg_str("subagent_type").map(str::to_owned);
                map.insert(call.call_id.clone(), (i, name));
            }
        }
        map
    };
    let prompt_calls: Vec<(String, String)> = std::iter::once(&main)
        .chain(nodes.iter().flatten())
        .flat_map(Session::tool_calls)
        .filter(|c| c.kind == ToolKind::Subagent)
        .filter_map(|c| Some((c.arg_str("prompt")?.trim().to_owned(), c.call_id.clone())))
        .collect();
    let mut parent = vec![0usize; nodes.len()];
    for i in 1..nodes.len() {
        let Some(sub) = nodes[i].as_mut() else {
            continue;
        };
        if sub.spawned_by.is_none() {
            sub.spawned_by = call_of_agent.get(sub.id.as_str()).map(|c| (*c).to_owned());
        }
        if sub.spawned_by.is_none() {
            let first_prompt = sub
                .events
                .iter()
                .find(|e| e.actor.role == Role::User)
                .and_then(|e| e.as_message())
                .map(str::trim);
            sub.spawned_by = first_prompt
                .and_then(|p| prompt_calls.iter().find(|(text, _)| text == p))
                .map(|(_, c)| c.clone());
        }
        if let Some((owner, name)) = sub.spawned_by.as_ref().and_then(|c| owner_of_call.get(c)) {
            if *owner != i {
                parent[i] = *owner;
            }
            if sub.name.is_none() {
                sub.name.clone_from(name);
            }
        }
    }
    // A log that claims its own descendant started it would form a cycle: such a subagent
    // hangs under the main session instead.
    for i in 1..nodes.len() {
        let mut at = parent[i];
        let mut steps = 0;
        while at != 0 && steps <= nodes.len() {
            if at == i {
                parent[i] = 0;
                break;
            }
            at = parent[at];
            steps += 1;
        }
        if steps > nodes.len() {
            parent[i] = 0;
        }
    }
    let depth = |mut i: usize| {
        let mut d = 0;
        while i != 0 {
            i = parent[i];
            d += 1;
        }
        d
    };
    let mut order: Vec<usize> = (1..nodes.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(depth(i)));
    for i in order {
        let Some(sub) = nodes[i].take() else { continue };
        match parent[i] {
            0 => main.subagents.push(sub),
            p => {
                if let Some(owner) = nodes[p].as_mut() {
                    owner.subagents.push(sub);
                }
            }
        }
    }
    sort_subagents(&mut main);
    main
}

/// Orders subagents by the position of their spawning call, unlinked ones last, by id.
fn sort_subagents(session: &mut Session) {
    let position: HashMap<&str, u64> = session
        .events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::ToolCall(c) => Some((c.call_id.as_str(), e.seq)),
            _ => None,
        })
        .collect();
    let mut keyed: Vec<(u64, String, Session)> = std::mem::take(&mut session.subagents)
        .into_iter()
        .map(|s| {
            let pos = s
                .spawned_by
                .as_deref()
                .and_then(|c| position.get(c))
                .copied();
            (pos.unwrap_or(u64::MAX), s.id.clone(), s)
        })
        .collect();
    keyed.sort_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
    session.subagents = keyed.into_iter().map(|(_, _, s)| s).collect();
    for sub in &mut session.subagents {
        sort_subagents(sub);
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

    #[test]
    fn maps_tool_names() {
        assert_eq!(tool_kind("Bash"), ToolKind::Shell);
        assert_eq!(tool_kind("MultiEdit"), ToolKind::PatchFile);
        assert_eq!(tool_kind("Task"), ToolKind::Subagent);
        assert_eq!(tool_kind("mcp__github__search"), ToolKind::Other);
        assert_eq!(tool_kind("bash"), ToolKind::Other);
    }
}
