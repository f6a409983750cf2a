//! The short crash harness (`scripts/chaos.py`, 20 randomized runs of 3 trees of 8 tasks, a
//! 0.5 s lease): `vouch serve` workers on one PostgreSQL are killed with `kill -9`, frozen past
//! their lease, cut off from the database, and PostgreSQL is restarted, while task trees run;
//! every run must end every task once, with no stale write accepted, no two executions of a
//! task at once, and complete event streams.
//! The long version (1,000 runs) and its figures: docs/performance.md.

use std::process::Command;

use crate::support::repo;

#[test]
fn twenty_randomized_runs_of_kills_freezes_cuts_and_restarts_hold_every_invariant() {
    let out = Command::new("python3")
        .arg(repo().join("scripts/chaos.py"))
        .args([
            "--runs", "20", "--trees", "3", "--tasks", "8", "--lease", "0.5", "--sleep", "0.5",
            "--freeze", "--vouch",
        ])
        .arg(assert_cmd::cargo::cargo_bin("vouch"))
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{report}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(report.contains("20 runs, 0 failed"), "{report}");
}
