//! Processes that left a child's process group: found after the group was killed, and killed
//! too where this user may.
//!
//! A process escapes the group with `setsid`, `setpgid` or a daemon's double fork; killing the
//! group does not reach it, and if it holds the output pipes, reading them never ends. Two
//! traces lead to it, both read from `/proc`: every process the child started carries the
//! child's tag in its environment (unless it cleared its environment), and a process that
//! still holds one of the child's output pipes names the pipe among its open files. A process
//! that did both — cleared its environment and closed the pipes — leaves no trace here; the
//! sandbox's PID namespace is what contains it.

use std::path::Path;

/// The environment variable that tags every process a child starts.
pub const TAG_ENV: &str = "VOUCH_PROCESS_TAG";

/// A process that left the child's process group.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Escaped {
    /// Its process id.
    pub pid: u32,
    /// Its command name (`/proc/PID/comm`), empty when it could not be read.
    pub name: String,
    /// True when vouch killed it; false when it could not (another user's process).
    pub killed: bool,
}

impl std::fmt::Display for Escaped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let name = if self.name.is_empty() {
            "?"
        } else {
            &self.name
        };
        write!(f, "{name} (pid {})", self.pid)?;
        if !self.killed {
            f.write_str(", which could not be killed")?;
        }
        Ok(())
    }
}

/// What marks a child's processes: its tag, and the inodes of its output pipes.
#[derive(Debug, Clone)]
pub(crate) struct Traces {
    /// `TAG_ENV=tag`, as it stands in a process's environment block.
    pub(crate) entry: Vec<u8>,
    /// The inodes of the child's output pipes (`pipe:[N]` among a holder's open files).
    pub(crate) pipes: Vec<u64>,
}

impl Traces {
    /// Returns the traces of the child tagged `tag` whose output pipes are `pipes`.
    pub(crate) fn new(tag: &str, pipes: Vec<u64>) -> Traces {
        Traces {
            entry: format!("{TAG_ENV}={tag}").into_bytes(),
            pipes,
        }
    }
}

/// Finds the processes outside the process group `group` that carry `traces` and kills them;
/// returns them, in pid order. With `pipes_held`, the open files of every process are read
/// too (the output pipes are still held); otherwise only the environments are. Members of
/// the group (killed already, and perhaps not gone yet) and processes that have ended are
/// not escapes.
pub(crate) fn hunt(traces: &Traces, group: u32, pipes_held: bool) -> Vec<Escaped> {
    kill_where(|dir| {
        (tagged(dir, &traces.entry) || (pipes_held && holds_pipe(dir, &traces.pipes)))
            && outside(dir, group)
    })
}

/// Kills every other process whose `/proc` folder passes `keep`; returns them, in pid order.
fn kill_where(keep: impl Fn(&Path) -> bool) -> Vec<Escaped> {
    let me = std::process::id();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let mut found: Vec<u32> = entries
        .filter_map(Result::ok)
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| *pid != me)
        .filter(|pid| keep(&Path::new("/proc").join(pid.to_string())))
        .collect();
    found.sort_unstable();
    found.into_iter().map(kill).collect()
}

/// Kills every process whose environment holds `name=value` — what a run killed with `kill -9`
/// left running of a child it had tagged so — and returns them, in pid order. The tag passes to
/// every process the child started (unless one cleared its environment).
pub fn kill_tagged(name: &str, value: &str) -> Vec<Escaped> {
    let entry = format!("{name}={value}").into_bytes();
    // Alive (group 0 is no process's).
    kill_where(|dir| tagged(dir, &entry) && outside(dir, 0))
}

/// Returns true when the process at `dir` is alive and outside the process group `group`.
fn outside(dir: &Path, group: u32) -> bool {
    let Ok(stat) = std::fs::read_to_string(dir.join("stat")) else {
        return false;
    };
    // `pid (comm) state ppid pgrp …`: the command name may hold spaces and parentheses, so the
    // fields are counted from the last `)`.
    let Some((_, rest)) = stat.rsplit_once(')') else {
        return false;
    };
    let mut fields = rest.split_whitespace();
    let state = fields.next().unwrap_or("Z");
    let pgrp = fields.nth(1).and_then(|g| g.parse::<u32>().ok());
    !matches!(state, "Z" | "X" | "x") && pgrp.is_some_and(|g| g != group)
}

/// Returns true when the environment of the process at `dir` holds `entry`.
fn tagged(dir: &Path, entry: &[u8]) -> bool {
    std::fs::read(dir.join("environ"))
        .is_ok_and(|env| env.split(|b| *b == 0).any(|var| var == entry))
}

/// Returns true when the process at `dir` holds one of `pipes` open.
fn holds_pipe(dir: &Path, pipes: &[u64]) -> bool {
    let Ok(fds) = std::fs::read_dir(dir.join("fd")) else {
        return false;
    };
    fds.filter_map(Result::ok).any(|fd| {
        std::fs::read_link(fd.path()).is_ok_and(|target| {
            let target = target.to_string_lossy();
            target
                .strip_prefix("pipe:[")
                .and_then(|rest| rest.strip_suffix(']'))
                .and_then(|n| n.parse::<u64>().ok())
                .is_some_and(|inode| pipes.contains(&inode))
        })
    })
}

/// Kills `pid` and says what it was.
fn kill(pid: u32) -> Escaped {
    let name = std::fs::read_to_string(format!("/proc/{pid}/comm"))
        .map(|n| n.trim_end().to_owned())
        .unwrap_or_default();
    let killed = i32::try_from(pid)
        .ok()
        .and_then(rustix::process::Pid::from_raw)
        .is_some_and(|p| rustix::process::kill_process(p, rustix::process::Signal::KILL).is_ok());
    Escaped { pid, name, killed }
}
