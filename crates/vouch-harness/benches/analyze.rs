//! `vouch analyze`'s work: reading a generated Claude Code log and evaluating a test on it.
//!
//! The log is written at start-up by `vouch-loggen` (deterministic): N tool calls (Bash, Read,
//! Edit, Grep, Glob, Write), each followed by a ~2 KB result. `VOUCH_BENCH_CALLS` sets the
//! largest N (default 100,000, about 390 MB). The tests are `benches/inputs/*.aptitude.yaml`,
//! the files measured against the peer in docs/performance.md: 50 regex-parameter assertions,
//! and 11 assertions of every kind the peer has. Run: `cargo bench -p vouch-harness`.

use std::path::{Path, PathBuf};

use vouch_gate::PipelineConfig;
use vouch_harness::NoGrader;
use vouch_harness::evaluate::evaluate;
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

fn test(name: &str) -> vouch_harness::TestFile {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("benches/inputs")
        .join(name);
    vouch_harness::load_test(&path).expect("a test that loads")
}

/// Reads the log and evaluates `test` on it, as `vouch analyze` does.
fn analyze(path: &Path, test: &vouch_harness::TestFile) -> usize {
    let log = read_path(path, &ReadOptions::default()).expect("a readable log");
    let config = PipelineConfig::empty(Path::new("vouch.yaml"));
    let rows = evaluate(test, &log, Path::new("."), &config, &NoGrader);
    rows.iter().filter(|r| r.passed).count()
}

#[divan::bench(args = ["fifty.aptitude.yaml", "eleven.aptitude.yaml"], sample_count = 5, sample_size = 1)]
fn analyze_largest(bencher: divan::Bencher<'_, '_>, name: &str) {
    let path = log(largest());
    let test = test(name);
    bencher.bench(|| analyze(&path, &test));
}

/// The evaluation alone, on a session already read.
#[divan::bench(args = ["fifty.aptitude.yaml", "eleven.aptitude.yaml"], sample_count = 5, sample_size = 1)]
fn evaluate_largest(bencher: divan::Bencher<'_, '_>, name: &str) {
    let read = read_path(&log(largest()), &ReadOptions::default()).expect("a readable log");
    let test = test(name);
    let config = PipelineConfig::empty(Path::new("vouch.yaml"));
    bencher.bench(|| evaluate(&test, &read, Path::new("."), &config, &NoGrader));
}
