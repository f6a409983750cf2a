//! Integration tests of vouch-tasks: the conformance suite and properties of validation.

#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

mod conformance;
mod properties;
