//! Keyword routing: one pure decision per agent reply — route it, correct it, end the run, or
//! report the agent stuck — from the configuration, the history and the router's state.
//!
//! A keyword counts only on a line of its own (whitespace and `*`/`_` emphasis around it
//! ignored, case ignored, fenced code ignored); a `handoff` tool call's `route_keyword` overrides
//! the text. A keyword of another agent's routes is *foreign*; two different keywords are
//! *ambiguous*. Every correction counts toward the agent's stuck threshold (decision G10); a
//! clean routed turn resets it. `maxiterations` is a hard cap no gate holds back.

mod decide;
mod decision;
mod keywords;
mod messages;
mod reply;
mod select;
mod state;

pub use decide::{History, RouteError, Routed, Router};
pub use decision::{CorrectionKind, Decision};
pub use select::json_of;
pub use state::{Acted, RouterState};
