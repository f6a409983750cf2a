//! A task document's validation report for people: the document-wide problems first, then
//! task by task — each task named by its id, name, path and line — every problem with what
//! was expected, what was found and its code.

use std::io::{self, Write};

use serde_json::Value;
use vouch_tasks::{Document, Issue, Severity, ValidationReport};

use crate::ui::{Styles, plural};

/// Writes `report` of the document called `name`.
pub(crate) fn write(
    out: &mut impl Write,
    styles: &Styles,
    name: &str,
    doc: &Document<'_>,
    report: &ValidationReport,
) -> io::Result<()> {
    let (errors, warnings) = (report.errors.len(), report.warnings.len());
    let tasks = plural(report.tasks, "task", "tasks");
    if report.is_valid() {
        let s = styles.pass;
        let warned = if warnings == 0 {
            String::new()
        } else {
            format!(", {}", plural(warnings, "warning", "warnings"))
        };
        writeln!(out, "{name}: {s}valid{s:#} ({tasks}{warned})")?;
    } else {
        let s = styles.fail;
        let with_issues = {
            let mut seen: Vec<usize> = report
                .errors
                .iter()
                .chain(&report.warnings)
                .filter_map(|i| i.task)
                .collect();
            seen.sort_unstable();
            seen.dedup();
            seen.len()
        };
        let warned = if warnings == 0 {
            String::new()
        } else {
            format!(", {}", plural(warnings, "warning", "warnings"))
        };
        writeln!(
            out,
            "{name}: {s}invalid{s:#}: {}{warned} in {with_issues} of {tasks}",
            plural(errors, "error", "errors")
        )?;
    }
    // Errors and warnings together, in document order.
    let mut all: Vec<&Issue> = report.errors.iter().chain(&report.warnings).collect();
    all.sort_by_key(|i| i.task.map_or(0, |t| t + 1));
    let mut current: Option<Option<usize>> = None;
    for issue in all {
        if current != Some(issue.task) {
            current = Some(issue.task);
            writeln!(out)?;
            let h = styles.heading;
            match issue.task {
                None => writeln!(out, "{h}document{h:#}")?,
                Some(t) => {
                    let label = doc.label(t);
                    let id = label.id.as_deref().unwrap_or("(no id)");
                    let task_name = label.name.map(|n| format!(" \"{n}\"")).unwrap_or_default();
                    let d = styles.dim;
                    writeln!(
                        out,
                        "{h}task {id}{task_name}{h:#} {d}{} (line {}){d:#}",
                        label.path, label.line
                    )?;
                }
            }
        }
        line(out, styles, issue)?;
    }
    Ok(())
}

fn line(out: &mut impl Write, styles: &Styles, issue: &Issue) -> io::Result<()> {
    let (mark, s) = match issue.severity {
        Severity::Error => ("✗", styles.fail),
        Severity::Warning => ("!", styles.warning),
    };
    let field = if issue.field.is_empty() {
        String::new()
    } else {
        format!("{}: ", issue.field)
    };
    write!(out, "  {s}{mark}{s:#} {field}{}", issue.reason)?;
    let d = styles.dim;
    writeln!(out, " {d}[{}]{d:#}", issue.code)?;
    let mut details = Vec::new();
    if !issue.expected.is_null() {
        details.push(format!("expected {}", show(&issue.expected)));
    }
    if !issue.actual.is_null() {
        details.push(format!("found {}", show(&issue.actual)));
    }
    if !details.is_empty() {
        writeln!(out, "      {d}{}{d:#}", details.join("; "))?;
    }
    Ok(())
}

/// A value as a report shows it: strings bare, anything else as compact JSON (cut short).
fn show(v: &Value) -> String {
    let text = match v {
        Value::String(s) if !s.is_empty() => s.clone(),
        other => other.to_string(),
    };
    if text.chars().count() > 120 {
        let cut: String = text.chars().take(117).collect();
        format!("{cut}...")
    } else {
        text
    }
}
