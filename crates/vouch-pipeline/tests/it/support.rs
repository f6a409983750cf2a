//! A project folder for a test run, and beside it (never inside) the state root where its
//! runs keep their records.

use std::path::Path;

use vouch_pipeline::RunOptions;

/// A project folder and the state root of its runs; both removed when dropped.
pub(crate) struct Project {
    work: tempfile::TempDir,
    state: tempfile::TempDir,
}

impl Project {
    /// Returns an empty project.
    pub(crate) fn new() -> Project {
        Project {
            work: tempfile::tempdir().unwrap(),
            state: tempfile::tempdir().unwrap(),
        }
    }

    /// Returns the project folder: the runs' working directory.
    pub(crate) fn path(&self) -> &Path {
        self.work.path()
    }

    /// Returns the state root.
    pub(crate) fn state(&self) -> &Path {
        self.state.path()
    }

    /// Returns the options of a run of `task` in the project, its record in the state root.
    pub(crate) fn options(&self, task: &str) -> RunOptions {
        let mut options = RunOptions::new(self.path(), task);
        options.state_root = Some(self.state().to_owned());
        options
    }

    /// Writes `text` to the project's file `name`.
    pub(crate) fn write(&self, name: &str, text: &str) {
        let path = self.path().join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
}
