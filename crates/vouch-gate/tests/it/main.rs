//! Integration tests of vouch-gate: every validator over hand-written sessions and artifacts,
//! configuration loading, and the stop hook.

#![expect(clippy::unwrap_used, reason = "tests fail loudly")]

mod config;
mod contracts;
mod fail_closed;
mod hook;
mod lint;
mod router;
mod strict;
mod support;
mod validators;
