//! Claude Code session logs (`~/.claude/projects/<project>/<session-id>.jsonl`), their
//! `<session-id>/subagents/` folders, and `claude -p --output-format stream-json` output.
//!
//! Each line is a record; `user` and `assistant` records carry an Anthropic Messages API
//! message. One assistant message may be split over several records with the same
//! `message.id`: blocks already seen are dropped. Tool results come as `tool_result` blocks in
//! `user` records, with `is_error` and a `toolUseResult` beside them. Thinking is ignored.
//! Subagents come from three places: files under `<session-id>/` (at any depth), sidechain
//! records inline in older logs, and `parent_tool_use_id` in `stream-json` output.

mod fast;
mod log;
mod parse;
mod read;
mod records;
mod subagents;
mod tools;

pub(crate) use read::DESCRIPTOR;
pub(crate) use tools::tool_kind;
