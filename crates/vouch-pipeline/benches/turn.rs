//! The runner's own cost per turn, the model excluded (a scripted model answers at once):
//! runs of N turns of one agent that reads a file, then hands the work back to itself; the
//! difference between two lengths divided by the turns between them is the cost of a turn at
//! that length of history (about five events a turn: the routing note, the call, its result,
//! the reply).
//!
//! `cargo bench -p vouch-pipeline --bench turn`

use std::fmt::Write as _;
use std::path::Path;

use vouch_pipeline::{RunConfig, RunOptions, models, run};

fn main() {
    divan::main();
}

/// A project whose one agent loops `turns` times.
fn project(turns: usize) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let pipeline = format!(
        "Models:\n  m: {{Provider: scripted, Script: script.yaml}}\nAgents:\n  - {{Name: Worker, Instructions: Work., Model: m, Tools: [FileSystem, Handoff]}}\nSelection:\n  Type: keyword\n  Routes:\n    - {{Keyword: AGAIN, Agent: Worker}}\nBudget: {{MaxTurns: {turns}}}\n"
    );
    let mut script = String::from("agents:\n  Worker:\n");
    for i in 0..turns {
        let _ = writeln!(
            script,
            "    - calls: [{{tool: read_file, args: {{path: notes.txt}}}}]\n    - text: \"Step {i} done.\\nAGAIN\""
        );
    }
    let write = |name: &str, text: &str| {
        std::fs::write(dir.path().join(name), text).expect("a file of the project");
    };
    write("pipeline.yaml", &pipeline);
    write("script.yaml", &script);
    write("notes.txt", "the notes the agent reads each turn\n");
    dir
}

fn run_turns(dir: &Path) -> u32 {
    let config = RunConfig::load(&dir.join("pipeline.yaml")).expect("the bench pipeline");
    let models = models::build(&config).expect("the scripted model");
    let state = tempfile::tempdir().expect("a state root");
    let mut options = RunOptions::new(dir, "Work.");
    options.state_root = Some(state.path().to_owned());
    let summary = run(&config, &models, &options, &mut |_| {}).expect("a run");
    summary.turns
}

/// Whole runs of 1,800 and 2,000 turns (about 9,000 and 10,000 events).
#[divan::bench(args = [1_800, 2_000], sample_count = 3, sample_size = 1)]
fn run_of(bencher: divan::Bencher<'_, '_>, turns: usize) {
    bencher
        .with_inputs(|| project(turns))
        .bench_values(|dir| run_turns(dir.path()));
}
