//! Validating generated task trees of 10,000, 100,000 and 1,000,000 tasks, from the document's
//! text to the report: parse, every rule of each task (in parallel), then the rules across
//! tasks. Each tree has random dependencies (about 2 per task, on earlier tasks), about a fifth
//! of its tasks completed, and an input schema with conforming inputs on one task in ten; it is
//! valid, so every rule runs to the end. Also a single dependency chain of 1,000,000 tasks,
//! each the child of the one before (decision T11: no recursion).
//!
//! Run: `cargo bench -p vouch-tasks --bench validate`.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

fn main() {
    divan::main();
}

/// The generated documents, by size (generated once per size).
fn document(tasks: usize, chain: bool) -> &'static str {
    static DOCS: OnceLock<Mutex<HashMap<(usize, bool), &'static str>>> = OnceLock::new();
    let docs = DOCS.get_or_init(|| Mutex::new(HashMap::new()));
    let mut docs = docs
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    docs.entry((tasks, chain)).or_insert_with(|| {
        let spec = vouch_loggen::TaskTree {
            tasks,
            ..Default::default()
        };
        let mut out = Vec::new();
        let written = if chain {
            spec.write_chain(&mut out)
        } else {
            spec.write(&mut out)
        };
        written.expect("writing to memory");
        String::from_utf8(out)
            .expect("generated JSON is UTF-8")
            .leak()
    })
}

#[divan::bench(args = [10_000, 100_000, 1_000_000], sample_count = 10, sample_size = 1)]
fn tree(bencher: divan::Bencher<'_, '_>, tasks: usize) {
    let text = document(tasks, false);
    bencher.bench(|| {
        let report = vouch_tasks::validate_str(text).expect("a document");
        assert!(report.is_valid(), "{:?}", report.errors.first());
        report
    });
}

#[divan::bench(sample_count = 5, sample_size = 1)]
fn chain_of_1_000_000(bencher: divan::Bencher<'_, '_>) {
    let text = document(1_000_000, true);
    bencher.bench(|| {
        let report = vouch_tasks::validate_str(text).expect("a document");
        assert!(report.is_valid(), "{:?}", report.errors.first());
        report
    });
}
