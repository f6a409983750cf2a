//! The validators of the spec, one per file.

mod block_on_consecutive_fail;
mod kind;
mod require_acceptance_criteria_passed;
mod require_all_files_written;
mod require_brief;
mod require_related_tests_pass;
mod require_review_judgement;
mod require_shell_pass;
mod require_write_file;
mod test_report_valid;

pub use block_on_consecutive_fail::BlockOnConsecutiveFail;
pub use kind::ValidatorKind;
pub use require_acceptance_criteria_passed::RequireAcceptanceCriteriaPassed;
pub use require_all_files_written::RequireAllFilesWritten;
pub use require_brief::RequireBrief;
pub use require_related_tests_pass::RequireRelatedTestsPass;
pub use require_review_judgement::RequireReviewJudgement;
pub use require_shell_pass::RequireShellPass;
pub use require_write_file::RequireWriteFile;
pub use test_report_valid::TestReportValid;
