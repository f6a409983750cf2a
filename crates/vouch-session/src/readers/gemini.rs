//! Gemini CLI logs, in the three shapes it writes:
//!
//! - the saved chat file `~/.gemini/tmp/<project>/chats/session-*.json`: one JSON object
//!   (`sessionId`, `projectHash`, `startTime`, `lastUpdated`, `messages`), each `gemini` message
//!   carrying its `toolCalls` with their `functionResponse` results, status and token counts;
//! - the same as JSONL (`session-*.jsonl`, newer versions): a metadata line, then message records
//!   that are rewritten in full under their `id` as a turn goes on (the last one stands),
//!   `{"$set": …}` patches and `{"$rewindTo": id}` markers that drop that message and all after;
//! - `gemini -p --output-format stream-json` output: `init`, `message` (assistant text in
//!   `delta` pieces), `tool_use`, `tool_result`, `error` and `result` events.
//!
//! A shell call's result says `Exit Code: N` in its text even when the tool's status is
//! `success`: the exit code decides.

use std::borrow::Cow;
use std::io::Read;

use serde::Deserialize;
use serde_json::value::RawValue;

use crate::driver::{LineError, LineSink, drive};
use crate::error::Error;
use crate::event::{Actor, EventKind, Role};
use crate::hash::FastMap;
use crate::output::{Encoding, Output};
use crate::readers::common::{self, Count, Events};
use crate::readers::descriptor::{Descriptor, Match, Sniff};
use crate::readers::document;
use crate::session::{Agent, Format, Session, Usage};
use crate::source::{Input, ReadOptions, ReadReport};
use crate::tool::{Args, Outcome, ToolCall, ToolKind, ToolResult};

/// Maps a Gemini CLI tool name to its kind (decision G7).
pub(crate) fn tool_kind(name: &str) -> ToolKind {
    match name {
        "run_shell_command" | "shell" => ToolKind::Shell,
        "write_file" => ToolKind::WriteFile,
        "replace" | "edit" | "smart_edit" => ToolKind::PatchFile,
        "read_file" | "read_many_files" => ToolKind::ReadFile,
        "glob" | "search_file_content" | "grep_search" | "grep" | "list_directory" | "ls" => {
            ToolKind::Search
        }
        "web_fetch" | "google_web_search" | "web_search" => ToolKind::Web,
        "codebase_investigator" | "delegate_to_agent" => ToolKind::Subagent,
        _ => ToolKind::Other,
    }
}

/// The Gemini CLI format.
pub(crate) const DESCRIPTOR: Descriptor = Descriptor {
    format: Format::Gemini,
    label: "Gemini CLI",
    read: |reader, input, options| read(reader, input, options),
    tool_kind,
    turns: None,
    sniff: Sniff {
        document: is_chat_document,
        record: sniff_record,
        keys: &[("\"projectHash\"", Match::Sure)],
    },
};

/// A saved chat file: an object with `messages` and Gemini's session keys.
fn is_chat_document(head: &[u8]) -> bool {
    if head.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'{') {
        return false;
    }
    let keys = document::top_level_keys(head);
    let has = |k: &str| keys.iter().any(|key| key == k);
    has("messages") && (has("sessionId") || has("projectHash"))
}

/// The record types of a chat file's messages.
const MESSAGE_TYPES: &[&str] = &["user", "gemini", "model", "info", "error", "warning"];

/// Chat-file records (metadata, messages, `$set`, `$rewindTo`) and stream events are surely
/// Gemini CLI's.
fn sniff_record(record: &serde_json::Map<String, serde_json::Value>) -> Match {
    let has = |key: &str| record.contains_key(key);
    let kind = record.get("type").and_then(serde_json::Value::as_str);
    let sure = match kind {
        _ if has("$set") || has("$rewindTo") => true,
        None => has("sessionId") && has("projectHash"),
        Some("init") => has("session_id") && !has("subtype"),
        Some("tool_use") => has("tool_name") && has("tool_id"),
        Some("tool_result") => has("tool_id"),
        Some("message") => {
            has("role")
                && record
                    .get("content")
                    .is_some_and(serde_json::Value::is_string)
        }
        Some("result") => has("stats") && !has("subtype"),
        Some(kind) => {
            MESSAGE_TYPES.contains(&kind)
                && has("id")
                && has("content")
                && !has("message")
                && !has("role")
        }
    };
    if sure { Match::Sure } else { Match::No }
}

/// Reads a Gemini CLI chat file (JSON or JSONL) or stream-json output.
pub(crate) fn read(
    mut reader: impl Read,
    input: &Input<'_>,
    options: &ReadOptions,
) -> Result<ReadReport, Error> {
    let bytes = document::read_all(&mut reader, input)?;
    let mut log = GeminiLog::default();
    let diagnostics = if is_chat_document(&bytes) {
        let text = document::text(&bytes, input)?;
        let doc = document::parse(text, input, options, true)?;
        if let Some(id) = doc.field("sessionId") {
            log.id = serde_json::from_str(id.get()).ok();
        }
        doc.each_message(input, options, |raw, line| {
            let message: ChatMessage<'_> = serde_json::from_str(raw.get())?;
            log.chat_message(&message, Some(line));
            Ok(())
        })?
    } else {
        let diagnostics = drive(bytes.as_slice(), input, options, &mut log)?;
        log.replay_records();
        diagnostics
    };
    let mut session = Session {
        id: log.id.unwrap_or_default(),
        agent: Agent::Other("gemini-cli".to_owned()),
        model: log.model,
        usage: log.usage,
        source: Some(input.source(Format::Gemini)),
        events: log.events.events,
        ..Session::default()
    };
    let mut diagnostics = diagnostics;
    if let (Some(path), false) = (input.path, options.no_subagents) {
        let files = subagent_files(path, &session.id);
        common::attach_subagents(
            &mut session,
            &mut diagnostics,
            files,
            (input, options),
            read,
            link,
        )?;
    }
    Ok(ReadReport {
        session,
        diagnostics,
    })
}

/// Returns the chats of the subagents a session started: Gemini CLI keeps them in a folder
/// named after the session, beside its own chat file (`chats/<session id>/*.json[l]`).
fn subagent_files(path: &std::path::Path, session_id: &str) -> Vec<std::path::PathBuf> {
    let Some(dir) = path.parent().filter(|_| !session_id.is_empty()) else {
        return Vec::new();
    };
    common::log_files(&dir.join(session_id), &["json", "jsonl"])
}

/// Links a subagent to the subagent call of `parent` one of whose arguments is the
/// subagent's first prompt (`objective`, `prompt`, …), and names it after the tool.
fn link(parent: &Session, sub: &mut Session) {
    let spawning = common::spawning_call(parent, sub, |call, prompt| {
        call.args.value().as_object().is_some_and(|args| {
            args.values()
                .any(|v| v.as_str().map(str::trim) == Some(prompt))
        })
    });
    if let Some(call) = spawning {
        sub.spawned_by = Some(call.call_id.clone());
        sub.name = Some(call.name.to_string());
    }
}

/// A message of a chat file.
#[derive(Deserialize)]
struct ChatMessage<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    timestamp: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    content: Option<&'a RawValue>,
    #[serde(rename = "toolCalls", borrow, default)]
    tool_calls: Option<Vec<ChatToolCall<'a>>>,
    #[serde(default)]
    tokens: Option<Tokens>,
    #[serde(borrow, default)]
    model: Option<Cow<'a, str>>,
}

/// A tool call recorded in a `gemini` message, with its result.
#[derive(Deserialize)]
struct ChatToolCall<'a> {
    #[serde(borrow, default)]
    id: Option<Cow<'a, str>>,
    #[serde(borrow)]
    name: Cow<'a, str>,
    #[serde(borrow, default)]
    args: Option<&'a RawValue>,
    #[serde(borrow, default)]
    result: Option<&'a RawValue>,
    #[serde(borrow, default)]
    status: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    timestamp: Option<Cow<'a, str>>,
    #[serde(rename = "resultDisplay", borrow, default)]
    result_display: Option<&'a RawValue>,
}

/// A message's token counts; `input` includes the `cached` ones.
#[derive(Deserialize)]
struct Tokens {
    #[serde(default)]
    input: Option<Count>,
    #[serde(default)]
    output: Option<Count>,
    #[serde(default)]
    cached: Option<Count>,
    #[serde(default)]
    thoughts: Option<Count>,
}

impl Tokens {
    fn usage(&self) -> Usage {
        let n = |c: &Option<Count>| c.as_ref().map_or(0, |c| c.0);
        Usage {
            input: n(&self.input).saturating_sub(n(&self.cached)),
            output: n(&self.output) + n(&self.thoughts),
            cache_read: n(&self.cached),
            cache_write: 0,
        }
    }
}

/// One JSONL line: a chat-file record or a stream event; only the keys vouch uses.
#[derive(Deserialize)]
struct Line<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    id: Option<Cow<'a, str>>,
    #[serde(rename = "sessionId", alias = "session_id", borrow, default)]
    session_id: Option<Cow<'a, str>>,
    #[serde(rename = "$set", borrow, default)]
    set: Option<&'a RawValue>,
    #[serde(rename = "$rewindTo", borrow, default)]
    rewind_to: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    timestamp: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    model: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    role: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    content: Option<&'a RawValue>,
    #[serde(default)]
    delta: Option<bool>,
    #[serde(borrow, default)]
    tool_name: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    tool_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    parameters: Option<&'a RawValue>,
    #[serde(borrow, default)]
    status: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    output: Option<&'a RawValue>,
    #[serde(borrow, default)]
    error: Option<&'a RawValue>,
    #[serde(borrow, default)]
    message: Option<Cow<'a, str>>,
    #[serde(default)]
    stats: Option<StreamStats>,
}

/// The `stats` of a stream's `result` event.
#[derive(Deserialize)]
struct StreamStats {
    #[serde(default)]
    input_tokens: Option<Count>,
    #[serde(default)]
    output_tokens: Option<Count>,
    #[serde(default)]
    cached: Option<Count>,
}

/// The `$set` patch of a chat file: messages it carries are recorded like bare ones.
#[derive(Deserialize)]
struct SetPatch<'a> {
    #[serde(borrow, default)]
    messages: Option<Vec<&'a RawValue>>,
    #[serde(rename = "sessionId", borrow, default)]
    session_id: Option<Cow<'a, str>>,
}

/// The state of a Gemini CLI log being read.
#[derive(Default)]
struct GeminiLog {
    events: Events,
    id: Option<String>,
    model: Option<String>,
    usage: Option<Usage>,
    /// JSONL chat-file messages by id, in the order first seen: the line and text of the
    /// latest version of each.
    records: Vec<(String, u64, String)>,
    /// The position of each id in `records`.
    position: FastMap<String, usize>,
    /// True while the latest event is assistant text built from stream deltas.
    in_delta: bool,
}

impl LineSink for GeminiLog {
    fn line(&mut self, text: &str, number: u64, _offset: u64) -> Result<(), LineError> {
        LineError::expect_object(text)?;
        let line: Line<'_> = serde_json::from_str(text)?;
        if let Some(target) = &line.rewind_to {
            if let Some(at) = self.position.get(target.as_ref()).copied() {
                for (id, _, _) in self.records.drain(at..) {
                    self.position.remove(&id);
                }
            }
            return Ok(());
        }
        if let Some(set) = line.set {
            let patch: SetPatch<'_> =
                serde_json::from_str(set.get()).map_err(|e| LineError::nested("$set", &e))?;
            if self.id.is_none() {
                self.id = patch.session_id.as_deref().map(str::to_owned);
            }
            for raw in patch.messages.into_iter().flatten() {
                self.record(raw.get(), number)?;
            }
            return Ok(());
        }
        let ts = common::timestamp(line.timestamp.as_deref());
        match line.kind.as_deref() {
            None => {
                // The metadata line.
                if self.id.is_none() {
                    self.id = line.session_id.as_deref().map(str::to_owned);
                }
            }
            Some(kind) if line.id.is_some() && MESSAGE_TYPES.contains(&kind) => {
                self.record(text, number)?;
            }
            Some("init") => {
                self.id = line.session_id.as_deref().map(str::to_owned);
                self.model = line.model.as_deref().map(str::to_owned);
            }
            Some("message") => self.stream_message(&line, ts, number)?,
            Some("tool_use") => {
                self.in_delta = false;
                let name = line.tool_name.as_deref().unwrap_or_default();
                let call = ToolCall {
                    call_id: line.tool_id.as_deref().unwrap_or_default().to_owned(),
                    name: crate::names::tool_name(name),
                    kind: tool_kind(name),
                    args: line.parameters.map_or_else(Args::default, Args::from_raw),
                };
                self.events
                    .call(Actor::new(Role::Assistant), ts, Some(number), call);
            }
            Some("tool_result") => {
                self.in_delta = false;
                let call_id = line.tool_id.as_deref().unwrap_or_default().to_owned();
                let text = match (line.output, line.error) {
                    (Some(out), _) if out.get() != "null" => decode(out),
                    (_, Some(err)) => error_text(err),
                    _ => String::new(),
                };
                let kind = self.kind_of(&call_id);
                let outcome =
                    outcome(line.status.as_deref(), kind, &text).unwrap_or(Outcome::Error);
                let result = ToolResult {
                    call_id,
                    output: Output::inline(text),
                    outcome,
                };
                self.events
                    .result(Actor::new(Role::Tool), ts, Some(number), result);
            }
            Some("error") => {
                self.in_delta = false;
                let text = line.message.as_deref().unwrap_or_default();
                self.events
                    .message(Actor::new(Role::System), ts, Some(number), text.to_owned());
            }
            Some("result") => {
                if let Some(stats) = &line.stats {
                    let n = |c: &Option<Count>| c.as_ref().map_or(0, |c| c.0);
                    self.usage = Some(Usage {
                        input: n(&stats.input_tokens).saturating_sub(n(&stats.cached)),
                        output: n(&stats.output_tokens),
                        cache_read: n(&stats.cached),
                        cache_write: 0,
                    });
                }
            }
            // Record and event types added after this reader was written carry no events.
            Some(_) => {}
        }
        Ok(())
    }
}

impl GeminiLog {
    /// Records the latest version of a chat-file message, keyed by its id.
    fn record(&mut self, text: &str, line: u64) -> Result<(), LineError> {
        #[derive(Deserialize)]
        struct Id<'a> {
            #[serde(borrow)]
            id: Cow<'a, str>,
        }
        let Id { id } = serde_json::from_str(text)?;
        match self.position.get(id.as_ref()).copied() {
            Some(at) => {
                let record = &mut self.records[at];
                record.1 = line;
                text.clone_into(&mut record.2);
            }
            None => {
                self.position.insert(id.to_string(), self.records.len());
                self.records.push((id.into_owned(), line, text.to_owned()));
            }
        }
        Ok(())
    }

    /// Turns the JSONL chat-file messages that stand into events, in order.
    fn replay_records(&mut self) {
        self.position.clear();
        for (_, line, text) in std::mem::take(&mut self.records) {
            // Each record was parsed once already when it was read.
            if let Ok(message) = serde_json::from_str::<ChatMessage<'_>>(&text) {
                self.chat_message(&message, Some(line));
            }
        }
    }

    /// Adds the events of one chat-file message.
    fn chat_message(&mut self, m: &ChatMessage<'_>, line: Option<u64>) {
        let ts = common::timestamp(m.timestamp.as_deref());
        let text = m.content.map(decode).unwrap_or_default();
        let role = match m.kind.as_deref() {
            Some("user") => Role::User,
            Some("gemini" | "model") => Role::Assistant,
            _ => Role::System,
        };
        self.events.message(Actor::new(role), ts, line, text);
        if role == Role::Assistant {
            if self.model.is_none() {
                self.model = m.model.as_deref().map(str::to_owned);
            }
            if let Some(tokens) = &m.tokens {
                *self.usage.get_or_insert_default() += tokens.usage();
            }
        }
        for (i, call) in m.tool_calls.iter().flatten().enumerate() {
            let call_ts = common::timestamp(call.timestamp.as_deref()).or(ts);
            let call_id = call.id.as_deref().map_or_else(
                || format!("gemini-{}-{i}", line.unwrap_or_default()),
                str::to_owned,
            );
            let kind = tool_kind(&call.name);
            self.events.call(
                Actor::new(Role::Assistant),
                call_ts,
                line,
                ToolCall {
                    call_id: call_id.clone(),
                    name: crate::names::tool_name(&call.name),
                    kind,
                    args: call.args.map_or_else(Args::default, Args::from_raw),
                },
            );
            let text = match (call.result, call.result_display) {
                (Some(result), _) if result.get() != "null" => function_response_text(result),
                (_, Some(display)) => decode(display),
                _ => String::new(),
            };
            let has_result = call.result.is_some_and(|r| r.get() != "null");
            let status = call.status.as_deref().or(has_result.then_some("success"));
            // A call still scheduled, awaiting approval or running has no result yet.
            if let Some(outcome) = outcome(status, kind, &text) {
                self.events.result(
                    Actor::new(Role::Tool),
                    call_ts,
                    line,
                    ToolResult {
                        call_id,
                        output: Output::inline(text),
                        outcome,
                    },
                );
            }
        }
    }

    /// Adds a stream `message` event: assistant `delta` pieces join the text before them.
    fn stream_message(
        &mut self,
        line: &Line<'_>,
        ts: Option<jiff::Timestamp>,
        number: u64,
    ) -> Result<(), LineError> {
        let text = match line.content {
            Some(raw) => Encoding::ContentBlocks
                .decode(raw.get())
                .map_err(|e| LineError::nested("content", &e))?,
            None => String::new(),
        };
        let role = match line.role.as_deref() {
            Some("user") => Role::User,
            Some("assistant" | "model" | "gemini") => Role::Assistant,
            _ => Role::System,
        };
        if role == Role::Assistant
            && line.delta == Some(true)
            && self.in_delta
            && let Some(last) = self.events.events.last_mut()
            && let EventKind::Message(m) = &mut last.kind
        {
            m.text.push_str(&text);
            return Ok(());
        }
        let before = self.events.events.len();
        self.events
            .message(Actor::new(role), ts, Some(number), text);
        self.in_delta = role == Role::Assistant
            && line.delta == Some(true)
            && self.events.events.len() > before;
        Ok(())
    }

    /// Returns the kind of the call `call_id`, searching from the end.
    fn kind_of(&self, call_id: &str) -> ToolKind {
        self.events
            .events
            .iter()
            .rev()
            .filter_map(|e| e.as_tool_call())
            .find(|c| c.call_id == call_id)
            .map_or(ToolKind::Other, |c| c.kind)
    }
}

/// Returns the outcome of a call by its status, or `None` while it has none: `success` (unless
/// a shell call's text reports a non-zero `Exit Code`), `error`, `cancelled` (refused or
/// stopped by the person).
fn outcome(status: Option<&str>, kind: ToolKind, text: &str) -> Option<Outcome> {
    match status? {
        "success" => Some(match (kind, exit_code(text)) {
            (ToolKind::Shell, Some(code)) => Outcome::from_exit_code(code),
            _ => Outcome::Ok,
        }),
        "error" => Some(match (kind, exit_code(text)) {
            (ToolKind::Shell, Some(code)) if code != 0 => Outcome::from_exit_code(code),
            _ => Outcome::Error,
        }),
        "cancelled" => Some(Outcome::Denied),
        _ => None,
    }
}

/// Returns the `Exit Code: N` a shell tool's text reports.
fn exit_code(text: &str) -> Option<i64> {
    text.lines()
        .find_map(|l| l.trim_start().strip_prefix("Exit Code: "))
        .and_then(|c| c.trim().parse().ok())
}

/// Returns the text of a string or of content parts (`[{text}]`); anything else as JSON.
fn decode(raw: &RawValue) -> String {
    Encoding::ContentBlocks
        .decode(raw.get())
        .unwrap_or_else(|_| raw.get().to_owned())
}

/// Returns the text of a stream `tool_result`'s `error` (`{type, message}` or a string).
fn error_text(raw: &RawValue) -> String {
    #[derive(Deserialize)]
    struct ErrorObject {
        message: String,
    }
    serde_json::from_str::<ErrorObject>(raw.get()).map_or_else(|_| decode(raw), |e| e.message)
}

/// Returns the text of a tool call's `result`: the `output` (or `error`) of each part's
/// `functionResponse.response`, joined; parts of other shapes by their text.
fn function_response_text(raw: &RawValue) -> String {
    #[derive(Deserialize)]
    struct Part<'a> {
        #[serde(rename = "functionResponse", borrow, default)]
        function_response: Option<FunctionResponse<'a>>,
        #[serde(borrow, default)]
        text: Option<Cow<'a, str>>,
    }
    #[derive(Deserialize)]
    struct FunctionResponse<'a> {
        #[serde(borrow, default)]
        response: Option<&'a RawValue>,
    }
    #[derive(Deserialize)]
    struct Response<'a> {
        #[serde(borrow, default)]
        output: Option<Cow<'a, str>>,
        #[serde(borrow, default)]
        error: Option<Cow<'a, str>>,
    }
    let parts: Vec<Part<'_>> = match serde_json::from_str::<Vec<Part<'_>>>(raw.get()) {
        Ok(parts) => parts,
        Err(_) => match serde_json::from_str::<Part<'_>>(raw.get()) {
            Ok(part) => vec![part],
            Err(_) => return decode(raw),
        },
    };
    let mut out: Vec<String> = Vec::new();
    for part in parts {
        if let Some(response) = part.function_response.and_then(|f| f.response) {
            match serde_json::from_str::<Response<'_>>(response.get()) {
                Ok(
                    Response {
                        output: Some(text), ..
                    }
                    | Response {
                        error: Some(text), ..
                    },
                ) => out.push(text.into_owned()),
                _ => out.push(response.get().to_owned()),
            }
        } else if let Some(text) = part.text {
            out.push(text.into_owned());
        }
    }
    out.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_tool_names() {
        assert_eq!(tool_kind("run_shell_command"), ToolKind::Shell);
        assert_eq!(tool_kind("replace"), ToolKind::PatchFile);
        assert_eq!(tool_kind("write_file"), ToolKind::WriteFile);
        assert_eq!(tool_kind("google_web_search"), ToolKind::Web);
        assert_eq!(tool_kind("save_memory"), ToolKind::Other);
    }

    #[test]
    fn shell_text_exit_codes_decide() {
        let text = "Command: cargo test\nOutput: boom\nExit Code: 101\nSignal: (none)";
        assert_eq!(
            outcome(Some("success"), ToolKind::Shell, text),
            Some(Outcome::Failed {
                exit_code: Some(101)
            })
        );
        assert_eq!(
            outcome(Some("success"), ToolKind::ReadFile, text),
            Some(Outcome::Ok)
        );
        assert_eq!(outcome(Some("executing"), ToolKind::Shell, ""), None);
        assert_eq!(
            outcome(Some("cancelled"), ToolKind::Shell, ""),
            Some(Outcome::Denied)
        );
    }
}
