//! One module per log format — bytes in, [`crate::Session`] out — each exporting the
//! [`descriptor::Descriptor`] that says how to read, tail, name and recognise it; the registry
//! lists them, and detection asks them in turn.
//!
//! To add a format: a module here with its reader and descriptor, a line in `registry.rs`, a
//! variant of [`crate::Format`], and a fuzz target.

pub(crate) mod chat;
pub(crate) mod claude_code;
pub(crate) mod codex;
mod common;
pub(crate) mod cursor;
pub(crate) mod descriptor;
pub(crate) mod detect;
mod document;
pub(crate) mod gemini;
pub(crate) mod opencode;
pub(crate) mod registry;
mod utc;
pub(crate) mod vouch;

pub use registry::tool_kind;
