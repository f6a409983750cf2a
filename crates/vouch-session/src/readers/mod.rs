//! One module per log format: bytes in, [`crate::Session`] out.

pub(crate) mod chat;
pub(crate) mod claude_code;
pub(crate) mod codex;
mod common;
pub(crate) mod detect;
pub(crate) mod vouch;
