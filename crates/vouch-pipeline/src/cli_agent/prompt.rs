//! The prompt of a CLI agent's turn: what happened in the run since its last turn — the task,
//! the reply that handed the work to it, the routing note or correction addressed to it —
//! since the CLI keeps the rest of its conversation itself. Its first turn begins with the
//! run's text and its instructions.

use vouch_llm::ChatMessage;

use crate::config::AgentConfig;

/// Returns the prompt of `agent`'s turn, from the run's conversation `transcript`.
pub(super) fn prompt(
    transcript: &[(Option<String>, ChatMessage)],
    agent: &AgentConfig,
    system: Option<&str>,
    first: bool,
) -> String {
    let own = |who: &Option<String>| {
        who.as_deref()
            .is_some_and(|w| w.eq_ignore_ascii_case(&agent.name))
    };
    let since = transcript
        .iter()
        .rposition(|(who, _)| own(who))
        .map_or(0, |i| i + 1);
    let recent = &transcript[since..];
    // Of the other agents, the last reply: the one that handed the work on.
    let handed = recent.iter().rposition(|(who, m)| {
        who.is_some() && matches!(m, ChatMessage::Assistant { text, .. } if !text.trim().is_empty())
    });
    let mut parts: Vec<String> = Vec::new();
    if first {
        parts.extend(system.map(str::to_owned));
        if !agent.instructions.trim().is_empty() {
            parts.push(agent.instructions.trim().to_owned());
        }
    }
    for (i, (who, message)) in recent.iter().enumerate() {
        match (who, message) {
            (None, ChatMessage::User { text }) => parts.push(text.clone()),
            (Some(who), ChatMessage::Assistant { text, .. }) if Some(i) == handed => {
                parts.push(format!("{who} says:\n{}", text.trim()));
            }
            _ => {}
        }
    }
    parts.join("\n\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn agent(name: &str, instructions: &str) -> AgentConfig {
        AgentConfig {
            instructions: instructions.to_owned(),
            ..AgentConfig::named(name)
        }
    }

    fn user(text: &str) -> (Option<String>, ChatMessage) {
        (
            None,
            ChatMessage::User {
                text: text.to_owned(),
            },
        )
    }

    fn said(who: &str, text: &str) -> (Option<String>, ChatMessage) {
        (
            Some(who.to_owned()),
            ChatMessage::Assistant {
                text: text.to_owned(),
                calls: Vec::new(),
            },
        )
    }

    #[test]
    fn the_first_turn_has_the_instructions_the_task_and_the_handing_reply() {
        let a = agent("Reviewer", "Review the change.");
        let t = vec![
            user("Fix add()."),
            said("Planner", "a plan"),
            said("Developer", "Fixed. HANDOFF TO REVIEWER"),
            user("[routing] Reviewer, review."),
        ];
        assert_eq!(
            prompt(&t, &a, Some("Run text."), true),
            "Run text.\n\nReview the change.\n\nFix add().\n\nDeveloper says:\nFixed. HANDOFF TO REVIEWER\n\n[routing] Reviewer, review."
        );
    }

    #[test]
    fn a_later_turn_has_only_what_came_after_its_own_reply() {
        let a = agent("Developer", "Develop.");
        let t = vec![
            user("Fix add()."),
            said("Developer", "Done. HANDOFF TO REVIEWER"),
            user("BLOCKED: no evidence of real work this turn"),
        ];
        assert_eq!(
            prompt(&t, &a, None, false),
            "BLOCKED: no evidence of real work this turn"
        );
    }
}
