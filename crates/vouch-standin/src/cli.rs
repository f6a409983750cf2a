//! The stand-in coding agents' CLIs (`vouch-standin-cli`): one executable that acts as
//! `claude`, `codex` or `gemini` by the name it is run under, takes the flags vouch passes each
//! and writes their real log and stream formats. Its behaviour is a plan of steps per run; its
//! doc comment lists them.

use std::path::{Path, PathBuf};

/// Makes `claude`, `codex` and `gemini` in `dir` (links to the stand-in) and returns `dir`, to
/// put first on a test's `PATH`.
///
/// # Panics
///
/// When the links cannot be made: a test cannot go on.
pub fn install(dir: &Path) -> PathBuf {
    let bin = crate::binary("vouch-standin-cli");
    std::fs::create_dir_all(dir).expect("a folder for the stand-in CLIs");
    for name in ["claude", "codex", "gemini"] {
        let link = dir.join(name);
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink(&bin, &link).expect("a link to the stand-in CLI");
    }
    dir.to_owned()
}
