//! The reply being routed — the agent's events since it began speaking — and the count of
//! replies in a history, which is what `maxiterations` caps.

use vouch_session::{Event, EventKind, Role, Session};

/// The agent's reply at the end of a history.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Reply<'s> {
    /// The index of its first event.
    pub(crate) start: usize,
    /// The `seq` of the history's last event: what the router acted on.
    pub(crate) last_seq: u64,
    /// The agent that wrote it, as the log names it.
    pub(crate) agent: Option<&'s str>,
    /// The text of its messages, joined by newlines.
    pub(crate) text: String,
    /// The `route_keyword` of its last `handoff` tool call.
    pub(crate) handoff: Option<&'s str>,
}

fn is_assistant(e: &Event) -> bool {
    e.actor.role == Role::Assistant
        && matches!(e.kind, EventKind::Message(_) | EventKind::ToolCall(_))
}

/// Returns the reply that ends `session`: the events after the most recent user message, or
/// after another named agent last spoke, whichever is later (decision G5, extended to histories
/// several agents share). `None` when the history ends with a user message or has no reply.
pub(crate) fn last_reply(session: &Session) -> Option<Reply<'_>> {
    let events = &session.events;
    let last = events.iter().rposition(is_assistant)?;
    if events[last..].iter().any(Event::is_user_message) {
        return None;
    }
    let agent = events[last].actor.name.as_deref();
    let start = events[..last]
        .iter()
        .rposition(|e| e.is_user_message() || (is_assistant(e) && e.actor.name.as_deref() != agent))
        .map_or(0, |i| i + 1);
    let reply = &events[start..];
    let text = reply
        .iter()
        .filter(|e| e.actor.role == Role::Assistant)
        .filter_map(Event::as_message)
        .collect::<Vec<_>>()
        .join("\n");
    let handoff = reply
        .iter()
        .filter_map(Event::as_tool_call)
        .filter(|c| c.name.to_ascii_lowercase().contains("handoff"))
        .filter_map(|c| c.arg_str("route_keyword"))
        .next_back();
    Some(Reply {
        start,
        last_seq: events.last().map_or(0, |e| u64::from(e.seq)),
        agent,
        text,
        handoff,
    })
}

/// Returns how many replies `session` holds: runs of an agent's events, each ended by a user
/// message or by another agent speaking.
pub(crate) fn count_replies(session: &Session) -> u32 {
    let mut count = 0u32;
    let mut current: Option<Option<&str>> = None;
    for e in &session.events {
        if e.is_user_message() {
            current = None;
        } else if is_assistant(e) {
            let name = e.actor.name.as_deref();
            if current != Some(name) {
                count = count.saturating_add(1);
                current = Some(name);
            }
        }
    }
    count
}

#[cfg(test)]
mod tests {
    use vouch_session::{Actor, Args, Message, ToolCall, ToolKind};

    use super::*;

    fn history(items: &[(Role, Option<&str>, &str)]) -> Session {
        let mut session = Session::default();
        for (i, (role, name, text)) in items.iter().enumerate() {
            let kind = if let Some(kw) = text.strip_prefix("handoff:") {
                EventKind::ToolCall(ToolCall {
                    call_id: format!("c{i}"),
                    name: "handoff".into(),
                    kind: ToolKind::Other,
                    args: Args::from_value(serde_json::json!({"route_keyword": kw})),
                })
            } else {
                EventKind::Message(Message {
                    text: (*text).into(),
                })
            };
            let actor = Actor {
                role: *role,
                name: name.map(Into::into),
            };
            session.push(actor, kind);
        }
        session
    }

    #[test]
    fn a_reply_ends_at_a_user_message_or_another_agent() {
        let s = history(&[
            (Role::User, None, "go"),
            (
                Role::Assistant,
                Some("Planner"),
                "plan\nHANDOFF TO DEVELOPER",
            ),
            (Role::Assistant, Some("Developer"), "coding"),
            (Role::Tool, None, "ok"),
            (Role::Assistant, Some("Developer"), "done"),
            (
                Role::Assistant,
                Some("Developer"),
                "handoff:HANDOFF TO TESTER",
            ),
        ]);
        let r = last_reply(&s).unwrap();
        assert_eq!(r.start, 2);
        assert_eq!(r.agent, Some("Developer"));
        assert_eq!(r.text, "coding\ndone");
        assert_eq!(r.handoff, Some("HANDOFF TO TESTER"));
        assert_eq!(r.last_seq, 5);
        assert_eq!(count_replies(&s), 2);
    }

    #[test]
    fn nothing_to_route_after_a_user_message() {
        let s = history(&[
            (Role::User, None, "go"),
            (Role::Assistant, None, "hi"),
            (Role::User, None, "[correction]"),
        ]);
        assert_eq!(last_reply(&s), None);
        assert_eq!(last_reply(&Session::default()), None);
        assert_eq!(count_replies(&s), 1);
        let s = history(&[
            (Role::User, None, "go"),
            (Role::Assistant, None, "one"),
            (Role::User, None, "again"),
            (Role::Assistant, None, "two"),
        ]);
        assert_eq!(last_reply(&s).unwrap().start, 3);
        assert_eq!(count_replies(&s), 2);
    }
}
