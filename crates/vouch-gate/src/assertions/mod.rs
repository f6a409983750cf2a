//! Assertions on what an agent did — tool calls and their order — as predicates over an
//! [`vouch_evidence::EvidenceView`], so that an agent test and a pipeline route check them the
//! same way.

mod call;
mod error;
mod matcher;
mod params;
mod sequence;
mod spec;
mod tool;

pub use call::{CallAssertion, Scope, ToolMatch, show as show_call};
pub use error::PatternError;
pub use matcher::{Matcher, Shape, shape};
pub use params::{Param, Params, script, value as param_value};
pub use sequence::SequenceAssertion;
pub use spec::CALL_KEYS;
pub use tool::ToolName;
