//! The validators vouch knows, by name, and how each is built for a route or a gate.

use crate::config::{CommandPatterns, PipelineConfig};
use crate::predicate::Predicate;
use crate::validators::{
    BlockOnConsecutiveFail, RequireAcceptanceCriteriaPassed, RequireAllFilesWritten, RequireBrief,
    RequireRelatedTestsPass, RequireReviewJudgement, RequireShellPass, RequireWriteFile,
    TestReportValid,
};

/// A validator of the spec.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ValidatorKind {
    /// [`RequireBrief`].
    RequireBrief,
    /// [`RequireShellPass`].
    RequireShellPass,
    /// [`RequireWriteFile`].
    RequireWriteFile,
    /// [`RequireAllFilesWritten`].
    RequireAllFilesWritten,
    /// [`RequireRelatedTestsPass`].
    RequireRelatedTestsPass,
    /// [`TestReportValid`].
    TestReportValid,
    /// [`RequireReviewJudgement`].
    RequireReviewJudgement,
    /// [`RequireAcceptanceCriteriaPassed`].
    RequireAcceptanceCriteriaPassed,
    /// [`BlockOnConsecutiveFail`].
    BlockOnConsecutiveFail,
}

impl ValidatorKind {
    /// Every validator, in the spec's order.
    pub const ALL: [ValidatorKind; 9] = [
        ValidatorKind::RequireBrief,
        ValidatorKind::RequireShellPass,
        ValidatorKind::RequireWriteFile,
        ValidatorKind::RequireAllFilesWritten,
        ValidatorKind::RequireRelatedTestsPass,
        ValidatorKind::TestReportValid,
        ValidatorKind::RequireReviewJudgement,
        ValidatorKind::RequireAcceptanceCriteriaPassed,
        ValidatorKind::BlockOnConsecutiveFail,
    ];

    /// Returns the name configurations use.
    pub fn name(self) -> &'static str {
        match self {
            ValidatorKind::RequireBrief => "RequireBrief",
            ValidatorKind::RequireShellPass => "RequireShellPass",
            ValidatorKind::RequireWriteFile => "RequireWriteFile",
            ValidatorKind::RequireAllFilesWritten => "RequireAllFilesWritten",
            ValidatorKind::RequireRelatedTestsPass => "RequireRelatedTestsPass",
            ValidatorKind::TestReportValid => "TestReportValid",
            ValidatorKind::RequireReviewJudgement => "RequireReviewJudgement",
            ValidatorKind::RequireAcceptanceCriteriaPassed => {
                "RequireAcceptanceCriteriaPassedValidator"
            }
            ValidatorKind::BlockOnConsecutiveFail => "BlockOnConsecutiveFail",
        }
    }

    /// Returns the validator named `name` (case-insensitive; the `…Validator` suffix of
    /// `RequireAcceptanceCriteriaPassedValidator` is optional).
    pub fn from_name(name: &str) -> Option<ValidatorKind> {
        let name = name.trim();
        let bare = name
            .strip_suffix("Validator")
            .filter(|b| !b.is_empty())
            .unwrap_or(name);
        ValidatorKind::ALL.into_iter().find(|k| {
            let known = k.name();
            let known_bare = known.strip_suffix("Validator").unwrap_or(known);
            known.eq_ignore_ascii_case(name) || known_bare.eq_ignore_ascii_case(bare)
        })
    }

    /// Builds the validator with the command patterns of its route (or of the stop hook).
    pub fn build(
        self,
        patterns: CommandPatterns<'_>,
        config: &PipelineConfig,
    ) -> Box<dyn Predicate> {
        let required = patterns.required.cloned();
        let strict = config.validation.is_strict();
        match self {
            ValidatorKind::RequireBrief => Box::new(RequireBrief),
            ValidatorKind::RequireShellPass => Box::new(RequireShellPass {
                pattern: required,
                strict,
            }),
            ValidatorKind::RequireWriteFile => Box::new(RequireWriteFile {
                shell_fallback: patterns.shell_fallback.cloned(),
            }),
            ValidatorKind::RequireAllFilesWritten => Box::new(RequireAllFilesWritten),
            ValidatorKind::RequireRelatedTestsPass => Box::new(RequireRelatedTestsPass {
                selector: config.test_selector.clone(),
            }),
            ValidatorKind::TestReportValid => Box::new(TestReportValid {
                assertion_patterns: config.validation.test_assertion_patterns.clone(),
                strict,
            }),
            ValidatorKind::RequireReviewJudgement => Box::new(RequireReviewJudgement),
            ValidatorKind::RequireAcceptanceCriteriaPassed => {
                Box::new(RequireAcceptanceCriteriaPassed { strict })
            }
            ValidatorKind::BlockOnConsecutiveFail => {
                Box::new(BlockOnConsecutiveFail { pattern: required })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_resolve_case_insensitively() {
        assert_eq!(
            ValidatorKind::from_name("requireshellpass"),
            Some(ValidatorKind::RequireShellPass)
        );
        assert_eq!(
            ValidatorKind::from_name("RequireAcceptanceCriteriaPassed"),
            Some(ValidatorKind::RequireAcceptanceCriteriaPassed)
        );
        assert_eq!(
            ValidatorKind::from_name("RequireAcceptanceCriteriaPassedValidator"),
            Some(ValidatorKind::RequireAcceptanceCriteriaPassed)
        );
        assert_eq!(ValidatorKind::from_name("Validator"), None);
        assert_eq!(ValidatorKind::from_name("RequireShelPass"), None);
    }
}
