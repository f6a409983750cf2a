//! The report of `vouch session stats`.

use std::io::{self, Write};

use vouch_session::SessionStats;

use crate::render::text::{count, count_u64, duration};
use crate::ui::Styles;

/// Writes the counts of a session and, indented, of each subagent.
pub(crate) fn write(out: &mut impl Write, stats: &SessionStats, styles: &Styles) -> io::Result<()> {
    block(out, stats, styles, 0)
}

fn block(out: &mut impl Write, s: &SessionStats, styles: &Styles, depth: usize) -> io::Result<()> {
    let pad = "    ".repeat(depth);
    let h = styles.heading;
    let id = if s.id.is_empty() { "(no id)" } else { &s.id };
    let what = if depth == 0 { "session" } else { "subagent" };
    write!(out, "{pad}{h}{what} {id}{h:#}  {}", s.agent)?;
    if let Some(name) = &s.name {
        write!(out, " · {name}")?;
    }
    writeln!(out)?;
    if let Some(call) = &s.spawned_by {
        writeln!(out, "{pad}  spawned by  {call}")?;
    }
    write!(out, "{pad}  events      {}", count(s.events))?;
    if s.events == 0 && s.subagents.is_empty() {
        write!(out, " (the log holds no messages or tool calls)")?;
    }
    writeln!(out)?;
    writeln!(
        out,
        "{pad}  messages    {} user · {} assistant",
        count(s.user_messages),
        count(s.assistant_messages)
    )?;
    write!(out, "{pad}  tool calls  {}", count(s.tool_calls))?;
    if s.unanswered > 0 {
        write!(out, " ({} without a result)", count(s.unanswered))?;
    }
    writeln!(out)?;
    write!(out, "{pad}  failed      {}", count(s.failed))?;
    if !s.failed_by_outcome.is_empty() {
        let parts: Vec<String> = s
            .failed_by_outcome
            .iter()
            .map(|(k, n)| format!("{} {}", count(*n), k.replace('_', " ")))
            .collect();
        write!(out, " ({})", parts.join(", "))?;
    }
    writeln!(out)?;
    if let Some(secs) = s.duration_secs {
        writeln!(out, "{pad}  duration    {}", duration(secs))?;
    }
    if let Some(t) = &s.tokens {
        write!(
            out,
            "{pad}  tokens      {} in · {} out",
            count_u64(t.input),
            count_u64(t.output)
        )?;
        for (n, what) in [(t.cache_read, "cache read"), (t.cache_write, "cache write")] {
            if n > 0 {
                write!(out, " · {} {what}", count_u64(n))?;
            }
        }
        writeln!(out)?;
    }
    if s.tool_calls > 0 {
        writeln!(out)?;
        let names = s.names_by_count();
        let kind_width = s
            .by_kind
            .keys()
            .map(|k| k.as_str().len())
            .max()
            .unwrap_or(0);
        let width = names
            .iter()
            .map(|(n, _)| n.chars().count())
            .max()
            .unwrap_or(0)
            .max(kind_width);
        writeln!(out, "{pad}  {h}{:<width$}  {:>6}{h:#}", "tool", "calls")?;
        for (name, n) in names {
            writeln!(out, "{pad}  {name:<width$}  {:>6}", count(n))?;
        }
        writeln!(out)?;
        writeln!(out, "{pad}  {h}{:<width$}  {:>6}{h:#}", "kind", "calls")?;
        let mut kinds: Vec<_> = s.by_kind.iter().collect();
        kinds.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        for (kind, n) in kinds {
            writeln!(out, "{pad}  {:<width$}  {:>6}", kind.as_str(), count(*n))?;
        }
    }
    for sub in &s.subagents {
        writeln!(out)?;
        block(out, sub, styles, depth + 1)?;
    }
    Ok(())
}
