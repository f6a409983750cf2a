//! `FileExists`: a file is on disk.

use std::path::PathBuf;

use crate::predicate::{GateContext, Predicate, Verdict, blocked_word};

/// Holds when `Path` (relative to the working directory) exists as a file.
///
/// **Passes**: `.fuseraft/artifacts/test-report.json` was written. **Blocked**: it was not.
///
/// **Options**: `Path`.
#[derive(Debug, Clone)]
pub struct FileExists {
    /// What requires it, as messages name it (`contract TestsValid`).
    pub owner: String,
    /// `Path`.
    pub path: PathBuf,
}

impl Predicate for FileExists {
    fn name(&self) -> &'static str {
        "FileExists"
    }

    fn describe(&self) -> String {
        format!("FileExists {}", self.path.display())
    }

    fn turns_needed(&self) -> Option<usize> {
        Some(0)
    }

    fn evaluate(&self, cx: &GateContext<'_, '_>) -> Verdict {
        if cx.view.resolve(&self.path).is_file() {
            return Verdict::Pass;
        }
        Verdict::block(
            self.name(),
            format!(
                "{} blocked: {} requires {} to exist, and it does not.\nWrite it with write_file, then retry.",
                blocked_word(cx.keyword),
                self.owner,
                self.path.display()
            ),
        )
    }
}
