//! What can go wrong around a suite, outside any one test: finding the tests, finding an agent
//! to run them.

use std::path::PathBuf;

/// A failure of the harness itself; each message reads on its own.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A path given to search for tests does not exist.
    #[error("`{}` does not exist", .0.display())]
    NoSuchPath(PathBuf),
    /// A folder searched for tests could not be read.
    #[error("cannot read the folder `{}` to find tests in it: {reason}", .path.display())]
    UnreadableFolder {
        /// The folder.
        path: PathBuf,
        /// Why it could not be read.
        reason: String,
    },
    /// A test-file pattern of `vouch.yaml` is not a valid glob.
    #[error("invalid test pattern `{pattern}`: {reason}")]
    Pattern {
        /// The pattern.
        pattern: String,
        /// Why it is invalid.
        reason: String,
    },
    /// The agent a test names cannot be run here (not installed, or not one vouch runs).
    #[error("{0}")]
    NoRunner(String),
}
