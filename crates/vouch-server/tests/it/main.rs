//! Integration tests of `vouch serve` over real HTTP: every method and error code, the
//! protocol's lifecycle examples run with the `command` executor, the event stream, and the
//! PostgreSQL store on a throwaway cluster.

#![expect(clippy::unwrap_used, reason = "tests fail loudly")]

mod a2a;
mod common;
mod conformance;
mod events;
mod executors;
mod interface_page;
mod lifecycle;
mod model;
mod postgres;
mod races;
mod schedules;
