//! What the journal keeps of a change a call is about to make, and what a resumed run finds
//! of it: made, not made, or neither.

use serde::{Deserialize, Serialize};

use crate::tools::ToolOutput;

/// What the journal keeps of a planned change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Intent {
    /// A file changes from `before` to `after` (SHA-256s; `None`: no file).
    File {
        /// The path relative to the working directory.
        path: String,
        /// The SHA-256 of its content before; `None` when it did not exist.
        before: Option<String>,
        /// The SHA-256 of its content after; `None` when the change deletes it.
        after: Option<String>,
        /// What the call answers when the change is made.
        answer: String,
    },
    /// A commit on top of `head` with `message`.
    Commit {
        /// The commit `HEAD` named before; `None` in a repository without commits.
        head: Option<String>,
        /// The commit message.
        message: String,
    },
}

/// What a resumed run finds of a change journaled but not answered.
#[derive(Debug)]
pub enum Settled {
    /// It was made: the call's answer.
    Made(ToolOutput),
    /// It was not made: the call runs.
    NotMade,
    /// The file or the repository is neither as it was nor as the change leaves it: the call's
    /// answer says so, and it does not run.
    Neither(ToolOutput),
}
