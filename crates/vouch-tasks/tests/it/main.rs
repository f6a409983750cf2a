//! Integration tests of vouch-tasks: the conformance suite and properties of validation.

#![expect(clippy::unwrap_used, reason = "tests fail loudly")]

mod conformance;
mod properties;
