//! The judge against a local stand-in grader: an in-process HTTP server speaking the OpenAI
//! and Anthropic wire formats, whose replies each test scripts.

#![expect(clippy::unwrap_used, reason = "tests fail loudly")]

mod cache;
mod concurrency;
mod injection;
mod replies;
mod support;
