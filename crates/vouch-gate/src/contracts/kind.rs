//! The predicates a contract may require, as configured, and how each is built.

use std::path::PathBuf;

use crate::alternatives::{Alternatives, CommandPattern};
use crate::assertions::{CallAssertion, SequenceAssertion};
use crate::config::{CommandPatterns, PipelineConfig};
use crate::contracts::{CommandSucceeded, FileExists, FilesWritten, TestReportPredicate};
use crate::predicate::Predicate;
use crate::validators::{RequireRelatedTestsPass, ValidatorKind};

/// A predicate named in a contract's `Requires`, with its options.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum PredicateKind {
    /// Every file a JSON artifact's field lists was written this session.
    FilesWritten {
        /// `Source`: the JSON file.
        source: PathBuf,
        /// `Field`: the list in it.
        field: String,
    },
    /// A command matching the pattern succeeded this session.
    CommandSucceeded {
        /// `Pattern`: the pattern, or the fallback when `field` names one.
        pattern: Option<CommandPattern>,
        /// `PatternField` (with `PatternSource`, default `Validation.BriefPath`): a string field
        /// of a JSON artifact that holds the command, read when the gate runs.
        field: Option<(Option<std::path::PathBuf>, String)>,
    },
    /// A file exists.
    FileExists {
        /// `Path`.
        path: PathBuf,
    },
    /// The test report has no failures and backed PASS rows.
    TestReport {
        /// `NoFailures`.
        no_failures: bool,
        /// `HasAssertions`.
        has_assertions: bool,
    },
    /// The tests related to the session's changes pass, run by vouch.
    RelatedTestsPass,
    /// An assertion on the agent's tool calls, written as in an agent test.
    ToolCall(Box<CallAssertion>),
    /// Tool calls that must happen in order.
    Sequence(Box<SequenceAssertion>),
    /// A validator, usable in a contract like any predicate, with the command patterns a
    /// route would give it.
    Validator {
        /// Which validator.
        kind: ValidatorKind,
        /// `RequiredCommandPattern`.
        required_command_pattern: Option<Alternatives>,
        /// `ShellFallbackPattern`.
        shell_fallback_pattern: Option<Alternatives>,
    },
}

impl PredicateKind {
    /// The names of the contract predicates (validators are accepted by their own names).
    pub const NAMES: [&'static str; 7] = [
        "FilesWritten",
        "CommandSucceeded",
        "FileExists",
        "TestReport",
        "RelatedTestsPass",
        "ToolCall",
        "Sequence",
    ];

    /// Returns the predicate's name.
    pub fn name(&self) -> &'static str {
        match self {
            PredicateKind::FilesWritten { .. } => "FilesWritten",
            PredicateKind::CommandSucceeded { .. } => "CommandSucceeded",
            PredicateKind::FileExists { .. } => "FileExists",
            PredicateKind::TestReport { .. } => "TestReport",
            PredicateKind::RelatedTestsPass => "RelatedTestsPass",
            PredicateKind::ToolCall(_) => "ToolCall",
            PredicateKind::Sequence(_) => "Sequence",
            PredicateKind::Validator { kind, .. } => kind.name(),
        }
    }

    /// Builds the predicate; `owner` names what requires it in messages (`contract
    /// TestsValid`, ``route `APPROVED` ``).
    pub fn build(&self, owner: &str, config: &PipelineConfig) -> Box<dyn Predicate> {
        let owner = owner.to_owned();
        match self {
            PredicateKind::FilesWritten { source, field } => Box::new(FilesWritten {
                owner,
                source: source.clone(),
                field: field.clone(),
            }),
            PredicateKind::CommandSucceeded { pattern, field } => Box::new(CommandSucceeded {
                owner,
                pattern: pattern.clone(),
                field: field.as_ref().map(|(source, name)| {
                    (
                        source
                            .clone()
                            .unwrap_or_else(|| config.validation.paths.brief.clone()),
                        name.clone(),
                    )
                }),
                strict: config.validation.is_strict(),
            }),
            PredicateKind::FileExists { path } => Box::new(FileExists {
                owner,
                path: path.clone(),
            }),
            PredicateKind::TestReport {
                no_failures,
                has_assertions,
            } => Box::new(TestReportPredicate {
                owner,
                no_failures: *no_failures,
                has_assertions: *has_assertions,
                strict: config.validation.is_strict(),
            }),
            PredicateKind::RelatedTestsPass => Box::new(RequireRelatedTestsPass {
                selector: config.test_selector.clone(),
            }),
            PredicateKind::ToolCall(a) => Box::new(a.as_ref().clone()),
            PredicateKind::Sequence(a) => Box::new(a.as_ref().clone()),
            PredicateKind::Validator {
                kind,
                required_command_pattern,
                shell_fallback_pattern,
            } => kind.build(
                CommandPatterns {
                    required: required_command_pattern.as_ref(),
                    shell_fallback: shell_fallback_pattern.as_ref(),
                },
                config,
            ),
        }
    }
}
