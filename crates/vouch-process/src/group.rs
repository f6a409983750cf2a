//! Killing a child's whole process group: a timeout must take a test runner's children with
//! it, not only the shell that started them.

use std::process::{Command, Stdio};

/// Sends `SIGKILL` to every process of the group led by `pid` (the group may already be gone;
/// that is not an error).
pub(crate) fn kill_group(pid: u32) {
    // `kill` with a negative id signals the group; std has no killpg and unsafe code is
    // forbidden here, so the system's `kill` does it.
    let _ = Command::new("kill")
        .args(["-KILL", "--", &format!("-{pid}")])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
}
