//! Validation of a whole document: the rules of each task on its own (in parallel for large
//! documents), then the rules across tasks, every problem collected (decision T1).

mod fields;
mod graph;
mod ids;
mod inputs;
mod schedule;

use std::ops::Range;

use crate::document::Document;
use crate::issue::{Issue, Severity, ValidationReport};

use fields::Info;

/// Documents smaller than this are checked on one thread.
const PARALLEL_FROM: usize = 8_192;

/// Validates a parsed document.
pub fn validate(doc: &Document<'_>) -> ValidationReport {
    let (infos, mut issues) = check_tasks(doc);
    issues.extend(doc.issues.iter().cloned());
    graph::check(doc, &infos, &mut issues);
    report(doc, issues)
}

/// Runs the rules of each task, split over the machine's cores.
fn check_tasks<'a>(doc: &Document<'a>) -> (Vec<Info<'a>>, Vec<Issue>) {
    let n = doc.tasks.len();
    let run = |range: Range<usize>| {
        let mut cache = inputs::SchemaCache::default();
        let mut out = Vec::new();
        let infos: Vec<Info<'a>> = range
            .map(|i| fields::check(i, &doc.tasks[i], &mut cache, &mut out))
            .collect();
        (infos, out)
    };
    let threads = std::thread::available_parallelism().map_or(1, |t| t.get().min(8));
    if n < PARALLEL_FROM || threads < 2 {
        return run(0..n);
    }
    let chunk = n.div_ceil(threads);
    let parts: Vec<(Vec<Info<'a>>, Vec<Issue>)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let range = (t * chunk).min(n)..((t + 1) * chunk).min(n);
                s.spawn(move || run(range))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    });
    let mut infos = Vec::with_capacity(n);
    let mut issues = Vec::new();
    for (i, o) in parts {
        infos.extend(i);
        issues.extend(o);
    }
    (infos, issues)
}

/// Gives every issue its path, puts them in document order, and splits errors from warnings.
fn report(doc: &Document<'_>, mut issues: Vec<Issue>) -> ValidationReport {
    for issue in &mut issues {
        if issue.path.is_empty() {
            let base = issue.task.map_or_else(|| "$".to_owned(), |t| doc.path(t));
            issue.path = if issue.field.is_empty() {
                base
            } else {
                format!("{base}.{}", issue.field)
            };
        }
    }
    // Document-wide problems first, then task by task; within a task, in the order found.
    issues.sort_by_key(|i| i.task.map_or(0, |t| t + 1));
    let (errors, warnings) = issues.into_iter().partition(|i| i.severity == Severity::Error);
    ValidationReport {
        tasks: doc.tasks.len(),
        errors,
        warnings,
    }
}
