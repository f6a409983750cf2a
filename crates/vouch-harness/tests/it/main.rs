//! Integration tests of agent tests: assertions on hand-written sessions, load errors, and
//! whole runs of stand-in agents.

#![expect(clippy::unwrap_used, reason = "tests fail loudly")]

mod assertions;
mod fail_closed;
mod grading;
mod load;
mod runs;
mod support;
