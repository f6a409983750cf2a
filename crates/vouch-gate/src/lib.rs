//! Deterministic gates on an agent's handoffs and completion: validators that block a claim
//! unless real evidence backs it, configured in the pipeline YAML of the validator spec.
//!
//! # Overview
//!
//! - [`PipelineConfig`]: routes, termination strategies, the `Validation` section, the test
//!   selector and the stop hook's gates, loaded with every problem reported at once
//!   ([`ConfigErrors`]).
//! - [`GateSet`] and [`Gate`]: the validators of a handoff, a completion or a stop hook, ready
//!   to evaluate on an [`vouch_evidence::EvidenceView`].
//! - [`Predicate`] and [`Verdict`]: the one trait every check implements, and its answer.
//!
//! ```
//! use std::path::Path;
//! use vouch_evidence::{ArtifactPaths, EvidenceView};
//! use vouch_gate::{GateSet, Verdict};
//!
//! let yaml = r#"
//! Selection:
//!   Type: keyword
//!   Routes:
//!     - Keyword: "HANDOFF TO TESTER"
//!       Agent: Tester
//!       Validator: RequireShellPass
//!       RequiredCommandPattern: "cargo test"
//!       SourceAgents: [Developer]
//! "#;
//! let gates = GateSet::new(vouch_gate::parse_config(Path::new("pipeline.yaml"), yaml)?);
//! let chat = r#"[{"role": "user", "content": "fix it"},
//!   {"role": "assistant", "name": "Developer", "content": "Fixed.\nHANDOFF TO TESTER"}]"#;
//! let session = vouch_session::read_from(chat.as_bytes(), "chat.json", &Default::default())?.session;
//! let view = EvidenceView::new(&session, ".", ArtifactPaths::default());
//! let gate = gates.handoff("HANDOFF TO TESTER", Some("Developer")).unwrap();
//! let Verdict::Block(block) = gate.evaluate(&view) else { panic!("no test ran") };
//! assert!(block.message.starts_with("Handoff blocked: no matching (cargo test) shell_run passed this turn."));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![deny(missing_docs)]

mod alternatives;
pub mod assertions;
mod backing;
mod config;
mod contracts;
mod gate;
mod hook;
mod lint;
mod predicate;
mod router;
mod strict;
mod stuck;
mod validators;

/// Reading YAML with places, every problem collected: how the pipeline configuration is read,
/// shared with agent test files.
pub mod yaml {
    pub use crate::config::load::SECTIONS;
    pub use crate::config::{Location, Map, Node, Reader, parse_yaml};
}

pub use alternatives::{Alternatives, CommandPattern};
pub use config::{
    CommandPatterns, Condition, ConditionTest, ConfigError, ConfigErrors,
    Contract as ContractConfig, ContractRef, DeclaredAgent, Hooks, Location, MachineState,
    Magentic, PipelineConfig, PredicateRef, Route, Selection, SelectionKind, StateLink,
    Termination, TerminationKind, TestSelector, Validation, ValidatorRef, Verifier,
    load as load_config, parse as parse_config, parse_partial as parse_config_partial,
};
pub use contracts::{
    CommandSucceeded, Contract, FileExists, FilesWritten, PredicateKind, TestReportPredicate,
};
pub use gate::{Gate, GateSet};
pub use hook::{HookAnswer, HookInput, answer as hook_answer, evaluate_stop};
pub use lint::lint;
pub use predicate::{Block, GateContext, Predicate, Verdict, evaluate_gate};
pub use router::{
    Acted, CorrectionKind, Decision, History, RouteError, Routed, Router, RouterState, json_of,
};
pub use stuck::{Correction, StuckCounter};
pub use validators::{
    BlockOnConsecutiveFail, RequireAcceptanceCriteriaPassed, RequireAllFilesWritten, RequireBrief,
    RequireRelatedTestsPass, RequireReviewJudgement, RequireShellPass, RequireWriteFile,
    TestReportValid, ValidatorKind,
};
