//! The model clients against local stand-ins: an in-process HTTP server speaking the OpenAI
//! and Anthropic wire formats, and stand-in `claude` and `codex` executables.

#![expect(clippy::unwrap_used, reason = "tests fail loudly")]

mod cli;
mod http;
