//! Evidence contracts: named, reusable lists of predicates declared in the configuration, one
//! predicate per file.

mod command_succeeded;
mod contract;
mod file_exists;
mod files_written;
mod kind;
mod test_report;

pub use command_succeeded::CommandSucceeded;
pub use contract::Contract;
pub use file_exists::FileExists;
pub use files_written::FilesWritten;
pub use kind::PredicateKind;
pub use test_report::TestReportPredicate;
