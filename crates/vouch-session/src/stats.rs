//! Counts over a session: tool calls per name and per kind, failed results, subagents, duration.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::event::{EventKind, Role};
use crate::session::{Session, Usage};
use crate::tool::{Outcome, ToolKind};

/// Counts over one session and, nested, over each of its subagents.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SessionStats {
    /// The session id.
    pub id: String,
    /// The product that wrote the log.
    pub agent: String,
    /// The agent's name, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The spawning call, for a subagent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spawned_by: Option<String>,
    /// Number of events.
    pub events: usize,
    /// Number of user messages (turns started by the user role).
    pub user_messages: usize,
    /// Number of messages by the agent.
    pub assistant_messages: usize,
    /// Number of tool calls.
    pub tool_calls: usize,
    /// Tool calls per tool name, as the log spells it.
    pub by_name: BTreeMap<String, usize>,
    /// Tool calls per canonical kind.
    pub by_kind: BTreeMap<ToolKind, usize>,
    /// Number of tool results.
    pub results: usize,
    /// Results whose outcome is not a success.
    pub failed: usize,
    /// Failed results per outcome (`failed`, `denied`, `timed_out`, `error`).
    pub failed_by_outcome: BTreeMap<&'static str, usize>,
    /// Calls with no result in the log.
    pub unanswered: usize,
    /// Tokens the session's model calls used, when the log records them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tokens: Option<Usage>,
    /// Seconds from the first to the last timestamped event.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duration_secs: Option<f64>,
    /// The same counts for each subagent.
    pub subagents: Vec<SessionStats>,
}

impl SessionStats {
    /// Counts over `session` and its subagents.
    pub fn of(session: &Session) -> SessionStats {
        let mut stats = SessionStats {
            id: session.id.clone(),
            agent: session.agent.as_str().to_owned(),
            name: session.name.clone(),
            spawned_by: session.spawned_by.clone(),
            events: session.events.len(),
            user_messages: 0,
            assistant_messages: 0,
            tool_calls: 0,
            by_name: BTreeMap::new(),
            by_kind: BTreeMap::new(),
            results: 0,
            failed: 0,
            failed_by_outcome: BTreeMap::new(),
            unanswered: 0,
            tokens: session.usage,
            duration_secs: session.duration().map(|d| d.as_secs_f64()),
            subagents: session.subagents.iter().map(SessionStats::of).collect(),
        };
        let mut by_name: crate::hash::FastMap<&str, usize> = crate::hash::FastMap::default();
        let mut open = OpenCalls::default();
        for e in &session.events {
            match &e.kind {
                EventKind::Message(_) => match e.actor.role {
                    Role::User => stats.user_messages += 1,
                    Role::Assistant => stats.assistant_messages += 1,
                    Role::System | Role::Tool => {}
                },
                EventKind::ToolCall(c) => {
                    stats.tool_calls += 1;
                    // Counted by borrowed name in a hash map: each name is copied once, at
                    // the end, not compared along a tree for every call.
                    *by_name.entry(&*c.name).or_default() += 1;
                    *stats.by_kind.entry(c.kind).or_default() += 1;
                    open.call(&c.call_id);
                }
                EventKind::ToolResult(r) => {
                    stats.results += 1;
                    open.result(&r.call_id);
                    let label = match r.outcome {
                        Outcome::Ok => None,
                        Outcome::Failed { .. } => Some("failed"),
                        Outcome::Denied => Some("denied"),
                        Outcome::TimedOut => Some("timed_out"),
                        Outcome::Error => Some("error"),
                    };
                    if let Some(label) = label {
                        stats.failed += 1;
                        *stats.failed_by_outcome.entry(label).or_default() += 1;
                    }
                }
            }
        }
        stats.by_name = by_name
            .into_iter()
            .map(|(name, n)| (name.to_owned(), n))
            .collect();
        stats.unanswered = open.unanswered(session);
        stats
    }

    /// Returns the tool names with their counts, most called first, ties by name.
    pub fn names_by_count(&self) -> Vec<(&str, usize)> {
        let mut names: Vec<(&str, usize)> =
            self.by_name.iter().map(|(n, c)| (n.as_str(), *c)).collect();
        names.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        names
    }
}

/// The calls of a session no result answers (a result answers every call with its id, wherever
/// it stands). Results nearly always follow their calls closely, so the calls are matched in
/// order with a small map of the open ones, in the same pass as the other counts (on a large
/// log, walking the events is most of the cost); only calls still open at the end are looked
/// for among all the results.
#[derive(Default)]
struct OpenCalls<'s>(crate::hash::FastMap<&'s str, usize>);

impl<'s> OpenCalls<'s> {
    fn call(&mut self, id: &'s str) {
        *self.0.entry(id).or_default() += 1;
    }

    fn result(&mut self, id: &str) {
        self.0.remove(id);
    }

    /// Returns how many calls stayed unanswered.
    fn unanswered(self, session: &Session) -> usize {
        if self.0.is_empty() {
            return 0;
        }
        // A result may come before its call, or answer a call whose id comes again later.
        let answered: crate::hash::FastSet<&str> = session
            .events
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::ToolResult(r) => Some(r.call_id.as_str()),
                _ => None,
            })
            .collect();
        self.0
            .iter()
            .filter(|(id, _)| !answered.contains(*id))
            .map(|(_, n)| n)
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::{Actor, Event};
    use crate::output::Output;
    use crate::tool::{Args, ToolCall, ToolKind, ToolResult};

    fn session(steps: &[(&str, &str)]) -> Session {
        let events = steps
            .iter()
            .zip(0..)
            .map(|((what, id), seq)| {
                let (role, kind) = if *what == "call" {
                    let call = ToolCall {
                        call_id: (*id).to_owned(),
                        name: "Bash".into(),
                        kind: ToolKind::Shell,
                        args: Args::default(),
                    };
                    (Role::Assistant, EventKind::ToolCall(call))
                } else {
                    let result = ToolResult {
                        call_id: (*id).to_owned(),
                        output: Output::inline("ok"),
                        outcome: Outcome::Ok,
                    };
                    (Role::Tool, EventKind::ToolResult(result))
                };
                Event {
                    seq,
                    timestamp: None,
                    actor: Actor::new(role),
                    kind,
                    line: None,
                }
            })
            .collect();
        Session {
            events,
            ..Session::default()
        }
    }

    #[test]
    fn a_result_answers_every_call_with_its_id_wherever_it_stands() {
        let cases: &[(&[(&str, &str)], usize)] = &[
            (&[("call", "a"), ("result", "a")], 0),
            (&[("call", "a"), ("call", "b"), ("result", "b")], 1),
            // A result before its call, and an id called again after its result.
            (&[("result", "a"), ("call", "a")], 0),
            (&[("call", "a"), ("result", "a"), ("call", "a")], 0),
            (&[("call", "a"), ("call", "a"), ("call", "b")], 3),
            (
                &[("call", "a"), ("call", "a"), ("result", "a"), ("call", "c")],
                1,
            ),
        ];
        for (steps, expected) in cases {
            assert_eq!(
                SessionStats::of(&session(steps)).unanswered,
                *expected,
                "{steps:?}"
            );
        }
    }
}
