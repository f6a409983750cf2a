//! The pipeline-run view of `vouch run --html`: how the run ended and what it cost per agent,
//! then one swimlane per agent — each turn a card in its agent's lane with its calls, the files
//! it wrote and the commands it ran — and between turns the handoff the router decided, every
//! blocked one with the message the agent received.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use vouch_gate::Decision;
use vouch_llm::Usage;
use vouch_pipeline::{Ended, RunRecord, TurnRecord};
use vouch_session::{ToolCall, ToolKind, ToolResult};

use super::page::{escape_text, page};
use crate::render::text::{self, Verdict, count_u64, excerpt, plural_count};

/// Returns the report of a pipeline run as a whole page: `record` read from its journal,
/// `ended` how the run ended when the caller knows (`vouch run`), else said from the last
/// decision (`vouch report`).
pub(crate) fn pipeline_page(record: &RunRecord, ended: Option<&Ended>) -> String {
    let mut body = String::new();
    header(&mut body, record, ended);
    lanes(&mut body, &record.turns);
    page("vouch · pipeline run", &body)
}

/// Returns how a run ended: its class, mark and sentence.
fn ending(record: &RunRecord, ended: Option<&Ended>) -> (&'static str, &'static str, String) {
    let ended = ended.cloned().or_else(|| {
        // A recorded run says how it ended through its last decision.
        match record.turns.last().and_then(|t| t.decision.as_ref())? {
            Decision::Terminate { reason } => Some(Ended::Terminated {
                reason: reason.clone(),
            }),
            Decision::Stuck {
                agent,
                validator,
                failures,
                last_message,
            } => Some(Ended::Stuck {
                agent: agent.clone(),
                validator: validator.clone(),
                failures: *failures,
                last_message: last_message.clone(),
            }),
            _ => None,
        }
    });
    let Some(ended) = ended else {
        return (
            "denied",
            "⊘",
            "Not ended: the journal stops before a final decision (a cap, a budget, an interruption or a failed model stopped the run; `vouch run --resume` goes on)".to_owned(),
        );
    };
    let (word, verdict, what) = text::ended(&ended);
    let (class, mark) = match verdict {
        Verdict::Pass => ("ok", "✓"),
        Verdict::Warn => ("denied", "⊘"),
        Verdict::Fail | Verdict::Error => ("failed", "✗"),
    };
    let mut word = word.to_owned();
    if let Some(first) = word.get_mut(..1) {
        first.make_ascii_uppercase();
    }
    (class, mark, format!("{word}: {what}"))
}

fn header(out: &mut String, record: &RunRecord, ended: Option<&Ended>) {
    let (class, mark, ended) = ending(record, ended);
    let _ = write!(
        out,
        "<header><h1>Pipeline run</h1><p class=\"ended {class}\"><span class=\"mark\" aria-hidden=\"true\">{mark}</span>{}</p>\
         <p class=\"meta\"><span>task: {}</span></p>\
         <p class=\"meta\"><span>{}</span><span>{}</span><span>session <code>{}</code></span></p>",
        escape_text(&ended),
        escape_text(&excerpt(&record.task, 200)),
        plural_count(record.turns.len(), "turn", "turns"),
        plural_count(record.corrections(), "correction", "corrections"),
        escape_text(&record.session.display().to_string()),
    );
    // How the kernel confined the run's commands, when it was not fully.
    if let Some((mode, missing)) = &record.sandbox
        && (mode != "on" || !missing.is_empty())
    {
        let _ = write!(
            out,
            "<p class=\"meta sandbox\"><span>sandbox: {}</span>{}</p>",
            escape_text(mode),
            missing
                .iter()
                .map(|m| format!("<span>not enforced: {}</span>", escape_text(m)))
                .collect::<String>()
        );
    }
    let _ = write!(
        out,
        "<table class=\"tokens\"><caption>Tokens per agent</caption><thead><tr><th scope=\"col\">agent</th><th scope=\"col\">in</th><th scope=\"col\">out</th></tr></thead><tbody>"
    );
    for (agent, usage) in &record.tokens {
        let _ = write!(
            out,
            "<tr><th scope=\"row\">{}</th><td>{}</td><td>{}</td></tr>",
            escape_text(agent),
            count_u64(usage.input),
            count_u64(usage.output)
        );
    }
    let _ = write!(out, "</tbody></table></header>");
}

fn lanes(out: &mut String, turns: &[TurnRecord]) {
    let mut agents: Vec<&str> = Vec::new();
    for t in turns {
        if !agents.contains(&t.agent.as_str()) {
            agents.push(&t.agent);
        }
    }
    let column: BTreeMap<&str, usize> = agents
        .iter()
        .enumerate()
        .map(|(i, a)| (*a, i + 1))
        .collect();
    let _ = write!(
        out,
        "<main class=\"lanes\" style=\"grid-template-columns: repeat({}, minmax(12rem, 1fr))\" aria-label=\"Turns by agent\">",
        agents.len().max(1)
    );
    for (i, agent) in agents.iter().enumerate() {
        let _ = write!(
            out,
            "<h2 class=\"lane\" style=\"grid-column: {}; grid-row: 1\">{}</h2>",
            i + 1,
            escape_text(agent)
        );
    }
    let mut row = 2;
    for t in turns {
        let col = column.get(t.agent.as_str()).copied().unwrap_or(1);
        turn(out, t, col, row);
        row += 1;
        if let Some(decision) = &t.decision {
            handoff(out, (t.number, decision, t.usage), &column, col, row);
            row += 1;
        }
    }
    let _ = write!(out, "</main>");
}

fn turn(out: &mut String, t: &TurnRecord, col: usize, row: usize) {
    let _ = write!(
        out,
        "<section class=\"card\" id=\"turn-{n}\" style=\"grid-column: {col}; grid-row: {row}\" aria-label=\"Turn {n}, {agent}\">\
         <h3>Turn {n} · {agent}</h3>",
        n = t.number,
        agent = escape_text(&t.agent)
    );
    if t.calls.is_empty() {
        let _ = write!(out, "<p class=\"meta\">no tool calls</p>");
    }
    rows(out, &t.calls);
    // Sub-agents the turn's calls started, each under a heading naming its call.
    for (call_id, calls) in &t.subagents {
        let _ = write!(
            out,
            "<div class=\"subagent\" aria-label=\"sub-agent of call {id}\"><p class=\"meta\">sub-agent of <code>{id}</code></p>",
            id = escape_text(call_id)
        );
        rows(out, calls);
        let _ = write!(out, "</div>");
    }
    let files: Vec<&str> = t
        .calls
        .iter()
        .filter(|(c, r)| {
            c.kind.writes_files() && r.as_ref().is_some_and(|r| r.outcome.is_success())
        })
        .flat_map(|(c, _)| c.touched_paths())
        .collect();
    let commands: Vec<&str> = t
        .calls
        .iter()
        .filter(|(c, _)| c.kind == ToolKind::Shell)
        .filter_map(|(c, _)| c.command())
        .collect();
    code_list(out, "files written", &files);
    code_list(out, "commands run", &commands);
    let _ = write!(out, "</section>");
}

/// Writes calls and their outcomes as a list of rows.
fn rows(out: &mut String, calls: &[(ToolCall, Option<ToolResult>)]) {
    let _ = write!(out, "<ul class=\"rows\">");
    for (call, result) in calls {
        let outcome = result.as_ref().map(|r| r.outcome);
        let (class, mark) = match outcome {
            Some(o) if o.is_success() => ("ok", "✓"),
            Some(_) => ("failed", "✗"),
            None => ("none", "…"),
        };
        let _ = write!(
            out,
            "<li class=\"row {class}\"><span class=\"mark\" aria-hidden=\"true\">{mark}</span><span class=\"tool\">{}</span> <span class=\"arg\">{}</span>{}</li>",
            escape_text(&call.name),
            escape_text(&excerpt(call.key_arg().unwrap_or_default(), 80)),
            match outcome {
                Some(o) if o.is_success() => String::new(),
                Some(o) => format!(" <span class=\"outcome\">{}</span>", o.label()),
                None => " <span class=\"outcome\">no result</span>".to_owned(),
            }
        );
    }
    let _ = write!(out, "</ul>");
}

/// Writes `label: a, b, c` with each item as code, when there are items.
fn code_list(out: &mut String, label: &str, items: &[&str]) {
    if items.is_empty() {
        return;
    }
    let items: Vec<String> = items
        .iter()
        .map(|i| format!("<code>{}</code>", escape_text(i)))
        .collect();
    let _ = write!(out, "<p class=\"meta\">{label}: {}</p>", items.join(", "));
}

fn handoff(
    out: &mut String,
    (turn, decision, usage): (u32, &Decision, Usage),
    column: &BTreeMap<&str, usize>,
    from: usize,
    row: usize,
) {
    let (class, mark, text, message) = match decision {
        Decision::Route { to, keyword, .. } => (
            "ok",
            "→",
            format!(
                "{keyword}: {} next",
                to.as_deref().unwrap_or("the same agent")
            ),
            None,
        ),
        Decision::Correct {
            kind,
            validator,
            message,
            ..
        } => (
            "failed",
            "↺",
            format!(
                "blocked by {}: corrected",
                validator.as_deref().unwrap_or(kind.label())
            ),
            Some(message.as_str()),
        ),
        Decision::Terminate { reason } => ("ok", "■", format!("ended: {reason}"), None),
        Decision::Stuck {
            validator,
            failures,
            last_message,
            ..
        } => (
            "failed",
            "✗",
            format!("stuck: {validator} blocked {failures} times in a row"),
            Some(last_message.as_str()),
        ),
    };
    // The arrow spans from the lane of the turn to the lane of the next agent.
    let to = match decision {
        Decision::Route { to: Some(to), .. } => column.get(to.as_str()).copied().unwrap_or(from),
        _ => from,
    };
    let (start, end) = (from.min(to), from.max(to) + 1);
    let direction = match to.cmp(&from) {
        std::cmp::Ordering::Less => " left",
        std::cmp::Ordering::Greater => " right",
        std::cmp::Ordering::Equal => "",
    };
    let _ = write!(
        out,
        "<div class=\"handoff {class}{direction}\" id=\"handoff-{turn}\" style=\"grid-column: {start} / {end}; grid-row: {row}\" role=\"note\">\
         <span class=\"mark\" aria-hidden=\"true\">{mark}</span>{} <span class=\"size\">({} tokens in, {} out)</span>",
        escape_text(&text),
        count_u64(usage.input),
        count_u64(usage.output)
    );
    if let Some(message) = message {
        let _ = write!(
            out,
            "<details class=\"message\"><summary>the message the agent received</summary><pre>{}</pre></details>",
            escape_text(message)
        );
    }
    let _ = write!(out, "</div>");
}
