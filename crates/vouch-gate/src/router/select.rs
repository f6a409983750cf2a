//! The selections without keywords: the next agent in order (`sequential`, `roundrobin`), the
//! first structured route whose condition holds of the reply's JSON (`structured`), or a model's
//! choice (`llm`, `magentic`), which the runner asks for.

use serde_json::Value;

use crate::config::{Condition, ConditionTest, PipelineConfig, Route, SelectionKind};

/// What a selection without keywords makes of a reply.
#[derive(Debug)]
pub(crate) enum Selected<'c> {
    /// The next agent, and why.
    Next { to: String, why: String },
    /// The structured route whose condition holds (its gates still to pass).
    Structured(&'c Route),
    /// A model picks the next agent: the runner asks it.
    ByModel,
    /// The run is over: every agent of a `sequential` selection has spoken.
    Done(String),
    /// The reply is not the JSON a structured selection reads.
    NotJson(String),
    /// No route's condition holds, and there is no `DefaultAgent`.
    NoRoute(String),
}

/// Applies `config`'s selection to a reply of `agent` whose text is `text`.
pub(crate) fn select<'c>(
    config: &'c PipelineConfig,
    agent: Option<&str>,
    text: &str,
) -> Selected<'c> {
    let names: Vec<&str> = config.agents().iter().map(|a| a.name.as_str()).collect();
    let position = agent.and_then(|a| names.iter().position(|n| n.eq_ignore_ascii_case(a)));
    let selection = config.selection();
    match selection.kind {
        SelectionKind::Sequential => match position.map(|i| i + 1) {
            Some(next) if next < names.len() => Selected::Next {
                to: names[next].to_owned(),
                why: "sequential".to_owned(),
            },
            _ => Selected::Done(format!(
                "{} spoke last of the sequential selection's {} agents: each has taken its turn.",
                agent.unwrap_or("the agent"),
                names.len()
            )),
        },
        SelectionKind::RoundRobin => {
            let next = position.map_or(0, |i| (i + 1) % names.len().max(1));
            match names.get(next) {
                Some(to) => Selected::Next {
                    to: (*to).to_owned(),
                    why: "roundrobin".to_owned(),
                },
                None => Selected::Done("the round-robin selection has no agents".to_owned()),
            }
        }
        SelectionKind::Structured => {
            let Some(value) = json_of(text) else {
                return Selected::NotJson(format!(
                    "Your reply is not the JSON object this pipeline routes on: answer with one JSON object (alone, or in a ```json block){}.",
                    fields_hint(&selection.structured, agent)
                ));
            };
            let matching = selection
                .structured
                .iter()
                .filter(|r| r.allows(agent))
                .find(|r| r.condition.as_ref().is_some_and(|c| holds(c, &value)));
            match (matching, &selection.default_agent) {
                (Some(route), _) => Selected::Structured(route),
                (None, Some(default)) => Selected::Next {
                    to: default.clone(),
                    why: "structured: no condition holds, so the default agent".to_owned(),
                },
                (None, None) => Selected::NoRoute(format!(
                    "No route's condition holds of your JSON reply{}.",
                    fields_hint(&selection.structured, agent)
                )),
            }
        }
        // Keyword and state-machine replies never get here; a model picks for the others.
        SelectionKind::Llm
        | SelectionKind::Magentic
        | SelectionKind::Keyword
        | SelectionKind::StateMachine => Selected::ByModel,
    }
}

/// Returns what the structured routes open to `agent` look for, for a correction.
fn fields_hint(routes: &[Route], agent: Option<&str>) -> String {
    let conditions: Vec<String> = routes
        .iter()
        .filter(|r| r.allows(agent))
        .filter_map(|r| r.condition.as_ref().map(|c| format!("`{c}`")))
        .collect();
    if conditions.is_empty() {
        String::new()
    } else {
        format!("; the routes look for {}", conditions.join(", "))
    }
}

/// Returns the JSON object of a reply (what a `structured` selection routes on): the whole text, else the last ```json (or bare ```)
/// block, else the outermost `{…}` of the text.
pub fn json_of(text: &str) -> Option<Value> {
    let parse = |s: &str| -> Option<Value> {
        serde_json::from_str::<Value>(s.trim())
            .ok()
            .filter(Value::is_object)
    };
    if let Some(v) = parse(text) {
        return Some(v);
    }
    let mut blocks = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find("```") {
        let after = &rest[open + 3..];
        let body_start = after.find('\n').map_or(after.len(), |i| i + 1);
        let body = &after[body_start..];
        let Some(close) = body.find("```") else {
            break;
        };
        blocks.push(&body[..close]);
        rest = &body[close + 3..];
    }
    if let Some(v) = blocks.iter().rev().find_map(|b| parse(b)) {
        return Some(v);
    }
    let (start, end) = (text.find('{')?, text.rfind('}')?);
    (start < end).then(|| parse(&text[start..=end])).flatten()
}

/// Returns true when `condition` holds of `value`.
pub(crate) fn holds(condition: &Condition, value: &Value) -> bool {
    let field = condition
        .field
        .split('.')
        .try_fold(value, |v, key| v.get(key))
        .filter(|v| !v.is_null());
    let text = |v: &Value| match v {
        Value::String(s) => s.trim().to_owned(),
        other => other.to_string(),
    };
    match &condition.test {
        ConditionTest::Exists(wanted) => field.is_some() == *wanted,
        ConditionTest::Is(want) => field.is_some_and(|v| text(v).eq_ignore_ascii_case(want.trim())),
        ConditionTest::IsNot(want) => {
            !field.is_some_and(|v| text(v).eq_ignore_ascii_case(want.trim()))
        }
        ConditionTest::Contains(want) => field.is_some_and(|v| match v {
            Value::Array(items) => items
                .iter()
                .any(|i| text(i).eq_ignore_ascii_case(want.trim())),
            other => text(other)
                .to_lowercase()
                .contains(&want.trim().to_lowercase()),
        }),
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::json;

    use super::*;

    fn condition(field: &str, test: ConditionTest) -> Condition {
        Condition {
            field: field.to_owned(),
            test,
        }
    }

    #[test]
    fn a_reply_s_json_is_found_whole_fenced_or_embedded() {
        assert_eq!(json_of(r#"{"a": 1}"#), Some(json!({"a": 1})));
        assert_eq!(
            json_of("Verdict:\n```json\n{\"verdict\": \"approved\"}\n```\nAPPROVED"),
            Some(json!({"verdict": "approved"}))
        );
        assert_eq!(
            json_of("here: {\"x\": true} done"),
            Some(json!({"x": true}))
        );
        assert_eq!(json_of("no json here"), None);
        assert_eq!(json_of("[1, 2]"), None);
    }

    #[test]
    fn conditions_read_dot_paths_and_ignore_case() {
        let v = json!({"verdict": "Approved", "review": {"score": 3, "tags": ["ok", "fast"]}, "gone": null});
        assert!(holds(
            &condition("verdict", ConditionTest::Is("approved".into())),
            &v
        ));
        assert!(holds(
            &condition("review.score", ConditionTest::Is("3".into())),
            &v
        ));
        assert!(holds(
            &condition("review.tags", ConditionTest::Contains("fast".into())),
            &v
        ));
        assert!(holds(
            &condition("verdict", ConditionTest::Contains("prov".into())),
            &v
        ));
        assert!(holds(
            &condition("missing", ConditionTest::IsNot("x".into())),
            &v
        ));
        assert!(!holds(&condition("gone", ConditionTest::Exists(true)), &v));
        assert!(holds(&condition("gone", ConditionTest::Exists(false)), &v));
    }

    proptest! {
        #[test]
        fn is_and_is_not_never_agree(word in "[a-z]{0,6}", value in "[a-z]{0,6}") {
            let v = json!({"f": value});
            let is = holds(&condition("f", ConditionTest::Is(word.clone())), &v);
            let is_not = holds(&condition("f", ConditionTest::IsNot(word)), &v);
            prop_assert_ne!(is, is_not);
        }

        #[test]
        fn json_of_never_panics(text in ".{0,80}") {
            let _ = json_of(&text);
        }
    }
}
