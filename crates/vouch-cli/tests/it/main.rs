//! End-to-end tests of the `vouch` binary: wiring, output and exit codes.

#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

mod help;
mod session;
mod support;
