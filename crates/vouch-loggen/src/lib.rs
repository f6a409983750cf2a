//! Deterministic generators of large inputs — agent logs, gate projects, task trees — for
//! benchmarks and side-by-side timings.
//!
//! # Overview
//!
//! - [`ClaudeLog`]: a Claude Code session log of any number of tool calls, each followed by a
//!   tool result of a chosen size, written by [`ClaudeLog::write`]; [`claude_log_file`] writes
//!   one of the default shape to a temporary file once per process, for benchmarks.
//! - [`GateProject`]: a project for timing a gate check — a long session, a long change log and
//!   every artifact the validators read.
//! - [`TaskTree`]: a valid task tree of the task protocol, or a long dependency chain.
//!
//! The same parameters always give the same bytes, so a benchmark's input can be regenerated
//! anywhere instead of being stored.
//!
//! ```
//! let mut out = Vec::new();
//! vouch_loggen::ClaudeLog { tool_calls: 10, ..Default::default() }.write(&mut out)?;
//! let again = {
//!     let mut v = Vec::new();
//!     vouch_loggen::ClaudeLog { tool_calls: 10, ..Default::default() }.write(&mut v)?;
//!     v
//! };
//! assert_eq!(out, again);
//! assert!(out.len() > 10 * 2048);
//! # Ok::<(), std::io::Error>(())
//! ```

#![deny(missing_docs)]

mod claude;
mod gate;
mod rng;
mod tasks;

pub use claude::{ClaudeLog, bench_calls, claude_log_file};
pub use gate::GateProject;
pub use tasks::TaskTree;
