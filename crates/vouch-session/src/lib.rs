//! The normalized record of what an AI agent did, read from the logs agents really write.
//!
//! # Overview
//!
//! - [`Session`]: one agent's run, its ordered [`Event`]s and its subagents.
//! - [`ToolCall`] and [`ToolResult`]: what the agent called and what became of it
//!   ([`ToolKind`], [`Outcome`]).
//! - [`read_path`]: reads Claude Code, Codex, OpenAI-style chat or vouch logs, detecting the
//!   format from the content, and reports every line it had to skip.
//! - [`write_jsonl`]: vouch's own lossless JSONL format.
//!
//! ```
//! use vouch_session::{read_from, ReadOptions, ToolKind, Outcome};
//!
//! let log = r#"[
//!   {"role": "user", "content": "run the tests"},
//!   {"role": "assistant", "name": "Developer", "tool_calls": [
//!     {"id": "c1", "type": "function", "function": {"name": "shell_run", "arguments": "{\"command\":\"cargo test\"}"}}]},
//!   {"role": "tool", "tool_call_id": "c1", "content": "[EXIT 101] 2 tests failed"},
//!   {"role": "assistant", "name": "Developer", "content": "All tests pass."}
//! ]"#;
//! let session = read_from(log.as_bytes(), "chat.json", &ReadOptions::default())?.session;
//! let call = session.tool_calls().next().unwrap();
//! assert_eq!(call.kind, ToolKind::Shell);
//! assert_eq!(call.command(), Some("cargo test"));
//! let result = &session.results_by_call()["c1"];
//! assert_eq!(result.outcome, Outcome::Failed { exit_code: Some(101) });
//! assert_eq!(session.final_answer(), Some("All tests pass."));
//! # Ok::<(), vouch_session::Error>(())
//! ```

#![deny(missing_docs)]

mod driver;
mod error;
mod event;
mod hash;
pub mod locations;
mod names;
mod output;
mod read;
mod readers;
mod scan;
mod session;
mod source;
mod stats;
mod tail;
mod tool;

pub use error::{Diagnostic, DiagnosticKind, Error};
pub use event::{Actor, Event, EventKind, Message, Role, line_at};
pub use hash::{FastHasher, FastMap};
pub use output::{Encoding, INLINE_LIMIT, Output, PREVIEW_LEN, Span};
pub use read::{read_from, read_path};
pub use readers::tool_kind;
pub use readers::vouch::{
    write_json, write_jsonl, write_jsonl_events, write_jsonl_header, write_jsonl_reopen,
    write_jsonl_subagent,
};
pub use session::{Agent, Format, Session, Source, Turn, Usage};
pub use source::{ReadOptions, ReadReport};
pub use stats::SessionStats;
pub use tool::{Args, Outcome, ToolCall, ToolKind, ToolResult};
