//! The timeline of `vouch session show`: turns, actors, tool calls with their key argument and
//! outcome mark, and subagents indented under the call that started them.

use std::collections::HashSet;
use std::io::{self, Write};

use vouch_session::{Event, EventKind, Outcome, Role, Session, SessionStats};

use crate::render::text::{duration, excerpt, plural_count};
use crate::ui::{Styles, plural};

/// Characters of a message or argument shown on one line.
const WIDTH: usize = 100;

/// Writes the timeline of `session` and its subagents.
pub(crate) fn write(out: &mut impl Write, session: &Session, styles: &Styles) -> io::Result<()> {
    header(out, session, styles)?;
    body(out, session, styles, 0)
}

fn header(out: &mut impl Write, s: &Session, styles: &Styles) -> io::Result<()> {
    let h = styles.heading;
    let id = if s.id.is_empty() { "(no id)" } else { &s.id };
    write!(out, "{h}session {id}{h:#}  {}", s.agent)?;
    if let Some(model) = &s.model {
        write!(out, " · {model}")?;
    }
    writeln!(out)?;
    if let Some(source) = &s.source {
        let path = source
            .path
            .as_deref()
            .map_or("<stdin>".into(), |p| p.display().to_string());
        writeln!(out, "  log    {path} ({})", source.format)?;
    }
    if let Some(cwd) = &s.cwd {
        writeln!(out, "  cwd    {cwd}")?;
    }
    let first = s.events.iter().find_map(|e| e.timestamp);
    if let (Some(first), Some(d)) = (first, s.duration()) {
        writeln!(
            out,
            "  time   {} UTC, {}",
            first.strftime("%Y-%m-%d %H:%M:%S"),
            duration(d.as_secs_f64())
        )?;
    }
    let stats = SessionStats::of(s);
    let nested = s.walk().len() - 1;
    writeln!(
        out,
        "  counts {} · {} · {} · {}",
        plural_count(stats.events, "event", "events"),
        plural_count(stats.tool_calls, "tool call", "tool calls"),
        plural_count(stats.failed, "failed result", "failed results"),
        plural(nested, "subagent", "subagents"),
    )?;
    Ok(())
}

fn body(out: &mut impl Write, s: &Session, styles: &Styles, depth: usize) -> io::Result<()> {
    let results = s.results_by_call();
    let calls: HashSet<&str> = s.tool_calls().map(|c| c.call_id.as_str()).collect();
    let pad = "    ".repeat(depth);
    let mut turn = 0;
    for e in &s.events {
        if e.is_user_message() {
            turn += 1;
            let d = styles.dim;
            writeln!(out, "\n{pad}{d}── turn {turn} ──{d:#}")?;
        } else if turn == 0 && e.seq == 0 {
            writeln!(out)?;
        }
        match &e.kind {
            EventKind::Message(m) => {
                let (label, style) = actor(e, styles);
                let text = excerpt(&m.text, WIDTH);
                writeln!(
                    out,
                    "{pad}{} {style}{label:<10}{style:#} {text}",
                    time(e, styles)
                )?;
            }
            EventKind::ToolCall(c) => {
                let result = results.get(c.call_id.as_str()).copied();
                let (mark, style) = mark(result.map(|r| r.outcome), styles);
                let tool = styles.tool;
                let arg = c.key_arg().map(|a| excerpt(a, WIDTH)).unwrap_or_default();
                write!(
                    out,
                    "{pad}{} {style}{mark}{style:#} {tool}{:<8}{tool:#} {arg}",
                    time(e, styles),
                    c.name
                )?;
                match result.map(|r| r.outcome) {
                    Some(Outcome::Ok) => {}
                    Some(o) => write!(out, "  {style}{}{style:#}", o.label())?,
                    None => write!(out, "  {}(no result){:#}", styles.dim, styles.dim)?,
                }
                writeln!(out)?;
                for sub in s
                    .subagents
                    .iter()
                    .filter(|sub| sub.spawned_by.as_deref() == Some(c.call_id.as_str()))
                {
                    subagent(out, sub, styles, depth + 1)?;
                }
            }
            EventKind::ToolResult(r) if !calls.contains(r.call_id.as_str()) => {
                let (mark, style) = mark(Some(r.outcome), styles);
                let text = excerpt(r.output.preview(), WIDTH);
                writeln!(
                    out,
                    "{pad}{} {style}{mark}{style:#} result for a call not in the log ({}): {text}",
                    time(e, styles),
                    r.call_id
                )?;
            }
            EventKind::ToolResult(_) => {}
        }
    }
    let unlinked = s
        .subagents
        .iter()
        .filter(|sub| sub.spawned_by.as_deref().is_none_or(|c| !calls.contains(c)));
    for sub in unlinked {
        subagent(out, sub, styles, depth + 1)?;
    }
    Ok(())
}

fn subagent(out: &mut impl Write, s: &Session, styles: &Styles, depth: usize) -> io::Result<()> {
    let pad = "    ".repeat(depth);
    let h = styles.heading;
    let id = if s.id.is_empty() { "(no id)" } else { &s.id };
    write!(out, "{pad}{h}↳ subagent {id}{h:#}")?;
    if let Some(name) = &s.name {
        write!(out, " · {name}")?;
    }
    let calls = s.tool_calls().count();
    write!(out, " · {}", plural(calls, "tool call", "tool calls"))?;
    if s.spawned_by.is_none() {
        write!(out, " · not started by a tool call")?;
    }
    if s.events.is_empty() {
        write!(out, " · its log was not found")?;
    }
    writeln!(out)?;
    body(out, s, styles, depth)
}

fn time(e: &Event, styles: &Styles) -> String {
    let d = styles.dim;
    match e.timestamp {
        Some(ts) => format!("{d}{}{d:#}", ts.strftime("%H:%M:%S")),
        None => " ".repeat(8),
    }
}

fn actor<'a>(e: &'a Event, styles: &Styles) -> (&'a str, anstyle::Style) {
    match e.actor.role {
        Role::User => ("user", styles.user),
        Role::Assistant => (
            e.actor.name.as_deref().unwrap_or("assistant"),
            styles.assistant,
        ),
        Role::System => ("system", styles.dim),
        Role::Tool => ("tool", styles.dim),
    }
}

fn mark(outcome: Option<Outcome>, styles: &Styles) -> (&'static str, anstyle::Style) {
    match outcome {
        Some(Outcome::Ok) => ("✓", styles.pass),
        Some(Outcome::Failed { .. } | Outcome::Error) => ("✗", styles.fail),
        Some(Outcome::Denied) => ("⊘", styles.fail),
        Some(Outcome::TimedOut) => ("⏱", styles.fail),
        None => ("…", styles.dim),
    }
}
