//! The corrections the router writes itself (decision G11: the spec shows none of these, so
//! they are ours, in its style: what was blocked, why, and the exact next step).

use std::fmt::Write;

/// Lists `keywords`, one per indented line; says so when there are none.
fn list(keywords: &[&str], agent: Option<&str>) -> String {
    if keywords.is_empty() {
        return match agent {
            Some(a) => format!(
                "  (no route takes a handoff from {a}: check the pipeline's SourceAgents)\n"
            ),
            None => "  (the pipeline declares no routes)\n".to_owned(),
        };
    }
    keywords.iter().fold(String::new(), |mut out, k| {
        let _ = writeln!(out, "  {k}");
        out
    })
}

/// The reply has no keyword on a line of its own.
pub(crate) fn no_keyword(agent: Option<&str>, allowed: &[&str]) -> String {
    format!(
        "Handoff blocked: the reply has no routing keyword on a line of its own.\n\
         When your work is done, end your reply with exactly one of these, alone on its line:\n{}",
        list(allowed, agent)
    )
    .trim_end()
    .to_owned()
}

/// The reply's keyword belongs to other agents' routes.
pub(crate) fn foreign(
    keyword: &str,
    owners: &[&str],
    agent: Option<&str>,
    allowed: &[&str],
) -> String {
    let who = agent.unwrap_or("this agent");
    format!(
        "Handoff blocked: `{keyword}` belongs to {}'s routes; {who} may not use it.\n\
         End your reply with one of your own keywords, alone on its line:\n{}",
        owners.join(" and "),
        list(allowed, agent)
    )
    .trim_end()
    .to_owned()
}

/// The reply has several different keywords.
pub(crate) fn ambiguous(found: &[&str]) -> String {
    format!(
        "Handoff blocked: the reply has {} routing keywords ({}); a reply must have exactly one.\n\
         Decide where the work goes next and keep only that keyword, alone on its line.",
        found.len(),
        found.join(", ")
    )
}

/// A `handoff` tool call names a keyword no route declares.
pub(crate) fn unknown_keyword(keyword: &str, agent: Option<&str>, allowed: &[&str]) -> String {
    format!(
        "Handoff blocked: the handoff call names `{keyword}`, which no route declares.\n\
         Call handoff again with route_keyword set to one of:\n{}",
        list(allowed, agent)
    )
    .trim_end()
    .to_owned()
}
