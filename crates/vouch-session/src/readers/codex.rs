//! Codex CLI logs: rollout files (`~/.codex/sessions/.../rollout-*.jsonl`, with `session_meta`,
//! `response_item`, `event_msg` and `turn_context` records, and the legacy layout whose lines
//! are bare response items), and the event stream of `codex exec --json`.
//!
//! Tool calls are `function_call`, `custom_tool_call` (`apply_patch`) and `local_shell_call`
//! items; their results are the `*_output` items. Structured end events (`exec_command_end`
//! with `exit_code`, `patch_apply_end`, `mcp_tool_call_end`) decide the outcome wherever they
//! appear, before or after the output item. Messages are taken from `response_item`s; the
//! `event_msg` copies of them are used only by logs that have no message items. Record types
//! this reader does not know are skipped.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::io::Read;
use std::path::{Path, PathBuf};

use jiff::Timestamp;
use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::driver::{LineError, LineSink, drive};
use crate::error::Error;
use crate::event::{Actor, EventKind, Role};
use crate::output::{Encoding, Output};
use crate::readers::common::{self, Events};
use crate::readers::descriptor::{Descriptor, Match, Sniff};
use crate::session::{Agent, Format, Session, Usage};
use crate::source::{Input, ReadOptions, ReadReport};
use crate::tail::Turns;
use crate::tool::{Args, Outcome, ToolCall, ToolKind, ToolResult};

/// Maps a Codex tool name to its kind (decision G7). MCP tools and names not listed are
/// [`ToolKind::Other`].
pub(crate) fn tool_kind(name: &str) -> ToolKind {
    match name {
        "shell" | "exec_command" | "local_shell" | "local_shell_call" | "container.exec"
        | "shell_command" | "unified_exec" | "command_execution" => ToolKind::Shell,
        "apply_patch" | "file_change" => ToolKind::PatchFile,
        "read_file" | "view_image" => ToolKind::ReadFile,
        "list_dir" | "grep_files" => ToolKind::Search,
        "spawn_agent" => ToolKind::Subagent,
        "web_search" | "web_search_call" | "web_fetch" => ToolKind::Web,
        _ => ToolKind::Other,
    }
}

/// The Codex format.
pub(crate) const DESCRIPTOR: Descriptor = Descriptor {
    format: Format::Codex,
    label: "Codex",
    read: |reader, input, options| read(reader, input, options),
    tool_kind,
    turns: Some(Turns::of_lines(starts_turn)),
    sniff: Sniff::lines(sniff_record, &[("\"payload\"", Match::Sure)]),
};

/// Record types of Codex rollouts, `codex exec --json` streams, and legacy Codex rollouts whose
/// lines are bare response items.
const CODEX_TYPES: &[&str] = &[
    "session_meta",
    "response_item",
    "event_msg",
    "turn_context",
    "compacted",
    "world_state",
    "turn_aborted",
    "thread_settings_applied",
    "thread.started",
    "turn.started",
    "turn.completed",
    "turn.failed",
    "item.started",
    "item.updated",
    "item.completed",
    "function_call",
    "function_call_output",
    "custom_tool_call",
    "custom_tool_call_output",
    "local_shell_call",
    "reasoning",
];

/// A record of a Codex type, a legacy bare message item, or a legacy rollout's first line
/// (`{"id", "timestamp", "instructions"}`) is surely Codex.
fn sniff_record(record: &serde_json::Map<String, serde_json::Value>) -> Match {
    let has = |key: &str| record.contains_key(key);
    let kind = record.get("type").and_then(serde_json::Value::as_str);
    let sure = match kind {
        Some(kind) => {
            (CODEX_TYPES.contains(&kind) && (has("payload") || !has("role")))
                || (kind == "message" && has("role"))
        }
        None => has("instructions") && !has("role"),
    };
    // A rollout record of a type added after this reader was written: `{timestamp, type,
    // payload}` and nothing else.
    let sure = sure || (kind.is_some() && has("timestamp") && has("payload") && record.len() == 3);
    if sure { Match::Sure } else { Match::No }
}

/// How deep spawned agents' rollouts are followed.
const MAX_SPAWN_DEPTH: usize = 8;

/// Reads a Codex log and, when it is a file, the rollouts of the agents it spawned that sit in
/// the same folder.
pub(crate) fn read(
    reader: impl Read,
    input: &Input<'_>,
    options: &ReadOptions,
) -> Result<ReadReport, Error> {
    let mut visited = HashSet::new();
    read_nested(reader, input, options, 0, &mut visited)
}

fn read_nested(
    reader: impl Read,
    input: &Input<'_>,
    options: &ReadOptions,
    depth: usize,
    visited: &mut HashSet<PathBuf>,
) -> Result<ReadReport, Error> {
    let mut log = CodexLog::new(input);
    let mut diagnostics = drive(reader, input, options, &mut log)?;
    let spawns = std::mem::take(&mut log.spawns);
    let mut session = log.finish(input);
    if let Some(path) = input.path {
        visited.insert(path.to_owned());
    }
    for (call_id, thread_id) in spawns {
        let file = input
            .path
            .filter(|_| !options.no_subagents && depth < MAX_SPAWN_DEPTH)
            .and_then(|p| spawned_rollout(p, &thread_id))
            .filter(|f| !visited.contains(f));
        let mut sub = match file {
            Some(file) => {
                tracing::debug!(path = %file.display(), thread = %thread_id, "reading spawned agent's rollout");
                let sub_input = Input::file(&file, input.spill);
                let reader = std::fs::File::open(&file).map_err(|e| Error::io(&file, e))?;
                let report = read_nested(reader, &sub_input, options, depth + 1, visited)?;
                diagnostics.extend(report.diagnostics);
                report.session
            }
            // The spawned agent's rollout is not beside this one: the spawn is still recorded.
            None => Session {
                id: thread_id.clone(),
                agent: Agent::Codex,
                ..Session::default()
            },
        };
        sub.spawned_by = Some(call_id.clone());
        if sub.name.is_none() {
            sub.name = session
                .tool_calls()
                .find(|c| c.call_id == call_id)
                .and_then(|c| c.arg_str("task_name").or_else(|| c.arg_str("agent_type")))
                .map(str::to_owned);
        }
        session.subagents.push(sub);
    }
    Ok(ReadReport {
        session,
        diagnostics,
    })
}

/// Returns the rollout of thread `thread_id` in the folder of `parent`, if there is one.
fn spawned_rollout(parent: &Path, thread_id: &str) -> Option<PathBuf> {
    let dir = parent.parent()?;
    common::log_files(dir, &["jsonl"]).into_iter().find(|p| {
        p.file_stem()
            .is_some_and(|s| s.to_string_lossy().ends_with(thread_id))
            && p != parent
    })
}

/// One line: a rollout record, a `codex exec --json` event, or a legacy bare item.
#[derive(Deserialize)]
struct Record<'a> {
    #[serde(rename = "type", borrow, default, deserialize_with = "common::opt_cow")]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "common::opt_cow")]
    timestamp: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    payload: Option<&'a RawValue>,
    #[serde(borrow, default)]
    item: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "common::opt_cow")]
    thread_id: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "common::opt_cow")]
    id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    usage: Option<&'a RawValue>,
}

/// A response item (`message`, `function_call`, ...) or an `exec --json` item.
#[derive(Deserialize)]
struct Item<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    #[serde(borrow, default, deserialize_with = "common::opt_cow")]
    role: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    content: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "common::opt_cow")]
    text: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "common::opt_cow")]
    name: Option<Cow<'a, str>>,
    /// The namespace of a namespaced tool (`mcp__node_repl__` for MCP tools, `functions`).
    #[serde(borrow, default, deserialize_with = "common::opt_cow")]
    namespace: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    arguments: Option<&'a RawValue>,
    #[serde(borrow, default)]
    input: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "common::opt_cow")]
    call_id: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "common::opt_cow")]
    id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    output: Option<&'a RawValue>,
    #[serde(borrow, default)]
    action: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "common::opt_cow")]
    status: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    command: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "common::opt_cow")]
    aggregated_output: Option<Cow<'a, str>>,
    #[serde(default)]
    exit_code: Option<i64>,
    #[serde(borrow, default)]
    changes: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "common::opt_cow")]
    server: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "common::opt_cow")]
    tool: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    result: Option<&'a RawValue>,
    #[serde(borrow, default)]
    error: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "common::opt_cow")]
    query: Option<Cow<'a, str>>,
}

/// An `event_msg` payload.
#[derive(Deserialize)]
struct EventMsg<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    #[serde(borrow, default, deserialize_with = "common::opt_cow")]
    message: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "common::opt_cow")]
    call_id: Option<Cow<'a, str>>,
    #[serde(default)]
    exit_code: Option<i64>,
    #[serde(borrow, default, deserialize_with = "common::opt_cow")]
    aggregated_output: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "common::opt_cow")]
    stdout: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "common::opt_cow")]
    stderr: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "common::opt_cow")]
    status: Option<Cow<'a, str>>,
    #[serde(default)]
    success: Option<bool>,
    #[serde(borrow, default, deserialize_with = "common::opt_cow")]
    new_thread_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    command: Option<&'a RawValue>,
    #[serde(borrow, default)]
    changes: Option<&'a RawValue>,
    #[serde(borrow, default)]
    result: Option<&'a RawValue>,
    #[serde(borrow, default)]
    info: Option<&'a RawValue>,
}

/// Token counts as Codex reports them: `input_tokens` includes the cached ones.
#[derive(Deserialize, Default)]
#[expect(clippy::struct_field_names, reason = "the keys Codex writes")]
struct TokenUsage {
    #[serde(default)]
    input_tokens: u64,
    #[serde(default)]
    cached_input_tokens: u64,
    #[serde(default)]
    output_tokens: u64,
}

impl TokenUsage {
    fn usage(&self) -> Usage {
        Usage {
            input: self.input_tokens.saturating_sub(self.cached_input_tokens),
            output: self.output_tokens,
            cache_read: self.cached_input_tokens,
            cache_write: 0,
        }
    }
}

/// The `info` of a `token_count` event: the session's running total.
#[derive(Deserialize)]
struct TokenInfo {
    #[serde(default)]
    total_token_usage: Option<TokenUsage>,
}

/// `session_meta` and `turn_context` payloads.
#[derive(Deserialize)]
struct Meta<'a> {
    #[serde(borrow, default, deserialize_with = "common::opt_cow")]
    id: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "common::opt_cow")]
    cwd: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "common::opt_cow")]
    model: Option<Cow<'a, str>>,
}

/// The state of a Codex log being read.
struct CodexLog<'i> {
    input: &'i Input<'i>,
    events: Events,
    /// Parallel to `events`: true for messages taken from `event_msg` copies.
    from_event_msg: Vec<bool>,
    item_messages: bool,
    /// The kind of each call the log made, by call id.
    calls: HashMap<String, ToolKind>,
    /// How many tools each code-mode cell has run, by the cell's call id.
    nested: HashMap<String, u32>,
    /// `(call id, thread id)` of spawned agents.
    spawns: Vec<(String, String)>,
    id: Option<String>,
    cwd: Option<String>,
    model: Option<String>,
    /// The latest running total of a rollout's `token_count` events.
    total_usage: Option<Usage>,
    /// The sum of an `exec --json` stream's per-turn usage.
    turn_usage: Option<Usage>,
}

impl LineSink for CodexLog<'_> {
    fn line(&mut self, text: &str, number: u64, offset: u64) -> Result<(), LineError> {
        LineError::expect_object(text)?;
        let rec: Record<'_> = serde_json::from_str(text)?;
        let ts = common::timestamp(rec.timestamp.as_deref());
        let at = At {
            ts,
            line: number,
            text,
            offset,
        };
        let kind = rec.kind.as_deref().unwrap_or("");
        match (kind, rec.payload, rec.item) {
            ("session_meta" | "turn_context", Some(payload), _) => {
                let meta: Meta<'_> = serde_json::from_str(payload.get())
                    .map_err(|e| LineError::nested("payload", &e))?;
                if kind == "session_meta" && self.id.is_none() {
                    self.id = meta.id.as_deref().map(str::to_owned);
                }
                if self.cwd.is_none() {
                    self.cwd = meta.cwd.as_deref().map(str::to_owned);
                }
                if meta.model.is_some() {
                    self.model = meta.model.as_deref().map(str::to_owned);
                }
                Ok(())
            }
            ("response_item", Some(payload), _) => {
                let item: Item<'_> = serde_json::from_str(payload.get())
                    .map_err(|e| LineError::nested("payload", &e))?;
                self.response_item(&item, &at)
            }
            ("event_msg", Some(payload), _) => {
                let msg: EventMsg<'_> = serde_json::from_str(payload.get())
                    .map_err(|e| LineError::nested("payload", &e))?;
                self.event_msg(&msg, &at);
                Ok(())
            }
            ("turn.completed", _, _) => {
                if let Some(usage) = rec
                    .usage
                    .and_then(|u| serde_json::from_str::<TokenUsage>(u.get()).ok())
                {
                    *self.turn_usage.get_or_insert_default() += usage.usage();
                }
                Ok(())
            }
            ("thread.started", _, _) => {
                if self.id.is_none() {
                    self.id = rec.thread_id.as_deref().map(str::to_owned);
                }
                Ok(())
            }
            ("item.started" | "item.updated" | "item.completed", _, Some(raw)) => {
                let item: Item<'_> =
                    serde_json::from_str(raw.get()).map_err(|e| LineError::nested("item", &e))?;
                self.exec_item(&item, kind == "item.completed", &at);
                Ok(())
            }
            (
                "message"
                | "function_call"
                | "function_call_output"
                | "custom_tool_call"
                | "custom_tool_call_output"
                | "local_shell_call"
                | "reasoning",
                None,
                None,
            ) => {
                let item: Item<'_> = serde_json::from_str(text)?;
                self.response_item(&item, &at)
            }
            ("", None, None) => {
                // The first line of a legacy rollout: `{"id", "timestamp", "instructions"}`.
                if self.id.is_none() {
                    self.id = rec.id.as_deref().map(str::to_owned);
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }
}

/// Where a record was found.
struct At<'a> {
    ts: Option<Timestamp>,
    line: u64,
    text: &'a str,
    offset: u64,
}

impl<'i> CodexLog<'i> {
    fn new(input: &'i Input<'i>) -> CodexLog<'i> {
        CodexLog {
            input,
            events: Events::default(),
            from_event_msg: Vec::new(),
            item_messages: false,
            calls: HashMap::new(),
            nested: HashMap::new(),
            spawns: Vec::new(),
            id: None,
            cwd: None,
            model: None,
            total_usage: None,
            turn_usage: None,
        }
    }

    fn message(&mut self, role: Role, text: String, at: &At<'_>, from_event_msg: bool) {
        let before = self.events.events.len();
        self.events
            .message(Actor::new(role), at.ts, Some(at.line), text);
        if self.events.events.len() > before {
            self.from_event_msg.push(from_event_msg);
            self.item_messages |= !from_event_msg;
        }
    }

    fn push_call(&mut self, call: ToolCall, at: &At<'_>) {
        self.calls.insert(call.call_id.clone(), call.kind);
        self.events
            .call(Actor::new(Role::Assistant), at.ts, Some(at.line), call);
        self.from_event_msg.push(false);
    }

    fn push_result(&mut self, result: ToolResult, at: &At<'_>) {
        self.events
            .result(Actor::new(Role::Tool), at.ts, Some(at.line), result);
        self.from_event_msg.push(false);
    }

    fn response_item(&mut self, item: &Item<'_>, at: &At<'_>) -> Result<(), LineError> {
        match &*item.kind {
            "message" => {
                let text = match item.content {
                    Some(raw) => Encoding::ContentBlocks
                        .decode(raw.get())
                        .map_err(|e| LineError::nested("content", &e))?,
                    None => String::new(),
                };
                let role = match item.role.as_deref() {
                    Some("assistant") => Role::Assistant,
                    Some("user") if !is_injected_context(&text) => Role::User,
                    _ => Role::System,
                };
                self.message(role, text, at, false);
            }
            "function_call" | "custom_tool_call" => {
                let short = item.name.as_deref().unwrap_or_default();
                let name = namespaced(item.namespace.as_deref(), short);
                let call_id = call_id(item).ok_or_else(|| {
                    LineError::shape(format!("a `{}` item without `call_id`", item.kind))
                })?;
                let args = match (item.arguments, item.input) {
                    (Some(raw), _) => match serde_json::from_str::<Value>(raw.get()) {
                        Ok(Value::String(s)) => common::arguments(&s),
                        Ok(v) => v,
                        Err(e) => return Err(LineError::nested("arguments", &e)),
                    },
                    (None, Some(raw)) => match serde_json::from_str::<Value>(raw.get()) {
                        Ok(Value::String(s)) => serde_json::json!({ "input": s }),
                        Ok(v) => v,
                        Err(e) => return Err(LineError::nested("input", &e)),
                    },
                    (None, None) => Value::Object(serde_json::Map::new()),
                };
                let kind = match tool_kind(&name) {
                    // `functions__exec_command` is Codex's own tool in its default namespace;
                    // MCP namespaces keep their tools' kind `Other`.
                    ToolKind::Other if !name.starts_with("mcp__") => tool_kind(short),
                    kind => kind,
                };
                self.push_call(
                    ToolCall {
                        call_id,
                        name: crate::names::owned_tool_name(name),
                        kind,
                        args: args.into(),
                    },
                    at,
                );
            }
            "local_shell_call" => {
                let call_id = call_id(item).unwrap_or_default();
                let args =
                    common::value(item.action).map_err(|e| LineError::nested("action", &e))?;
                let command = args.get("command").cloned().unwrap_or(Value::Null);
                let call = ToolCall {
                    call_id,
                    name: "local_shell_call".into(),
                    kind: ToolKind::Shell,
                    args: Args::from_value(serde_json::json!({ "command": command })),
                };
                self.push_call(call, at);
            }
            "web_search_call" => {
                let call_id = call_id(item).unwrap_or_default();
                let args =
                    common::value(item.action).map_err(|e| LineError::nested("action", &e))?;
                let call = ToolCall {
                    call_id: call_id.clone(),
                    name: "web_search_call".into(),
                    kind: ToolKind::Web,
                    args: Args::from_value(args),
                };
                self.push_call(call, at);
                let outcome = match item.status.as_deref() {
                    Some("failed") => Outcome::Error,
                    _ => Outcome::Ok,
                };
                self.push_result(
                    ToolResult {
                        call_id,
                        output: Output::default(),
                        outcome,
                    },
                    at,
                );
            }
            "function_call_output" | "custom_tool_call_output" => {
                let call_id = call_id(item).ok_or_else(|| {
                    LineError::shape(format!("a `{}` item without `call_id`", item.kind))
                })?;
                let (output, outcome) = self.function_output(item.output, at)?;
                if self.events.find_result(&call_id).is_some() {
                    // An end event came first; its structured outcome stands.
                    self.events
                        .amend_result(&call_id, self.outcome_of(&call_id), Some(output));
                } else {
                    self.push_result(
                        ToolResult {
                            call_id,
                            output,
                            outcome,
                        },
                        at,
                    );
                }
            }
            // Reasoning is not kept; unknown item types are skipped.
            _ => {}
        }
        Ok(())
    }

    /// Returns the outcome already recorded for `call_id`.
    fn outcome_of(&self, call_id: &str) -> Outcome {
        self.events
            .find_result(call_id)
            .and_then(|i| self.events.events[i].as_tool_result())
            .map_or(Outcome::Ok, |r| r.outcome)
    }

    /// Reads a `*_output` item's output: a string (possibly JSON holding `output` and
    /// `metadata.exit_code`), an object with `content` and `success`, or content items.
    fn function_output(
        &self,
        raw: Option<&RawValue>,
        at: &At<'_>,
    ) -> Result<(Output, Outcome), LineError> {
        let Some(raw) = raw else {
            return Ok((Output::default(), Outcome::Ok));
        };
        if raw.get().trim_start().starts_with('{') {
            #[derive(Deserialize)]
            struct Payload<'a> {
                #[serde(borrow, default)]
                content: Option<&'a RawValue>,
                #[serde(default)]
                success: Option<bool>,
            }
            let p: Payload<'_> =
                serde_json::from_str(raw.get()).map_err(|e| LineError::nested("output", &e))?;
            let output =
                common::output(self.input, at.text, at.offset, p.content.map(RawValue::get))
                    .map_err(|e| LineError::nested("output.content", &e))?;
            let outcome = match p.success {
                Some(false) => Outcome::Error,
                _ => text_outcome(output.preview()),
            };
            return Ok((output, outcome));
        }
        let output = common::output(self.input, at.text, at.offset, Some(raw.get()))
            .map_err(|e| LineError::nested("output", &e))?;
        // Older Codex versions wrap the output in a JSON string with its exit code.
        if output.is_complete() && output.preview().starts_with("{\"output\"") {
            #[derive(Deserialize)]
            struct Wrapped {
                output: String,
                #[serde(default)]
                metadata: Option<WrappedMeta>,
            }
            #[derive(Deserialize)]
            struct WrappedMeta {
                #[serde(default)]
                exit_code: Option<i64>,
            }
            if let Ok(w) = serde_json::from_str::<Wrapped>(output.preview()) {
                let outcome = match w.metadata.and_then(|m| m.exit_code) {
                    Some(code) => Outcome::from_exit_code(code),
                    None => text_outcome(&w.output),
                };
                return Ok((Output::inline(w.output), outcome));
            }
        }
        let outcome = text_outcome(output.preview());
        Ok((output, outcome))
    }

    fn event_msg(&mut self, msg: &EventMsg<'_>, at: &At<'_>) {
        match &*msg.kind {
            "user_message" => {
                let text = common::text(msg.message.as_ref());
                self.message(Role::User, text, at, true);
            }
            "agent_message" => {
                let text = common::text(msg.message.as_ref());
                self.message(Role::Assistant, text, at, true);
            }
            "exec_command_end" => {
                let outcome = match (msg.exit_code, msg.status.as_deref()) {
                    (Some(code), _) => Outcome::from_exit_code(code),
                    (None, Some("failed")) => Outcome::Failed { exit_code: None },
                    (None, Some("declined")) => Outcome::Denied,
                    _ => Outcome::Ok,
                };
                let text = msg.aggregated_output.as_deref().map_or_else(
                    || join_streams(msg.stdout.as_deref(), msg.stderr.as_deref()),
                    str::to_owned,
                );
                let args = match msg.command.map(|c| serde_json::from_str::<Value>(c.get())) {
                    Some(Ok(command @ (Value::Array(_) | Value::String(_)))) => {
                        serde_json::json!({ "command": command })
                    }
                    _ => Value::Object(serde_json::Map::new()),
                };
                self.end_event(
                    msg.call_id.as_deref(),
                    "exec_command",
                    args,
                    outcome,
                    text,
                    at,
                );
            }
            "patch_apply_end" => {
                let outcome = match msg.success {
                    Some(false) => Outcome::Failed { exit_code: None },
                    _ => Outcome::Ok,
                };
                let text = join_streams(msg.stdout.as_deref(), msg.stderr.as_deref());
                let args = match msg.changes.map(|c| serde_json::from_str::<Value>(c.get())) {
                    Some(Ok(changes @ Value::Object(_))) => {
                        serde_json::json!({ "changes": changes })
                    }
                    _ => Value::Object(serde_json::Map::new()),
                };
                self.end_event(
                    msg.call_id.as_deref(),
                    "apply_patch",
                    args,
                    outcome,
                    text,
                    at,
                );
            }
            "token_count" => {
                if let Some(total) = msg
                    .info
                    .and_then(|i| serde_json::from_str::<TokenInfo>(i.get()).ok())
                    .and_then(|i| i.total_token_usage)
                {
                    self.total_usage = Some(total.usage());
                }
            }
            "mcp_tool_call_end" => {
                let failed = msg.result.is_some_and(|r| {
                    serde_json::from_str::<Value>(r.get()).is_ok_and(|v| {
                        v.get("Err").is_some()
                            || v.get("isError").and_then(Value::as_bool) == Some(true)
                    })
                });
                if let Some(call_id) = msg.call_id.as_deref() {
                    let outcome = if failed { Outcome::Error } else { Outcome::Ok };
                    self.events.amend_result(call_id, outcome, None);
                }
            }
            _ => {
                if let (Some(call), Some(thread)) =
                    (msg.call_id.as_deref(), msg.new_thread_id.as_deref())
                    && !self.spawns.iter().any(|(c, _)| c == call)
                {
                    self.spawns.push((call.to_owned(), thread.to_owned()));
                }
            }
        }
    }

    /// Applies a structured end event to the call it ends: it sets the outcome of an existing
    /// result, adds the result when the output item has not come yet, and records a call the
    /// model did not make itself — a command the user ran, or a command or patch a code-mode
    /// `exec` cell ran through `tools.exec_command` / `tools.apply_patch` — as a call of its own,
    /// so that what ran is evidence.
    fn end_event(
        &mut self,
        call_id: Option<&str>,
        name: &str,
        args: Value,
        outcome: Outcome,
        text: String,
        at: &At<'_>,
    ) {
        let mut call_id = call_id.unwrap_or_default().to_owned();
        let kind = tool_kind(name);
        let new_call = match self.calls.get(&call_id).copied() {
            // The end of a call the model made with this tool: its result, once.
            Some(k) if k == kind => {
                if self
                    .events
                    .amend_result(&call_id, outcome, Some(Output::inline(text.as_str())))
                {
                    return;
                }
                false
            }
            // A tool run inside another call (a code-mode cell): a call of its own, under an
            // id derived from the cell's.
            Some(_) => {
                let n = self.nested.entry(call_id.clone()).or_insert(0);
                *n += 1;
                call_id = format!("{call_id}#{n}");
                true
            }
            None => true,
        };
        if new_call {
            let call = ToolCall {
                call_id: call_id.clone(),
                name: crate::names::tool_name(name),
                kind,
                args: args.into(),
            };
            self.push_call(call, at);
        }
        self.push_result(
            ToolResult {
                call_id,
                output: Output::inline(text),
                outcome,
            },
            at,
        );
    }

    /// Handles an item of a `codex exec --json` stream.
    fn exec_item(&mut self, item: &Item<'_>, completed: bool, at: &At<'_>) {
        let id = item.id.as_deref().unwrap_or_default().to_owned();
        let (name, kind, args) = match &*item.kind {
            "agent_message" if completed => {
                let text = common::text(item.text.as_ref());
                self.message(Role::Assistant, text, at, false);
                return;
            }
            "command_execution" => {
                let command = item
                    .command
                    .and_then(|c| serde_json::from_str::<Value>(c.get()).ok());
                (
                    "command_execution".to_owned(),
                    ToolKind::Shell,
                    serde_json::json!({ "command": command }),
                )
            }
            "file_change" => {
                let changes = item
                    .changes
                    .and_then(|c| serde_json::from_str::<Value>(c.get()).ok());
                (
                    "file_change".to_owned(),
                    ToolKind::PatchFile,
                    serde_json::json!({ "changes": changes }),
                )
            }
            "mcp_tool_call" => {
                let name = format!(
                    "mcp__{}__{}",
                    item.server.as_deref().unwrap_or_default(),
                    item.tool.as_deref().unwrap_or_default()
                );
                let args = item
                    .arguments
                    .and_then(|a| serde_json::from_str::<Value>(a.get()).ok())
                    .unwrap_or(Value::Null);
                (name, ToolKind::Other, args)
            }
            "web_search" => {
                let query = item.query.as_deref().unwrap_or_default();
                (
                    "web_search".to_owned(),
                    ToolKind::Web,
                    serde_json::json!({ "query": query }),
                )
            }
            _ => return,
        };
        if !self.calls.contains_key(&id) {
            self.push_call(
                ToolCall {
                    call_id: id.clone(),
                    name: crate::names::owned_tool_name(name),
                    kind,
                    args: args.into(),
                },
                at,
            );
        }
        if !completed {
            return;
        }
        let status = item.status.as_deref();
        let outcome = match (item.exit_code, status) {
            (Some(code), _) => Outcome::from_exit_code(code),
            (None, Some("failed")) => Outcome::Failed { exit_code: None },
            (None, Some("declined")) => Outcome::Denied,
            _ => Outcome::Ok,
        };
        let text = match (&item.aggregated_output, item.result, item.error) {
            (Some(out), _, _) => out.to_string(),
            (None, _, Some(err)) => Encoding::ContentBlocks
                .decode(err.get())
                .unwrap_or_else(|_| err.get().to_owned()),
            (None, Some(res), None) => res.get().to_owned(),
            _ => String::new(),
        };
        let outcome = if item.error.is_some() && outcome == Outcome::Ok {
            Outcome::Error
        } else {
            outcome
        };
        self.push_result(
            ToolResult {
                call_id: id,
                output: Output::inline(text),
                outcome,
            },
            at,
        );
    }

    fn finish(self, input: &Input<'_>) -> Session {
        let mut events = self.events.events;
        if self.item_messages {
            let mut keep = self.from_event_msg.iter().map(|&dup| !dup);
            events.retain(|e| {
                keep.next().unwrap_or(true) || !matches!(e.kind, EventKind::Message(_))
            });
        }
        for (i, e) in events.iter_mut().enumerate() {
            e.seq = crate::event::seq_at(i);
        }
        Session {
            id: self.id.unwrap_or_default(),
            agent: Agent::Codex,
            cwd: self.cwd,
            model: self.model,
            usage: self.total_usage.or(self.turn_usage),
            source: Some(input.source(Format::Codex)),
            events,
            ..Session::default()
        }
    }
}

/// Returns true when `line` starts a turn: a user's message item (not injected context).
pub(crate) fn starts_turn(line: &str) -> bool {
    let Ok(rec) = serde_json::from_str::<Record<'_>>(line) else {
        return false;
    };
    let item = match (rec.kind.as_deref(), rec.payload) {
        (Some("response_item"), Some(payload)) => serde_json::from_str::<Item<'_>>(payload.get()),
        (Some("message"), None) => serde_json::from_str::<Item<'_>>(line),
        _ => return false,
    };
    let Ok(item) = item else { return false };
    if item.kind != "message" || item.role.as_deref() != Some("user") {
        return false;
    }
    let text = item
        .content
        .and_then(|c| Encoding::ContentBlocks.decode(c.get()).ok())
        .unwrap_or_default();
    !text.trim().is_empty() && !is_injected_context(&text)
}

/// Returns a namespaced tool's full name: `mcp__node_repl__` and `js` make `mcp__node_repl__js`
/// (a namespace ending in a separator is joined as it is, and so is a name that starts with
/// one — `mcp__codex_apps__github` and `_fetch_pr` make `mcp__codex_apps__github_fetch_pr`,
/// as Codex shows it —; any other pair with `__`).
fn namespaced(namespace: Option<&str>, name: &str) -> String {
    match namespace.filter(|n| !n.is_empty()) {
        None => name.to_owned(),
        Some(ns)
            if ns.ends_with("__")
                || ns.ends_with('.')
                || ns.ends_with('/')
                || name.starts_with('_') =>
        {
            format!("{ns}{name}")
        }
        Some(ns) => format!("{ns}__{name}"),
    }
}

fn call_id(item: &Item<'_>) -> Option<String> {
    item.call_id
        .as_deref()
        .or(item.id.as_deref())
        .map(str::to_owned)
}

fn join_streams(stdout: Option<&str>, stderr: Option<&str>) -> String {
    match (stdout.unwrap_or_default(), stderr.unwrap_or_default()) {
        (out, "") => out.to_owned(),
        ("", err) => err.to_owned(),
        (out, err) => format!("{out}\n{err}"),
    }
}

/// Returns true for the context Codex injects as user-role messages.
fn is_injected_context(text: &str) -> bool {
    let t = text.trim_start();
    [
        "<environment_context>",
        "<user_instructions>",
        "# AGENTS.md instructions",
        "<INSTRUCTIONS>",
    ]
    .iter()
    .any(|p| t.starts_with(p))
}

/// Classifies a Codex output by its text: `Exit code: N` and `Process exited with code N`
/// headers, then the bracket-prefix convention.
fn text_outcome(text: &str) -> Outcome {
    for line in text.lines().take(6) {
        let code = line
            .strip_prefix("Exit code: ")
            .or_else(|| line.strip_prefix("Process exited with code "));
        if let Some(code) = code.and_then(|c| c.trim().parse::<i64>().ok()) {
            return Outcome::from_exit_code(code);
        }
    }
    Outcome::from_text(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_headers_give_exit_codes() {
        assert_eq!(
            text_outcome("Exit code: 1\nWall time: 0.1 seconds\nOutput:\nboom"),
            Outcome::Failed { exit_code: Some(1) }
        );
        assert_eq!(
            text_outcome("Chunk ID: a\nWall time: 1s\nProcess exited with code 0\nOutput:\n"),
            Outcome::Ok
        );
        assert_eq!(text_outcome("plain"), Outcome::Ok);
    }

    #[test]
    fn maps_tool_names() {
        assert_eq!(tool_kind("exec_command"), ToolKind::Shell);
        assert_eq!(tool_kind("apply_patch"), ToolKind::PatchFile);
        assert_eq!(tool_kind("spawn_agent"), ToolKind::Subagent);
        assert_eq!(tool_kind("mcp__synthetic__lookup"), ToolKind::Other);
    }

    #[test]
    fn namespaces_join_as_codex_shows_them() {
        assert_eq!(
            namespaced(Some("mcp__codex_apps__github"), "_fetch_pr"),
            "mcp__codex_apps__github_fetch_pr"
        );
        assert_eq!(
            namespaced(Some("mcp__node_repl__"), "js"),
            "mcp__node_repl__js"
        );
        assert_eq!(
            namespaced(Some("functions"), "exec_command"),
            "functions__exec_command"
        );
        assert_eq!(namespaced(None, "exec_command"), "exec_command");
    }
}
