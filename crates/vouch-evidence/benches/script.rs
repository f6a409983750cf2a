//! Reading recorded commands as bash does (strict evidence): one typical test command, a
//! masked one, and the 10,000 commands of a long change log.
//! Run: `cargo bench -p vouch-evidence --bench script`.

use vouch_evidence::Script;

fn main() {
    divan::main();
}

#[divan::bench]
fn a_test_command() -> Script {
    Script::parse(divan::black_box(
        "cd app && RUST_LOG=debug cargo test --workspace -- --nocapture",
    ))
}

#[divan::bench]
fn a_masked_pipeline() -> Script {
    Script::parse(divan::black_box(
        "bash -lc 'set -e; npm ci && npm test -- --ci 2>&1 | tee test.log || true'",
    ))
}

#[divan::bench(sample_count = 10)]
fn ten_thousand_commands(bencher: divan::Bencher<'_, '_>) {
    let commands: Vec<String> = (0..10_000)
        .map(|i| match i % 4 {
            0 => format!("cargo test -p crate{i} -- --nocapture"),
            1 => format!("cd pkg{i} && npm test -- --ci 2>&1 | tail -n 20"),
            2 => format!("python -m pytest tests/test_{i}.py -q || true"),
            _ => format!("go test ./pkg{i}/... -run 'Test{i}' -count=1"),
        })
        .collect();
    bencher.bench(|| {
        commands
            .iter()
            .map(|c| Script::parse(c))
            .collect::<Vec<_>>()
    });
}
