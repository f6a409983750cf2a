//! The router's state between decisions: each agent's stuck counter and the last reply acted
//! on. It is an input and an output of every decision, never hidden.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::router::Decision;
use crate::stuck::StuckCounter;

/// What the router remembers between two decisions.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct RouterState {
    /// Consecutive corrections per agent (`""` for an agent the log does not name).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub counters: BTreeMap<String, StuckCounter>,
    /// The last reply decided and what was decided: deciding it again changes nothing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last: Option<Acted>,
    /// The current state of a `statemachine` selection; its first state when `None`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<String>,
    /// The `RecoveryAgent` taking a turn after a transition was blocked twice in a row: its
    /// reply hands back to the state's own agent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recovering: Option<String>,
    /// What a model-driven selection (`llm`, `magentic`) keeps between its decisions — the
    /// manager's plan and counters — as the runner writes it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selector: Option<serde_json::Value>,
}

/// A reply the router has acted on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Acted {
    /// The `seq` of the history's last event when it was decided.
    pub seq: u64,
    /// The decision.
    pub decision: Decision,
}

impl RouterState {
    /// Reads a state saved as JSON.
    pub fn from_json(text: &str) -> Result<RouterState, serde_json::Error> {
        serde_json::from_str(text)
    }

    /// Returns the state as pretty JSON.
    pub fn to_json(&self) -> String {
        // A map of strings to plain structs always serializes.
        serde_json::to_string_pretty(self).unwrap_or_else(|_| "{}".to_owned())
    }

    /// Returns the stuck counter of `agent`.
    pub fn counter(&self, agent: Option<&str>) -> Option<&StuckCounter> {
        self.counters.get(agent.unwrap_or(""))
    }
}
