//! Integration tests of vouch-evidence.

#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

mod concurrency;
