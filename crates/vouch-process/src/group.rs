//! Killing a child's whole process group: a timeout must take a test runner's children with
//! it, not only the shell that started them.

use rustix::process::{Pid, Signal, kill_process_group};

/// Sends `SIGKILL` to every process of the group led by `pid` (the group may already be gone;
/// that is not an error).
pub(crate) fn kill_group(pid: u32) {
    if let Some(group) = i32::try_from(pid).ok().and_then(Pid::from_raw) {
        // No such group: every process of it has ended already.
        let _ = kill_process_group(group, Signal::KILL);
    }
}
