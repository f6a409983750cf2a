//! A call that changes the working directory, planned before it acts: the file it writes,
//! patches or deletes (as it is and as it will be), or the commit it makes. The runner
//! journals the plan's [`Intent`] before acting, so that a run killed right after the act can
//! tell, on resume, whether it happened — and answer as the call would have, instead of
//! running it again and failing (a patch whose text is gone) or doing it twice.

use sha2::{Digest, Sha256};

use crate::tools::git_commit;
use crate::tools::intent::{Intent, Settled};
use crate::tools::{Effect, ToolContext, ToolOutput};

/// A change a call is about to make.
#[derive(Debug, Clone)]
pub enum Change {
    /// A file written whole, patched or deleted.
    File(Box<FileChange>),
    /// Every change of the working directory committed.
    Commit(git_commit::Plan),
}

/// A file written whole, patched or deleted.
#[derive(Debug, Clone)]
pub struct FileChange {
    /// The path as the agent wrote it.
    pub(crate) path: String,
    /// The path relative to the working directory.
    pub(crate) relative: String,
    /// The file's content now; `None` when it does not exist.
    pub(crate) before: Option<Vec<u8>>,
    /// Its content after the change; `None` when the change deletes it.
    pub(crate) after: Option<Vec<u8>>,
    /// What the call answers when the change is made.
    pub(crate) answer: String,
    /// What the change log records of it.
    pub(crate) effect: Effect,
}

impl Change {
    /// Returns what the journal keeps of the change.
    pub fn intent(&self) -> Intent {
        match self {
            Change::File(f) => Intent::File {
                path: f.relative.clone(),
                before: f.before.as_deref().map(sha256_hex),
                after: f.after.as_deref().map(sha256_hex),
                answer: f.answer.clone(),
            },
            Change::Commit(plan) => plan.intent(),
        }
    }

    /// Makes the change.
    pub fn apply(self, cx: &ToolContext) -> ToolOutput {
        match self {
            Change::File(f) => {
                let done = match &f.after {
                    Some(content) => cx.workspace.write(&f.path, content),
                    None => cx.workspace.remove(&f.path),
                };
                match done {
                    Ok(_) => ToolOutput::ok(f.answer).with(f.effect),
                    Err(why) => ToolOutput::denied(why),
                }
            }
            Change::Commit(plan) => plan.apply(cx),
        }
    }
}

impl Intent {
    /// Finds whether the change was made, as the working directory shows it now.
    pub fn settle(&self, cx: &ToolContext) -> Settled {
        match self {
            Intent::File {
                path,
                before,
                after,
                answer,
            } => {
                // A change that leaves no file deleted it; any other wrote it.
                let effect = if after.is_none() {
                    Effect::Deleted(path.clone())
                } else {
                    Effect::Wrote(path.clone())
                };
                let now = match cx.workspace.read_existing(path) {
                    Ok(content) => content.map(|(_, bytes)| sha256_hex(&bytes)),
                    Err(why) => return Settled::Neither(ToolOutput::denied(why)),
                };
                if now == *after {
                    Settled::Made(ToolOutput::ok(answer.clone()).with(effect))
                } else if now == *before {
                    Settled::NotMade
                } else {
                    Settled::Neither(ToolOutput::error(format!(
                        "the run stopped while this call changed `{path}`, and the file is now neither as it was nor as the call would leave it: read it before going on"
                    )))
                }
            }
            Intent::Commit { head, message } => git_commit::settle(cx, head.as_deref(), message),
        }
    }
}

/// Returns the SHA-256 of `bytes` as lowercase hex.
pub(crate) fn sha256_hex(bytes: &[u8]) -> String {
    crate::journal::hex(&Sha256::digest(bytes))
}
