//! The session view: who did what, turn by turn — each tool call with its key argument, an
//! outcome mark and colour, its duration, and its full arguments and result one click away;
//! subagents nested under the call that started them; filters by text, tool and outcome.

use std::collections::{BTreeSet, HashMap};
use std::fmt::Write as _;

use jiff::Timestamp;
use vouch_session::{EventKind, Outcome, Session, SessionStats, ToolCall, ToolResult};

use super::page::{clip, escape, escape_text, page};
use crate::render::text::{count, count_u64, duration, excerpt, plural_count};

/// Bytes of a result shown in the report; the rest is counted, not shown (a 10,000-call
/// session stays under 10 MB).
const RESULT_BYTES: usize = 320;
/// Bytes of a call's arguments shown.
const ARGS_BYTES: usize = 1024;
/// Bytes of a message shown.
const MESSAGE_BYTES: usize = 4096;

/// Returns the report of `session` as a whole page.
pub(crate) fn session_page(session: &Session) -> String {
    let mut body = String::new();
    header(&mut body, session);
    filters(&mut body, session);
    let _ = write!(body, "<main id=\"timeline\">");
    render(&mut body, session, "");
    let _ = write!(body, "</main>");
    let title = if session.id.is_empty() {
        "vouch · session".to_owned()
    } else {
        format!("vouch · session {}", session.id)
    };
    page(&title, &body)
}

/// Writes the view of `session` without a page around it, for another report to hold: its ids
/// start with `prefix`, so that several sessions fit one page.
pub(super) fn session_view(out: &mut String, session: &Session, prefix: &str) {
    header(out, session);
    render(out, session, prefix);
}

fn header(out: &mut String, s: &Session) {
    let stats = SessionStats::of(s);
    let id = if s.id.is_empty() { "(no id)" } else { &s.id };
    let _ = write!(
        out,
        "<header><h1>Session <code>{}</code></h1><p class=\"meta\"><span>{}</span>",
        escape(id),
        escape(s.agent.as_str())
    );
    if let Some(model) = &s.model {
        let _ = write!(out, "<span>{}</span>", escape(model));
    }
    if let Some(path) = s.source.as_ref().and_then(|src| src.path.as_ref()) {
        let _ = write!(out, "<span>{}</span>", escape(&path.display().to_string()));
    }
    let _ = write!(out, "</p><p class=\"meta\">");
    for part in [
        plural_count(stats.events, "event", "events"),
        plural_count(stats.tool_calls, "tool call", "tool calls"),
        format!("{} failed", count(stats.failed)),
        format!("{} without a result", count(stats.unanswered)),
        plural_count(s.walk().len() - 1, "subagent", "subagents"),
    ] {
        let _ = write!(out, "<span>{part}</span>");
    }
    if let Some(secs) = stats.duration_secs {
        let _ = write!(out, "<span>{}</span>", duration(secs));
    }
    if let Some(t) = &stats.tokens {
        let _ = write!(
            out,
            "<span>{} tokens in, {} out</span>",
            count_u64(t.input + t.cache_read + t.cache_write),
            count_u64(t.output)
        );
    }
    let _ = write!(out, "</p></header>");
}

fn filters(out: &mut String, s: &Session) {
    let tools: BTreeSet<&str> = s
        .walk()
        .into_iter()
        .flat_map(|(_, s)| s.tool_calls().map(|c| c.name.as_ref()))
        .collect();
    let _ = write!(
        out,
        "<nav class=\"filters\" aria-label=\"Filter the calls\">\
         <label>Search <input type=\"search\" id=\"filter-text\" placeholder=\"command, path, output…\"></label>\
         <label>Tool <select id=\"filter-tool\"><option value=\"\">all</option>"
    );
    for tool in tools {
        let _ = write!(out, "<option>{}</option>", escape(tool));
    }
    let _ = write!(
        out,
        "</select></label><label>Outcome <select id=\"filter-outcome\"><option value=\"\">all</option>"
    );
    for (value, label) in [
        ("ok", "✓ ok"),
        ("failed", "✗ failed"),
        ("error", "✗ error"),
        ("denied", "⊘ denied"),
        ("timed_out", "⏱ timed out"),
        ("none", "… no result"),
    ] {
        let _ = write!(out, "<option value=\"{value}\">{label}</option>");
    }
    let _ = write!(
        out,
        "</select></label><span id=\"filter-count\" role=\"status\"></span></nav>"
    );
}

/// Writes the turns of one session; subagents go under their calls, unlinked ones after.
fn render(out: &mut String, s: &Session, prefix: &str) {
    render_at(out, s, prefix, true);
}

fn render_at(out: &mut String, s: &Session, prefix: &str, top: bool) {
    let mut results: HashMap<&str, (&ToolResult, Option<Timestamp>)> = HashMap::new();
    for e in &s.events {
        if let EventKind::ToolResult(r) = &e.kind {
            results.insert(r.call_id.as_str(), (r, e.timestamp));
        }
    }
    for turn in s.turns() {
        let _ = write!(
            out,
            "<section class=\"turn\" aria-label=\"Turn {n}\"><h3>Turn {n}</h3>",
            n = turn.index + 1
        );
        for e in turn.events {
            match &e.kind {
                EventKind::Message(m) => {
                    let role = e.actor.role.as_str();
                    let who = e.actor.name.as_deref().unwrap_or(role);
                    let (text, cut) = clip(m.text.trim(), MESSAGE_BYTES);
                    let _ = write!(
                        out,
                        "<div class=\"msg {role}\"><span class=\"who\">{}</span>{}{}</div>",
                        escape_text(who),
                        escape_text(text),
                        if cut { " …" } else { "" }
                    );
                }
                EventKind::ToolCall(c) => {
                    let result = results.get(c.call_id.as_str()).copied();
                    // Only the main log's lines are anchors: a subagent's lines are of its own
                    // file.
                    let line = e.line_number().filter(|_| s.spawned_by.is_none() && top);
                    call(out, s, c, (e.timestamp, line), result, prefix);
                }
                EventKind::ToolResult(_) => {}
            }
        }
        let _ = write!(out, "</section>");
    }
    let unlinked: Vec<&Session> = s
        .subagents
        .iter()
        .filter(|sub| {
            sub.spawned_by
                .as_deref()
                .is_none_or(|c| !s.tool_calls().any(|call| call.call_id == c))
        })
        .collect();
    for sub in unlinked {
        subagent(out, sub, prefix);
    }
}

fn call(
    out: &mut String,
    s: &Session,
    c: &ToolCall,
    (at, line): (Option<Timestamp>, Option<u64>),
    result: Option<(&ToolResult, Option<Timestamp>)>,
    prefix: &str,
) {
    let (class, mark, label) = match result.map(|(r, _)| r.outcome) {
        None => ("none", "…", "no result".to_owned()),
        Some(o @ Outcome::Ok) => ("ok", "✓", o.label()),
        Some(o @ Outcome::Failed { .. }) => ("failed", "✗", o.label()),
        Some(o @ Outcome::Error) => ("error", "✗", o.label()),
        Some(o @ Outcome::Denied) => ("denied", "⊘", o.label()),
        Some(o @ Outcome::TimedOut) => ("timed_out", "⏱", o.label()),
    };
    let key = c.key_arg().map(|a| excerpt(a, 120)).unwrap_or_default();
    // What a failing assertion's `(line N)` links to: the summary of the call on that line.
    let anchor = line
        .map(|n| format!(" id=\"{}line-{n}\"", escape(prefix)))
        .unwrap_or_default();
    let _ = write!(
        out,
        "<details class=\"call {class}\" id=\"{prefix}call-{id}\" data-tool=\"{tool}\" data-outcome=\"{class}\">\
         <summary{anchor}><span class=\"mark\" aria-hidden=\"true\">{mark}</span><span class=\"tool\">{tool}</span>\
         <span class=\"arg\">{key}</span><span class=\"outcome\">{label}</span>",
        prefix = escape(prefix),
        id = escape(&c.call_id),
        tool = escape(&c.name),
        key = escape_text(&key),
    );
    if let (Some(start), Some((_, Some(end)))) = (at, result) {
        let secs = end.duration_since(start).as_secs_f64();
        if secs >= 0.0 {
            let _ = write!(out, "<span class=\"dur\">{}</span>", duration(secs));
        }
    }
    let _ = write!(
        out,
        "<span class=\"kind\">{}</span></summary><div class=\"body\">",
        c.kind.as_str()
    );
    let args = serde_json::to_string_pretty(c.args.value()).unwrap_or_default();
    clipped(out, "Arguments", &args, ARGS_BYTES);
    if let Some((r, _)) = result {
        let text = s
            .output_text(&r.output)
            .unwrap_or_else(|e| format!("(the output could not be read back: {e})").into());
        clipped(out, "Result", &text, RESULT_BYTES);
    }
    if let Some(sub) = s.subagent_of(&c.call_id) {
        subagent(out, sub, prefix);
    }
    let _ = write!(out, "</div></details>");
}

/// Writes `text` under a heading, cut to `max` bytes with its whole size said when longer.
fn clipped(out: &mut String, heading: &str, text: &str, max: usize) {
    let (shown, cut) = clip(text, max);
    let _ = write!(out, "<h4>{heading}</h4><pre>{}</pre>", escape_text(shown));
    if cut {
        let _ = write!(
            out,
            "<p class=\"size\">{} bytes; the first {} shown</p>",
            count(text.len()),
            count(max)
        );
    }
}

fn subagent(out: &mut String, sub: &Session, prefix: &str) {
    let name = sub.name.as_deref().unwrap_or("subagent");
    let _ = write!(
        out,
        "<div class=\"subagent\" role=\"group\" aria-label=\"Subagent {name}\"><p class=\"meta\"><span class=\"who\">{name}</span><span><code>{id}</code></span></p>",
        name = escape(name),
        id = escape(&sub.id)
    );
    render_at(out, sub, prefix, false);
    let _ = write!(out, "</div>");
}
