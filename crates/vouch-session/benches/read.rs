//! Reading generated Claude Code logs into a `Session`, results included.
//!
//! The input is written at start-up by `vouch-loggen` (deterministic): N tool calls, each
//! followed by a ~2 KB tool result. `VOUCH_BENCH_CALLS` sets the largest N (default 100,000,
//! about 390 MB on disk). Run: `cargo bench -p vouch-session --bench read`.

use std::path::PathBuf;

use vouch_session::{ReadOptions, read_path};

fn main() {
    divan::main();
}

/// Returns the path of a generated log of `calls` tool calls, writing it on first use.
fn log(calls: usize) -> PathBuf {
    vouch_loggen::claude_log_file(calls).expect("the generated log")
}

fn largest() -> usize {
    vouch_loggen::bench_calls()
}

#[divan::bench(args = [1_000, 10_000])]
fn claude_code(bencher: divan::Bencher<'_, '_>, calls: usize) {
    let path = log(calls);
    bencher.bench(|| read_path(&path, &ReadOptions::default()).expect("a readable log"));
}

#[divan::bench(sample_count = 5, sample_size = 1)]
fn claude_code_largest(bencher: divan::Bencher<'_, '_>) {
    let path = log(largest());
    bencher.bench(|| {
        let report = read_path(&path, &ReadOptions::default()).expect("a readable log");
        assert_eq!(report.session.tool_results().count(), largest());
        report
    });
}

/// `session stats`' pass over a read session: counts by name and kind, and unanswered calls.
#[divan::bench(sample_count = 20)]
fn stats_of_largest(bencher: divan::Bencher<'_, '_>) {
    let path = log(largest());
    let report = read_path(&path, &ReadOptions::default()).expect("a readable log");
    bencher.bench(|| vouch_session::SessionStats::of(&report.session));
}
