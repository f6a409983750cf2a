//! vouch's own cost of a coding agent's turn in a run, the CLI excluded: once the CLI has
//! exited, reading its saved session (a Claude Code log of 1,000 tool calls, 2 KiB results),
//! keeping the turn's part, taking its evidence (files written, command receipts, MCP calls),
//! writing the journal's copy, reading it back, and adding the turn to the run's session.
//! Target: < 50 ms.
//!
//! `cargo bench -p vouch-pipeline --bench cli_turn`

use std::path::PathBuf;

fn main() {
    divan::main();
}

fn log(calls: usize) -> PathBuf {
    vouch_loggen::claude_log_file(calls).expect("a generated Claude Code log")
}

/// The whole log is the turn (a first turn).
#[divan::bench(args = [100, 1_000])]
fn whole_log_one_turn(bencher: divan::Bencher<'_, '_>, calls: usize) {
    let log = log(calls);
    let workdir = std::env::temp_dir();
    bencher.bench(|| vouch_pipeline::record_turn_for_bench(&log, &workdir, 0));
}

/// A later turn: the session's earlier half belongs to earlier turns.
#[divan::bench(args = [1_000])]
fn second_half_of_a_resumed_session(bencher: divan::Bencher<'_, '_>, calls: usize) {
    let log = log(calls);
    let workdir = std::env::temp_dir();
    bencher.bench(|| vouch_pipeline::record_turn_for_bench(&log, &workdir, calls));
}
