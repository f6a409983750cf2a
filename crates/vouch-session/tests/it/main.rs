//! Integration tests of vouch-session: every reader on fixtures written for it, bad input,
//! and the round trip through vouch's own format.

#![expect(clippy::unwrap_used, reason = "tests fail loudly")]

mod chat;
mod claude_code;
mod codex;
mod cursor;
mod errors;
mod gemini;
mod opencode;
mod roundtrip;
mod support;
mod tail;
