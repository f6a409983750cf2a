//! `vouch gate check`, process start to exit, with every validator on a long session.
//!
//! The project is written at start-up by `vouch-loggen` (deterministic): a Claude Code session
//! of about 100,000 events in turns of 40 tool calls, whose last turn is a Reviewer approving;
//! a `changes.json` of 10,000 entries (40 in the active session); the brief, the test report and
//! the test file. Every validator runs and passes (`RequireRelatedTestsPass` runs five small
//! commands). Each runs in the default mode and with `--strict` (issue 12's bound: strict under
//! twice the default). Run: `cargo bench -p vouch-cli --bench gate_check`.

use std::process::Command;
use std::sync::OnceLock;

fn main() {
    divan::main();
}

fn project() -> &'static std::path::Path {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = tempfile::tempdir().expect("a temporary folder");
        vouch_loggen::GateProject::default()
            .write(dir.path())
            .expect("the generated project");
        dir
    })
    .path()
}

#[divan::bench(sample_count = 20, sample_size = 1, args = ["default", "strict"])]
fn all_validators_on_100k_events(bencher: divan::Bencher<'_, '_>, mode: &str) {
    let dir = project();
    let strict: &[&str] = if mode == "strict" { &["--strict"] } else { &[] };
    bencher.bench(|| {
        let out = Command::new(env!("CARGO_BIN_EXE_vouch"))
            .current_dir(dir)
            .args([
                "gate",
                "check",
                "--config",
                "pipeline.yaml",
                "--session",
                "session.jsonl",
            ])
            .args(["--keyword", "APPROVED", "--agent", "Reviewer"])
            .args(strict)
            .output()
            .expect("vouch runs");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stdout)
        );
        out
    });
}
