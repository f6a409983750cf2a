//! What one agent sees of the conversation: its `Isolation`, its `ContextWindow`, the run's
//! `Compaction` window and its `MaxInTurnToolPairs`. The record (session, journal) always keeps
//! everything; only the prompt is narrowed.

use vouch_llm::ChatMessage;

use crate::config::{AgentConfig, Compaction, Isolation};

/// One entry of the transcript: who (`None` for a user message) and what.
type Entry = (Option<String>, ChatMessage);

/// Returns the conversation `transcript` as `agent` sees it, with the run's compaction
/// `window` when it applies.
pub(crate) fn view(
    transcript: &[Entry],
    agent: &AgentConfig,
    window: Option<Compaction>,
) -> Vec<ChatMessage> {
    let name = agent.name.as_str();
    let cw = &agent.context_window;
    // The current turn: everything after the last user message (a routing note, a
    // correction, the task).
    let current = transcript
        .iter()
        .rposition(|(who, _)| who.is_none())
        .map_or(0, |i| i + 1);
    // Agent turns, numbered from the end: entries of one speaker in a row are one turn.
    let mut turn_of = vec![0u32; transcript.len()];
    let mut turns = 0u32;
    let mut last: Option<&str> = None;
    for (i, (who, _)) in transcript.iter().enumerate().rev() {
        if let Some(w) = who.as_deref()
            && last != Some(w)
        {
            turns += 1;
            last = Some(w);
        }
        if who.is_none() {
            last = None;
        }
        turn_of[i] = turns;
    }
    let age_limit = match (cw.max_turn_age, window) {
        (Some(a), Some(w)) if turns > w.trigger_turns => Some(a.min(w.keep_turns)),
        (Some(a), _) => Some(a),
        (None, Some(w)) if turns > w.trigger_turns => Some(w.keep_turns),
        (None, _) => None,
    };
    // Of the other agents, a fresh agent sees only the reply that handed the work to it: the
    // last other agent's text before its current turn.
    let handed = transcript[..current].iter().rposition(|(who, m)| {
        who.as_deref().is_some_and(|w| w != name)
            && matches!(m, ChatMessage::Assistant { text, .. } if !text.trim().is_empty())
    });
    let mut out: Vec<ChatMessage> = Vec::new();
    for (i, (who, message)) in transcript.iter().enumerate() {
        let in_turn = i >= current;
        let first = i == 0;
        if !first && !in_turn && age_limit.is_some_and(|a| turn_of[i] > a + 1) {
            continue;
        }
        match (who.as_deref(), message) {
            (None, m) => out.push(m.clone()),
            (Some(w), m) if w == name => {
                if in_turn || !cw.text_only {
                    out.push(cut(m, cw.max_tool_result_chars.filter(|_| !in_turn)));
                } else if let ChatMessage::Assistant { text, .. } = m
                    && !text.trim().is_empty()
                {
                    out.push(ChatMessage::Assistant {
                        text: text.clone(),
                        calls: Vec::new(),
                    });
                }
            }
            (Some(w), ChatMessage::Assistant { text, .. }) if !text.trim().is_empty() => {
                let excluded = cw.exclude_agents.iter().any(|x| x.eq_ignore_ascii_case(w));
                let shown = agent.isolation == Isolation::Shared || handed == Some(i);
                if shown && !excluded {
                    out.push(ChatMessage::User {
                        text: format!("[{w}]: {text}"),
                    });
                }
            }
            _ => {}
        }
    }
    if let Some(tail) = cw.max_tail_messages {
        // The task and the current turn stay; the history before it keeps its last messages.
        let turn_len = out.len().saturating_sub(
            out.iter()
                .rposition(|m| matches!(m, ChatMessage::User { .. }))
                .unwrap_or(0),
        );
        let history = out.len().saturating_sub(turn_len);
        let keep_from = history.saturating_sub(tail as usize).max(1);
        if keep_from > 1 && history > keep_from {
            out.drain(1..keep_from);
            out = drop_orphans(out);
        }
    }
    if let Some(pairs) = agent.max_in_turn_tool_pairs {
        out = window_calls(out, pairs as usize);
    }
    out
}

/// Returns `m` with a tool result cut to `limit` characters.
fn cut(m: &ChatMessage, limit: Option<u32>) -> ChatMessage {
    match (m, limit) {
        (
            ChatMessage::Tool {
                call_id,
                name,
                content,
            },
            Some(limit),
        ) if content.chars().count() > limit as usize => {
            let kept: String = content.chars().take(limit as usize).collect();
            ChatMessage::Tool {
                call_id: call_id.clone(),
                name: name.clone(),
                content: format!("{kept}\n[… cut to {limit} characters in this view]"),
            }
        }
        _ => m.clone(),
    }
}

/// Keeps only the last `pairs` steps with tool calls of the current turn (each with its
/// results): earlier ones become one note.
fn window_calls(mut out: Vec<ChatMessage>, pairs: usize) -> Vec<ChatMessage> {
    let start = out
        .iter()
        .rposition(|m| matches!(m, ChatMessage::User { .. }))
        .map_or(0, |i| i + 1);
    let steps: Vec<usize> = (start..out.len())
        .filter(|&i| matches!(&out[i], ChatMessage::Assistant { calls, .. } if !calls.is_empty()))
        .collect();
    if steps.len() <= pairs {
        return out;
    }
    let cut_at = steps[steps.len() - pairs];
    let dropped = steps.len() - pairs;
    out.drain(start..cut_at);
    out.insert(
        start,
        ChatMessage::Assistant {
            text: format!(
                "[{dropped} earlier steps with tool calls of this turn are left out of this view]"
            ),
            calls: Vec::new(),
        },
    );
    out
}

/// Removes tool results whose call is no longer in `out`, and calls whose results are not.
fn drop_orphans(out: Vec<ChatMessage>) -> Vec<ChatMessage> {
    let calls: Vec<String> = out
        .iter()
        .filter_map(|m| match m {
            ChatMessage::Assistant { calls, .. } => Some(calls.iter().map(|c| c.id.clone())),
            _ => None,
        })
        .flatten()
        .collect();
    out.into_iter()
        .filter(|m| match m {
            ChatMessage::Tool { call_id, .. } => calls.contains(call_id),
            _ => true,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use vouch_llm::ToolCallRequest;

    use super::*;
    use crate::config::ContextWindow;

    fn agent(name: &str, isolation: Isolation, cw: ContextWindow) -> AgentConfig {
        AgentConfig {
            isolation,
            context_window: cw,
            ..AgentConfig::named(name)
        }
    }

    fn user(t: &str) -> Entry {
        (None, ChatMessage::User { text: t.into() })
    }

    fn said(who: &str, t: &str) -> Entry {
        (
            Some(who.into()),
            ChatMessage::Assistant {
                text: t.into(),
                calls: Vec::new(),
            },
        )
    }

    fn called(who: &str, id: &str) -> Vec<Entry> {
        vec![
            (
                Some(who.into()),
                ChatMessage::Assistant {
                    text: String::new(),
                    calls: vec![ToolCallRequest {
                        id: id.into(),
                        name: "read_file".into(),
                        arguments: serde_json::json!({}),
                    }],
                },
            ),
            (
                Some(who.into()),
                ChatMessage::Tool {
                    call_id: id.into(),
                    name: "read_file".into(),
                    content: "x".repeat(50),
                },
            ),
        ]
    }

    fn texts(v: &[ChatMessage]) -> Vec<String> {
        v.iter()
            .map(|m| match m {
                ChatMessage::User { text } => format!("U {text}"),
                ChatMessage::Assistant { text, calls } => format!("A {text} {}", calls.len()),
                ChatMessage::Tool { content, .. } => format!("T {}", content.len()),
            })
            .collect()
    }

    #[test]
    fn a_fresh_agent_sees_only_the_reply_that_handed_over() {
        let t = vec![
            user("task"),
            said("Planner", "plan v1"),
            user("[routing] to Dev"),
            said("Dev", "done"),
            user("[routing] to Tester"),
            said("Tester", "bugs"),
            user("[routing] to Dev"),
        ];
        let fresh = view(
            &t,
            &agent("Dev", Isolation::Fresh, ContextWindow::default()),
            None,
        );
        assert_eq!(
            texts(&fresh),
            [
                "U task",
                "U [routing] to Dev",
                "A done 0",
                "U [routing] to Tester",
                "U [Tester]: bugs",
                "U [routing] to Dev"
            ]
        );
        let shared = view(
            &t,
            &agent("Dev", Isolation::Shared, ContextWindow::default()),
            None,
        );
        assert!(texts(&shared).contains(&"U [Planner]: plan v1".to_owned()));
    }

    #[test]
    fn text_only_drops_earlier_tool_frames_but_keeps_the_current_turn() {
        let mut t = vec![user("task")];
        t.extend(called("Rev", "c1"));
        t.push(said("Rev", "looked"));
        t.push(user("again"));
        t.extend(called("Rev", "c2"));
        let cw = ContextWindow {
            text_only: true,
            ..ContextWindow::default()
        };
        let v = view(&t, &agent("Rev", Isolation::Shared, cw), None);
        assert_eq!(
            texts(&v),
            ["U task", "A looked 0", "U again", "A  1", "T 50"]
        );
    }

    #[test]
    fn in_turn_tool_pairs_keep_the_last_steps() {
        let mut t = vec![user("task")];
        for i in 0..5 {
            t.extend(called("Dev", &format!("c{i}")));
        }
        let mut a = agent("Dev", Isolation::Shared, ContextWindow::default());
        a.max_in_turn_tool_pairs = Some(2);
        let v = view(&t, &a, None);
        assert_eq!(v.len(), 1 + 1 + 4, "{:?}", texts(&v));
        assert!(texts(&v)[1].contains("3 earlier steps"));
    }

    #[test]
    fn compaction_keeps_the_task_and_recent_turns() {
        let mut t = vec![user("task")];
        for i in 0..10 {
            t.push(said(if i % 2 == 0 { "A" } else { "B" }, &format!("m{i}")));
            t.push(user(&format!("n{i}")));
        }
        let window = Some(Compaction {
            trigger_turns: 5,
            keep_turns: 2,
        });
        let v = view(
            &t,
            &agent("A", Isolation::Shared, ContextWindow::default()),
            window,
        );
        let shown = texts(&v);
        assert_eq!(shown[0], "U task");
        assert!(!shown.iter().any(|s| s.contains("m0")), "{shown:?}");
        assert!(shown.iter().any(|s| s.contains("m9")), "{shown:?}");
    }
}
