//! Cursor agent transcripts: `~/.cursor/projects/<project>/agent-transcripts/<id>/<id>.jsonl`
//! (older versions: `agent-transcripts/<id>.jsonl`), one `{role, message: {content}}` record a
//! line — content a string or Anthropic-style blocks (`text`, `thinking`, `tool_use`) — with
//! `{"type": "turn_ended", "status", "error"}` markers between turns. Subagents' transcripts
//! sit in `<id>/subagents/`.
//!
//! The transcripts record what the agent called, not what came of it: no tool results, no
//! timestamps, no token counts. Every call reads as unanswered, so a gate that needs a passing
//! command blocks — what the log cannot show is not taken as shown.

use std::borrow::Cow;
use std::io::Read;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::value::RawValue;

use crate::driver::{LineError, LineSink, drive};
use crate::error::Error;
use crate::event::{Actor, Role};
use crate::output::Output;
use crate::readers::common::{self, Events};
use crate::readers::descriptor::{Descriptor, Match, Sniff};
use crate::readers::{chat, claude_code};
use crate::session::{Agent, Format, Session};
use crate::source::{Input, ReadOptions, ReadReport};
use crate::tail::Turns;
use crate::tool::{Args, Outcome, ToolCall, ToolKind, ToolResult};

/// Maps a Cursor tool name to its kind (decision G7): its own names, then Claude Code's, then
/// by containment as for orchestrators.
pub(crate) fn tool_kind(name: &str) -> ToolKind {
    match name {
        "Shell" | "run_terminal_cmd" | "run_terminal_command" => ToolKind::Shell,
        "Write" | "write" => ToolKind::WriteFile,
        "StrReplace" | "ApplyPatch" | "EditNotebook" | "Delete" | "delete_file"
        | "search_replace" | "edit_file" => ToolKind::PatchFile,
        "Read" | "read_file" => ToolKind::ReadFile,
        "Grep" | "Glob" | "LS" | "SemanticSearch" | "codebase_search" | "grep_search"
        | "file_search" | "list_dir" => ToolKind::Search,
        "WebSearch" | "WebFetch" | "web_search" => ToolKind::Web,
        "Task" => ToolKind::Subagent,
        _ => match claude_code::tool_kind(name) {
            ToolKind::Other => chat::tool_kind(name),
            kind => kind,
        },
    }
}

/// The Cursor format.
pub(crate) const DESCRIPTOR: Descriptor = Descriptor {
    format: Format::Cursor,
    label: "Cursor",
    read: |reader, input, options| read(reader, input, options),
    tool_kind,
    turns: Some(Turns::of_lines(starts_turn)),
    sniff: Sniff::lines(sniff_record, &[]),
};

/// A `{role, message}` record with no `type`, or a `turn_ended` marker, is surely Cursor's.
fn sniff_record(record: &serde_json::Map<String, serde_json::Value>) -> Match {
    let kind = record.get("type").and_then(serde_json::Value::as_str);
    let sure = match kind {
        None => {
            record.contains_key("role")
                && record
                    .get("message")
                    .is_some_and(|m| m.get("content").is_some())
        }
        Some("turn_ended") => record.contains_key("status"),
        Some(_) => false,
    };
    if sure { Match::Sure } else { Match::No }
}

/// One line of a transcript.
#[derive(Deserialize)]
struct Record<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    role: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    message: Option<MessageBody<'a>>,
    #[serde(borrow, default)]
    status: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    error: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct MessageBody<'a> {
    #[serde(borrow, default)]
    content: Option<&'a RawValue>,
}

/// A content block; only the keys vouch uses.
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

/// Returns true when `line` starts a turn: a user's record.
pub(crate) fn starts_turn(line: &str) -> bool {
    serde_json::from_str::<Record<'_>>(line)
        .is_ok_and(|r| r.kind.is_none() && r.role.as_deref() == Some("user"))
}

/// Reads a Cursor transcript and, when it is a file, the subagents' transcripts beside it.
pub(crate) fn read(
    reader: impl Read,
    input: &Input<'_>,
    options: &ReadOptions,
) -> Result<ReadReport, Error> {
    let mut log = CursorLog::default();
    let mut diagnostics = drive(reader, input, options, &mut log)?;
    let mut session = Session {
        id: input
            .path
            .and_then(Path::file_stem)
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default(),
        agent: Agent::Other("cursor".to_owned()),
        source: Some(input.source(Format::Cursor)),
        events: log.events.events,
        ..Session::default()
    };
    if let (Some(path), false) = (input.path, options.no_subagents) {
        common::attach_subagents(
            &mut session,
            &mut diagnostics,
            subagent_files(path),
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

/// Returns the transcripts in `<id>/subagents/` for a transcript `<id>/<id>.jsonl`.
fn subagent_files(path: &Path) -> Vec<PathBuf> {
    let (Some(dir), Some(stem)) = (path.parent(), path.file_stem()) else {
        return Vec::new();
    };
    if dir.file_name() != Some(stem) {
        return Vec::new();
    }
    common::log_files(&dir.join("subagents"), &["jsonl"])
}

/// Links a subagent to the `Task` call whose prompt is its first user message, if one is.
fn link(parent: &Session, sub: &mut Session) {
    let spawning = common::spawning_call(parent, sub, |call, prompt| {
        call.arg_str("prompt").map(str::trim) == Some(prompt)
    });
    if let Some(call) = spawning {
        sub.spawned_by = Some(call.call_id.clone());
        sub.name = call.arg_str("subagent_type").map(str::to_owned);
    }
}

#[derive(Default)]
struct CursorLog {
    events: Events,
}

impl LineSink for CursorLog {
    fn line(&mut self, text: &str, number: u64, _offset: u64) -> Result<(), LineError> {
        LineError::expect_object(text)?;
        let rec: Record<'_> = serde_json::from_str(text)?;
        match (rec.kind.as_deref(), rec.role.as_deref()) {
            (Some("turn_ended"), _) => {
                if rec.status.as_deref() == Some("error") {
                    let error = rec.error.map(|e| {
                        serde_json::from_str::<String>(e.get())
                            .unwrap_or_else(|_| e.get().to_owned())
                    });
                    let text = format!(
                        "the turn ended with an error: {}",
                        error.as_deref().unwrap_or("(no message)")
                    );
                    self.events
                        .message(Actor::new(Role::System), None, Some(number), text);
                }
                Ok(())
            }
            (None, Some(role)) => {
                let role = match role {
                    "user" => Role::User,
                    "assistant" => Role::Assistant,
                    _ => Role::System,
                };
                let content = rec.message.and_then(|m| m.content);
                self.content(role, content, number)
            }
            // Record types added after this reader was written carry no events.
            _ => Ok(()),
        }
    }
}

impl CursorLog {
    fn content(
        &mut self,
        role: Role,
        content: Option<&RawValue>,
        number: u64,
    ) -> Result<(), LineError> {
        let Some(raw) = content else { return Ok(()) };
        if raw.get().trim_start().starts_with('"') {
            let text: String =
                serde_json::from_str(raw.get()).map_err(|e| LineError::nested("content", &e))?;
            self.text(role, &text, number);
            return Ok(());
        }
        let blocks: Vec<Block<'_>> = serde_json::from_str(raw.get())
            .map_err(|e| LineError::nested("message.content", &e))?;
        for (i, block) in blocks.iter().enumerate() {
            match &*block.kind {
                "text" => self.text(role, block.text.as_deref().unwrap_or_default(), number),
                "tool_use" => {
                    let name = block.name.as_deref().unwrap_or_default();
                    let call = ToolCall {
                        call_id: block
                            .id
                            .as_deref()
                            .map_or_else(|| format!("cursor-{number}-{i}"), str::to_owned),
                        name: crate::names::tool_name(name),
                        kind: tool_kind(name),
                        args: block.input.map_or_else(Args::default, Args::from_raw),
                    };
                    self.events
                        .call(Actor::new(Role::Assistant), None, Some(number), call);
                }
                "tool_result" => {
                    let Some(call_id) = block.tool_use_id.as_deref() else {
                        continue;
                    };
                    let text = block
                        .content
                        .map(|c| {
                            crate::output::Encoding::ContentBlocks
                                .decode(c.get())
                                .unwrap_or_else(|_| c.get().to_owned())
                        })
                        .unwrap_or_default();
                    let outcome = if block.is_error == Some(true) {
                        Outcome::Error
                    } else {
                        Outcome::Ok
                    };
                    self.events.result(
                        Actor::new(Role::Tool),
                        None,
                        Some(number),
                        ToolResult {
                            call_id: call_id.to_owned(),
                            output: Output::inline(text),
                            outcome,
                        },
                    );
                }
                // Thinking, images and block types added later carry nothing vouch uses.
                _ => {}
            }
        }
        Ok(())
    }

    /// Adds a message; a person's `<user_query>` is taken out of the context Cursor wraps
    /// around it.
    fn text(&mut self, role: Role, text: &str, number: u64) {
        let text = match (role, user_query(text)) {
            (Role::User, Some(query)) => query,
            _ => text,
        };
        self.events
            .message(Actor::new(role), None, Some(number), text.trim().to_owned());
    }
}

/// Returns the text inside `<user_query>…</user_query>`, if the text has one.
fn user_query(text: &str) -> Option<&str> {
    let start = text.find("<user_query>")? + "<user_query>".len();
    let end = text[start..].find("</user_query>")? + start;
    Some(&text[start..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_tool_names() {
        assert_eq!(tool_kind("Shell"), ToolKind::Shell);
        assert_eq!(tool_kind("StrReplace"), ToolKind::PatchFile);
        assert_eq!(tool_kind("Write"), ToolKind::WriteFile);
        assert_eq!(tool_kind("Grep"), ToolKind::Search);
        assert_eq!(tool_kind("CallMcpTool"), ToolKind::Other);
    }

    #[test]
    fn user_queries_are_unwrapped() {
        assert_eq!(
            user_query("<user_info>x</user_info>\n<user_query>\nfix it\n</user_query>"),
            Some("\nfix it\n")
        );
        assert_eq!(user_query("plain"), None);
    }
}
