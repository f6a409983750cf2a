//! What the router decides about a reply, and why it corrects one.

use std::fmt;

use serde::{Deserialize, Serialize};

/// The router's decision on the reply that ends a history.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "decision", rename_all = "snake_case")]
pub enum Decision {
    /// Hand off: the next turn is `to`'s.
    Route {
        /// The agent the route leads to (`None` for a route without `Agent`).
        to: Option<String>,
        /// The keyword, as the configuration writes it.
        keyword: String,
        /// The agent that wrote it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        from: Option<String>,
    },
    /// Re-invoke `agent` with `message` as a user turn.
    Correct {
        /// The agent to correct.
        agent: Option<String>,
        /// Why.
        kind: CorrectionKind,
        /// The validator or predicate that blocked, for [`CorrectionKind::Blocked`].
        #[serde(default, skip_serializing_if = "Option::is_none")]
        validator: Option<String>,
        /// The message to inject.
        message: String,
        /// Corrections of this agent in a row, this one included.
        consecutive: u32,
    },
    /// The run is over.
    Terminate {
        /// Why, in a sentence.
        reason: String,
    },
    /// The agent was corrected `failures` times in a row: the run ends (decision G10).
    Stuck {
        /// The agent.
        agent: Option<String>,
        /// The validator (or correction kind) of the last correction.
        validator: String,
        /// Corrections in a row.
        failures: u32,
        /// The last correction's message.
        last_message: String,
    },
}

/// Why a reply is corrected.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CorrectionKind {
    /// No keyword on a line of its own.
    NoKeyword,
    /// A keyword that belongs to another agent's routes.
    ForeignKeyword,
    /// Several different keywords.
    Ambiguous,
    /// A `handoff` tool call naming a keyword no route declares.
    UnknownKeyword,
    /// A validator, contract or predicate blocked the handoff or the completion.
    Blocked,
    /// The reply is not the JSON object a `structured` selection routes on.
    NotJson,
    /// No structured route's condition holds of the reply, and there is no `DefaultAgent`.
    NoRoute,
}

impl CorrectionKind {
    /// Returns the name the stuck counter records for corrections of this kind that no
    /// validator made.
    pub fn label(self) -> &'static str {
        match self {
            CorrectionKind::NoKeyword => "no keyword",
            CorrectionKind::ForeignKeyword => "foreign keyword",
            CorrectionKind::Ambiguous => "several keywords",
            CorrectionKind::UnknownKeyword => "unknown keyword",
            CorrectionKind::Blocked => "blocked",
            CorrectionKind::NotJson => "not JSON",
            CorrectionKind::NoRoute => "no route",
        }
    }
}

impl fmt::Display for CorrectionKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}

impl Decision {
    /// Returns the decision's name: `route`, `correct`, `terminate` or `stuck`.
    pub fn name(&self) -> &'static str {
        match self {
            Decision::Route { .. } => "route",
            Decision::Correct { .. } => "correct",
            Decision::Terminate { .. } => "terminate",
            Decision::Stuck { .. } => "stuck",
        }
    }
}
