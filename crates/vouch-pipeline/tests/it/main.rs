//! Integration tests of the pipeline's tools in a real, confined working directory.

#![expect(clippy::unwrap_used, reason = "tests fail loudly")]

mod crash;
mod machine;
mod mcp;
mod runs;
mod support;
mod tools;
mod wire;
