//! Helpers: reading fixtures and describing sessions compactly for snapshots.

use std::fmt::Write;
use std::path::PathBuf;

use vouch_session::{EventKind, ReadOptions, ReadReport, Session};

/// Returns the path of a fixture.
pub(crate) fn fixture(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(rel)
}

/// Reads a fixture with default options.
pub(crate) fn read(rel: &str) -> ReadReport {
    read_with(rel, &ReadOptions::default())
}

/// Reads a fixture with `options`.
pub(crate) fn read_with(rel: &str, options: &ReadOptions) -> ReadReport {
    vouch_session::read_path(&fixture(rel), options)
        .unwrap_or_else(|e| panic!("reading {rel} failed: {e}"))
}

/// Describes a read: diagnostics (paths made relative) then the session tree, one event a line.
pub(crate) fn describe(report: &ReadReport) -> String {
    let mut out = String::new();
    let root = fixture("");
    for d in &report.diagnostics {
        let line = d.to_string().replace(&*root.to_string_lossy(), "");
        writeln!(out, "diagnostic: {line} ({:?})", d.kind).unwrap();
    }
    describe_session(&mut out, &report.session, 0);
    out
}

fn describe_session(out: &mut String, s: &Session, depth: usize) {
    let pad = "  ".repeat(depth);
    writeln!(
        out,
        "{pad}session id={:?} agent={} name={:?} spawned_by={:?} cwd={:?} model={:?}",
        s.id, s.agent, s.name, s.spawned_by, s.cwd, s.model
    )
    .unwrap();
    if let Some(u) = &s.usage {
        writeln!(
            out,
            "{pad}  tokens input={} output={} cache_read={} cache_write={}",
            u.input, u.output, u.cache_read, u.cache_write
        )
        .unwrap();
    }
    for e in &s.events {
        let who = match &e.actor.name {
            Some(name) => format!("{}({name})", e.actor.role.as_str()),
            None => e.actor.role.as_str().to_owned(),
        };
        let ts = e.timestamp.map(|t| t.to_string()).unwrap_or_default();
        let what = match &e.kind {
            EventKind::Message(m) => format!("message {:?}", m.text),
            EventKind::ToolCall(c) => {
                format!(
                    "call {} {} [{}] {}",
                    c.call_id,
                    c.name,
                    c.kind,
                    c.args.value()
                )
            }
            EventKind::ToolResult(r) => {
                let text = s.output_text(&r.output).unwrap();
                let held = if r.output.is_complete() {
                    ""
                } else {
                    " (spilled)"
                };
                format!(
                    "result {} {}{held} {:?}",
                    r.call_id,
                    r.outcome.label(),
                    text
                )
            }
        };
        writeln!(
            out,
            "{pad}  {} L{} {ts} {who}: {what}",
            e.seq,
            e.line_number().unwrap_or(0)
        )
        .unwrap();
    }
    for sub in &s.subagents {
        describe_session(out, sub, depth + 1);
    }
}
