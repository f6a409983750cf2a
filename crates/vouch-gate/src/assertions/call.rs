//! Assertions on an agent's tool calls — called or not, with which parameters, how often, in
//! what order, whether they succeeded — over the whole session, subagents included, or one
//! agent's or subagent's calls.

use std::fmt::Write as _;

use vouch_evidence::Call;

use crate::assertions::params::{Params, value};
use crate::assertions::tool::ToolName;
use crate::predicate::{GateContext, Predicate, Verdict};

/// Whose calls an assertion looks at.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Scope {
    /// `agent:`: the calls of the agent with this name (a named agent of a shared history, or
    /// a subagent).
    pub agent: Option<String>,
    /// `subagent:`: the calls made inside the subagent with this name or id.
    pub subagent: Option<String>,
}

impl Scope {
    /// Returns true when `call` is in scope.
    pub fn includes(&self, call: &Call<'_>) -> bool {
        let same = |a: &str, b: Option<&str>| b.is_some_and(|b| b.eq_ignore_ascii_case(a));
        if let Some(agent) = &self.agent {
            let by_actor = same(agent, call.event.actor.name.as_deref());
            let by_session = call.depth > 0 && same(agent, call.session.name.as_deref());
            if !by_actor && !by_session {
                return false;
            }
        }
        if let Some(sub) = &self.subagent {
            let named =
                same(sub, call.session.name.as_deref()) || same(sub, Some(&call.session.id));
            if call.depth == 0 || !named {
                return false;
            }
        }
        true
    }

    fn describe(&self) -> String {
        let mut out = String::new();
        if let Some(a) = &self.agent {
            let _ = write!(out, " by agent {a}");
        }
        if let Some(s) = &self.subagent {
            let _ = write!(out, " in subagent {s}");
        }
        out
    }
}

/// A tool and its parameters: a step of a sequence, or the other side of an order.
#[derive(Debug, Clone)]
pub struct ToolMatch {
    /// The tool.
    pub tool: ToolName,
    /// Its parameters.
    pub params: Params,
    /// `succeeded`: only calls whose result says so.
    pub succeeded: Option<bool>,
}

impl ToolMatch {
    /// Returns true when `call` is this tool with these parameters (and outcome).
    pub fn matches(&self, call: &Call<'_>) -> bool {
        self.tool.matches(call.call) && self.matches_args(call)
    }

    /// Returns true when `call`, known to be of this tool, has these parameters (and outcome).
    pub fn matches_args(&self, call: &Call<'_>) -> bool {
        self.succeeded.is_none_or(|s| call.succeeded() == s) && self.params.matches(call.call)
    }

    /// Returns the match as a row shows it: `Read with file_path glob *.env`.
    pub fn describe(&self) -> String {
        let mut out = self.tool.as_str().to_owned();
        if !self.params.is_empty() {
            let _ = write!(out, " with {}", self.params);
        }
        match self.succeeded {
            Some(true) => out.push_str(" that succeeded"),
            Some(false) => out.push_str(" that failed"),
            None => {}
        }
        out
    }
}

/// The assertion of a test's `tool:` entry.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct CallAssertion {
    /// The tool, its `params` and `succeeded`.
    pub target: ToolMatch,
    /// `called`; `None` when not written (then: called at least once, unless a count says).
    pub called: Option<bool>,
    /// `call_count`.
    pub call_count: Option<u32>,
    /// `min_calls`.
    pub min_calls: Option<u32>,
    /// `max_calls`.
    pub max_calls: Option<u32>,
    /// `called_after`: every matching call comes after the first call of this.
    pub called_after: Option<ToolMatch>,
    /// `called_before`: every matching call comes before the last call of this.
    pub called_before: Option<ToolMatch>,
    /// `first_call_params`, `nth_call_params` and `last_call_params`, as (1-based position,
    /// parameters); position 0 stands for the last.
    pub positions: Vec<(u32, Params)>,
    /// `agent:` / `subagent:`.
    pub scope: Scope,
}

impl CallAssertion {
    /// Returns an assertion that `target` was called (at least once).
    pub fn new(target: ToolMatch) -> CallAssertion {
        CallAssertion {
            target,
            called: None,
            call_count: None,
            min_calls: None,
            max_calls: None,
            called_after: None,
            called_before: None,
            positions: Vec::new(),
            scope: Scope::default(),
        }
    }

    fn counted(&self) -> bool {
        self.call_count.is_some() || self.min_calls.is_some() || self.max_calls.is_some()
    }
}

/// A call as a failure message shows it: `Read /proj/.env (line 12)`.
pub fn show(call: &Call<'_>) -> String {
    let mut out = call.call.name.to_string();
    if let Some(arg) = call.call.key_arg() {
        let arg: String = arg.split_whitespace().collect::<Vec<_>>().join(" ");
        let cut: String = arg.chars().take(80).collect();
        let ellipsis = if cut.chars().count() < arg.chars().count() {
            "…"
        } else {
            ""
        };
        let _ = write!(out, " {cut}{ellipsis}");
    }
    match call.result {
        Some(r) if !r.outcome.is_success() => {
            let _ = write!(out, " [{}]", r.outcome.label());
        }
        None => out.push_str(" [no result]"),
        Some(_) => {}
    }
    if let Some(line) = call.event.line_number() {
        let _ = write!(out, " (line {line})");
    }
    if call.depth > 0 {
        let who = call.session.name.as_deref().unwrap_or(&call.session.id);
        let _ = write!(out, " [subagent {who}]");
    }
    out
}

/// The values a call has for `params`' keys, for a message: `file_path = /p/a.rs`.
fn values_of(params: &Params, call: &Call<'_>) -> String {
    let values: Vec<String> = params
        .0
        .iter()
        .map(|p| {
            let v = value(call.call, &p.key).map_or("(absent)".into(), |v| truncate(&v));
            format!("{} = {v}", p.key)
        })
        .collect();
    values.join(", ")
}

fn times(n: usize) -> String {
    if n == 1 {
        "1 time".to_owned()
    } else {
        format!("{n} times")
    }
}

fn ordinal(n: u32) -> String {
    let suffix = match (n % 10, n % 100) {
        (1, 11) | (2, 12) | (3, 13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// Up to three calls, for a message.
fn list(calls: &[&Call<'_>]) -> String {
    let mut out: Vec<String> = calls.iter().take(3).map(|c| show(c)).collect();
    if calls.len() > 3 {
        out.push(format!("and {} more", calls.len() - 3));
    }
    out.join("; ")
}

impl Predicate for CallAssertion {
    fn name(&self) -> &'static str {
        "ToolCall"
    }

    fn turns_needed(&self) -> Option<usize> {
        None
    }

    fn describe(&self) -> String {
        let a = self;
        let mut out = a.target.tool.as_str().to_owned();
        let not = a.called == Some(false)
            || (a.max_calls == Some(0) && a.min_calls.is_none() && a.call_count.is_none());
        out.push_str(if not { " not called" } else { " called" });
        if !a.target.params.is_empty() {
            let _ = write!(out, " with {}", a.target.params);
        }
        match a.target.succeeded {
            Some(true) => out.push_str(", succeeding"),
            Some(false) => out.push_str(", failing"),
            None => {}
        }
        if let Some(n) = a.call_count {
            let _ = write!(out, " exactly {}", times(n as usize));
        }
        if let Some(n) = a.min_calls {
            let _ = write!(out, " at least {}", times(n as usize));
        }
        if let Some(n) = a.max_calls.filter(|&n| n > 0 || a.min_calls.is_some()) {
            let _ = write!(out, " at most {}", times(n as usize));
        }
        if let Some(o) = &a.called_after {
            let _ = write!(out, ", after the first {}", o.describe());
        }
        if let Some(o) = &a.called_before {
            let _ = write!(out, ", before the last {}", o.describe());
        }
        for (n, params) in &a.positions {
            let which = if *n == 0 {
                "last".to_owned()
            } else {
                ordinal(*n)
            };
            let _ = write!(out, ", {which} call with {params}");
        }
        out.push_str(&a.scope.describe());
        out
    }

    fn evaluate(&self, cx: &GateContext<'_, '_>) -> Verdict {
        let calls = cx.view.all_calls();
        let index = cx.view.call_index();
        // The calls of a tool in scope, read through the index: only that tool's calls.
        let scoped = |tool: &ToolName| -> Vec<(usize, &Call<'_>)> {
            tool.positions(index, calls)
                .into_iter()
                .map(|i| (i, &calls[i]))
                .filter(|(_, c)| self.scope.includes(c))
                .collect()
        };
        let of_tool = scoped(&self.target.tool);
        let matching: Vec<(usize, &Call<'_>)> = of_tool
            .iter()
            .copied()
            .filter(|(_, c)| self.target.matches_args(c))
            .collect();
        let n = matching.len();
        let mut problems: Vec<String> = Vec::new();
        let matched: Vec<&Call<'_>> = matching.iter().map(|(_, c)| *c).collect();
        if self.counted() {
            let say = |problems: &mut Vec<String>, wanted: String| {
                let seen = if n == 0 {
                    String::new()
                } else {
                    format!(": {}", list(&matched))
                };
                problems.push(format!("called {}, expected {wanted}{seen}", times(n)));
            };
            if let Some(c) = self.call_count
                && n != c as usize
            {
                say(&mut problems, format!("exactly {}", times(c as usize)));
            }
            if let Some(c) = self.min_calls
                && n < c as usize
            {
                say(&mut problems, format!("at least {}", times(c as usize)));
            }
            if let Some(c) = self.max_calls
                && n > c as usize
            {
                say(&mut problems, format!("at most {}", times(c as usize)));
            }
        } else if self.called == Some(false) {
            if n > 0 {
                problems.push(format!("called {}: {}", times(n), list(&matched)));
            }
        } else if n == 0 {
            problems.push(self.why_never(&of_tool));
        }
        if let Some(after) = &self.called_after {
            let first = scoped(&after.tool)
                .into_iter()
                .find(|(_, c)| after.matches_args(c))
                .map(|(i, _)| i);
            match first {
                None => problems.push(format!("{} was never called", after.describe())),
                Some(first) => {
                    let early: Vec<&Call<'_>> = matching
                        .iter()
                        .filter(|(i, _)| *i < first)
                        .map(|(_, c)| *c)
                        .collect();
                    if !early.is_empty() {
                        let anchor = show(&calls[first]);
                        problems.push(format!(
                            "called before the first {} ({anchor}): {}",
                            after.describe(),
                            list(&early)
                        ));
                    }
                }
            }
        }
        if let Some(before) = &self.called_before {
            let last = scoped(&before.tool)
                .into_iter()
                .rev()
                .find(|(_, c)| before.matches_args(c))
                .map(|(i, _)| i);
            match last {
                None => problems.push(format!("{} was never called", before.describe())),
                Some(last) => {
                    let late: Vec<&Call<'_>> = matching
                        .iter()
                        .filter(|(i, _)| *i > last)
                        .map(|(_, c)| *c)
                        .collect();
                    if !late.is_empty() {
                        let anchor = show(&calls[last]);
                        problems.push(format!(
                            "called after the last {} ({anchor}): {}",
                            before.describe(),
                            list(&late)
                        ));
                    }
                }
            }
        }
        for (position, params) in &self.positions {
            let (which, call) = if *position == 0 {
                ("last".to_owned(), of_tool.last())
            } else {
                (ordinal(*position), of_tool.get(*position as usize - 1))
            };
            match call {
                None => problems.push(format!(
                    "there is no {which} call of {}: it was called {}",
                    self.target.tool.as_str(),
                    times(of_tool.len())
                )),
                Some((_, c)) if !params.matches(c.call) => {
                    problems.push(format!(
                        "the {which} call ({}) has {}, expected {params}",
                        show(c),
                        values_of(params, c)
                    ));
                }
                Some(_) => {}
            }
        }
        if problems.is_empty() {
            Verdict::Pass
        } else {
            Verdict::block(self.name(), problems.join("\n"))
        }
    }
}

impl CallAssertion {
    /// Says why no call matched: the tool was never called, or its calls had other
    /// parameters (the first few shown), or none had the wanted outcome.
    fn why_never(&self, of_tool: &[(usize, &Call<'_>)]) -> String {
        let tool = self.target.tool.as_str();
        if of_tool.is_empty() {
            return format!("{tool} was never called");
        }
        // Without an outcome to match, no call matched the parameters: no need to look again.
        let with_params: Vec<&Call<'_>> = if self.target.succeeded.is_none() {
            Vec::new()
        } else {
            of_tool
                .iter()
                .map(|(_, c)| *c)
                .filter(|c| self.target.params.matches(c.call))
                .collect()
        };
        if with_params.is_empty() {
            let seen: Vec<String> = of_tool
                .iter()
                .take(3)
                .map(|(_, c)| values_of(&self.target.params, c))
                .collect();
            let more = if of_tool.len() > 3 {
                format!("; and {} more", of_tool.len() - 3)
            } else {
                String::new()
            };
            return format!(
                "{tool} was called {}, never with {}: {}{more}",
                times(of_tool.len()),
                self.target.params,
                seen.join("; ")
            );
        }
        let outcome = if self.target.succeeded == Some(true) {
            "succeeded"
        } else {
            "failed"
        };
        format!(
            "{tool} was called {} with {}, and none {outcome}: {}",
            times(with_params.len()),
            if self.target.params.is_empty() {
                "any parameters".to_owned()
            } else {
                self.target.params.to_string()
            },
            list(&with_params)
        )
    }
}

/// Cuts a value for a message, on a character boundary.
pub(crate) fn truncate(v: &str) -> String {
    let v: String = v.split_whitespace().collect::<Vec<_>>().join(" ");
    // Eighty characters in all, the mark included.
    match vouch_process::clip::head_of(&v, 80) {
        (_, true) => vouch_process::clip::head(&v, 79),
        (_, false) => v,
    }
}
