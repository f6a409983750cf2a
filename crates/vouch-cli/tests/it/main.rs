//! End-to-end tests of the `vouch` binary: wiring, output and exit codes.

#![expect(clippy::unwrap_used, reason = "tests fail loudly")]

mod adversary;
mod agent_tests;
mod apflow_client;
mod approval;
mod chaos;
mod cli_agents;
mod dashboard;
mod docs;
mod fuseraft;
mod gate;
mod help;
mod hook;
mod mcp;
mod report;
mod review;
mod route;
mod run;
mod sandbox;
mod serve;
mod session;
mod subagent;
mod support;
mod tasks;
