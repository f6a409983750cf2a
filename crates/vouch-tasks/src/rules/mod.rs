//! Validation of a whole document: the rules of each task on its own (in parallel for large
//! documents), then the rules across tasks, every problem collected (decision T1).

mod fields;
mod graph;
mod ids;
mod inputs;
mod raw;
pub(crate) mod schedule;
pub(crate) mod schedule_error;

use rayon::prelude::*;

use crate::document::{Document, RawTask};
use crate::issue::{Issue, Severity, ValidationReport};

use fields::{Dep, Info};

/// Documents smaller than this are checked on one thread.
const PARALLEL_FROM: usize = 8_192;

/// Validates a parsed document.
pub fn validate(doc: &Document<'_>) -> ValidationReport {
    finish(doc, check_tasks(doc))
}

/// Runs the rules across tasks on what the rules of each task found, and reports.
fn finish(doc: &Document<'_>, checked: Checked<'_>) -> ValidationReport {
    let mut issues = checked.issues;
    issues.extend(doc.issues.iter().cloned());
    graph::check(doc, &checked.infos, &checked.deps, &mut issues);
    report(doc, issues)
}

/// Parses and validates `text`, checking each batch of tasks on another core while the rest
/// is still being read (for an array of tasks; other forms are read first, then checked).
/// Returns the document too, for reports that show where each task is.
pub fn validate_text(text: &str) -> Result<(Document<'_>, ValidationReport), crate::SyntaxError> {
    let threads = std::thread::available_parallelism().map_or(1, |t| t.get().min(8));
    if threads < 2 || text.len() < 1 << 20 {
        let doc = Document::parse(text)?;
        let report = validate(&doc);
        return Ok((doc, report));
    }
    // This thread parses; each batch it finishes is checked on the pool meanwhile.
    let parts = std::sync::Mutex::new(Vec::new());
    let doc = rayon::in_place_scope(|s| {
        Document::parse_with(text, &mut |start, batch| {
            let parts = &parts;
            s.spawn(move |_| {
                let part = check_range(start, &batch, &mut inputs::SchemaCache::default());
                parts
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .push((start, part));
            });
        })
    });
    let parts = parts
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let doc = doc?;
    let checked = if parts.is_empty() && !doc.tasks.is_empty() {
        check_tasks(&doc)
    } else {
        let mut parts = parts;
        parts.sort_by_key(|(start, _)| *start);
        merge(parts.into_iter().map(|(_, p)| p).collect(), doc.tasks.len())
    };
    let report = finish(&doc, checked);
    Ok((doc, report))
}

/// Runs the rules of each task of `batch`, whose first task is task `start`.
fn check_range<'a>(
    start: usize,
    batch: &[RawTask<'a>],
    cache: &mut inputs::SchemaCache<'a>,
) -> Checked<'a> {
    let mut part = Checked {
        infos: Vec::with_capacity(batch.len()),
        deps: Vec::with_capacity(batch.len() * 2),
        issues: Vec::new(),
    };
    for (k, task) in batch.iter().enumerate() {
        let info = fields::check(start + k, task, cache, &mut part.deps, &mut part.issues);
        part.infos.push(info);
    }
    part
}

/// Joins the parts of a document, in order: each part's dependency ranges move past the
/// parts before it.
fn merge(parts: Vec<Checked<'_>>, n: usize) -> Checked<'_> {
    let mut all = Checked {
        infos: Vec::with_capacity(n),
        deps: Vec::with_capacity(parts.iter().map(|p| p.deps.len()).sum()),
        issues: Vec::new(),
    };
    for part in parts {
        let offset = u32::try_from(all.deps.len()).unwrap_or(u32::MAX);
        all.infos.extend(part.infos.into_iter().map(|mut info| {
            info.deps = info.deps.start + offset..info.deps.end + offset;
            info
        }));
        all.deps.extend(part.deps);
        all.issues.extend(part.issues);
    }
    all
}

/// What the rules of each task found: what the rules across tasks need, and the issues.
#[derive(Default)]
struct Checked<'a> {
    infos: Vec<Info<'a>>,
    /// Every task's dependencies, in task order; each `Info` holds its range.
    deps: Vec<Dep<'a>>,
    issues: Vec<Issue>,
}

/// Runs the rules of each task, split over the machine's cores.
fn check_tasks<'a>(doc: &Document<'a>) -> Checked<'a> {
    let n = doc.tasks.len();
    let threads = std::thread::available_parallelism().map_or(1, |t| t.get().min(8));
    if n < PARALLEL_FROM || threads < 2 {
        return check_range(0, &doc.tasks, &mut inputs::SchemaCache::default());
    }
    let chunk = n.div_ceil(threads);
    let parts: Vec<Checked<'a>> = doc
        .tasks
        .par_chunks(chunk)
        .enumerate()
        .map(|(t, tasks)| check_range(t * chunk, tasks, &mut inputs::SchemaCache::default()))
        .collect();
    merge(parts, n)
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
    let (errors, warnings) = issues
        .into_iter()
        .partition(|i| i.severity == Severity::Error);
    ValidationReport {
        tasks: doc.tasks.len(),
        errors,
        warnings,
    }
}
