//! Loading a pipeline: fuseraft-cli's own configurations (the fixtures, structural copies),
//! and the largest of them with each agent's instructions grown to the size fuseraft's own
//! `cross-system-flow-analyzer.yaml` has (34 KB in all) — every check of every phase included.
//!
//! `cargo bench -p vouch-pipeline --bench load`

use std::path::PathBuf;

use vouch_pipeline::RunConfig;

fn main() {
    divan::main();
}

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/fuseraft")
        .join(name)
}

#[divan::bench(args = [
    "orchestration.yaml",
    "examples/brownfield.yaml",
    "examples/article-review-pipeline.yaml",
    "examples/magentic-team.yaml",
])]
fn fixture_load(bencher: divan::Bencher<'_, '_>, name: &str) {
    let path = fixture(name);
    bencher.bench(|| RunConfig::load(&path).is_ok());
}

/// The state-machine fixture with 4 KB of instructions per agent: 35 KB of YAML.
#[divan::bench]
fn largest_fuseraft_size(bencher: divan::Bencher<'_, '_>) {
    let text = std::fs::read_to_string(fixture("orchestration.yaml")).expect("the fixture");
    let filler =
        "Read the brief, do the step, record what you did with a real tool call. ".repeat(65);
    let grown = text.replace(
        "      Instructions: |\n        ",
        &format!("      Instructions: |\n        {filler}\n        "),
    );
    let dir = tempfile::tempdir().expect("a temporary folder");
    let path = dir.path().join("big.yaml");
    std::fs::write(&path, &grown).expect("the grown file");
    assert!(grown.len() > 30_000, "{}", grown.len());
    assert!(RunConfig::load(&path).is_ok());
    bencher.bench(|| RunConfig::load(&path).is_ok());
}
