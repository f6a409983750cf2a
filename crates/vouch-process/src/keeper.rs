//! A keeper: a process apart from a worker that kills the worker's children when the worker
//! cannot — when it is stalled (stopped, swapped out, paused) past a child's deadline, or dead.
//!
//! A worker that runs tasks under a lease stops a task's child when its lease cannot be
//! confirmed; but a worker that is itself stopped stops nothing, and its children, resumed
//! with it, run on next to the attempt another worker started meanwhile. The keeper is the
//! worker's second pair of hands: started outside the worker's process tree (`setsid -f`,
//! so a signal or a freeze aimed at the worker and its descendants does not reach it), it is
//! told, for each child's process group, until when the worker holds the right to run it, and
//! kills the group with `SIGKILL` when that moment passes unrenewed — or at once when the
//! worker's end of the pipe closes (the worker died).
//!
//! The protocol is lines on the keeper's standard input: `keep <group> <deadline>` (the
//! deadline in nanoseconds of `CLOCK_MONOTONIC`, the same clock for every process of the
//! machine) adds or moves a deadline; `release <group>` forgets a group whose child ended.
//!
//! Process ids are reused (32,768 of them by default, wrapped around within minutes on a busy
//! machine), so the keeper notes when a group's leader started (from `/proc`) the first time
//! it hears of the group, and kills the group only while that leader is there (its number
//! cannot be taken while it is, even as a zombie): once the leader is gone, the number may
//! belong to anyone. A worker killed outright takes its task's shell with it (the shell's
//! parent-death signal); processes that shell started in its group live on.

use std::collections::HashMap;
use std::io::{BufRead, Write};
use std::process::{ChildStdin, Command, Stdio};
use std::sync::{Mutex, PoisonError, mpsc};
use std::time::{Duration, Instant};

use crate::group::kill_group;

/// How often the keeper looks at its deadlines when nothing arrives.
const TICK: Duration = Duration::from_millis(10);

/// A worker's handle on its keeper: a pipe to the keeper's standard input.
#[derive(Debug)]
pub struct Keeper {
    input: Mutex<ChildStdin>,
}

impl Keeper {
    /// Starts `argv` (a program whose `main` calls [`serve`]) as a keeper outside this
    /// process's tree (through util-linux's `setsid -f` when it is there; as a child
    /// otherwise, which still covers this process's death).
    pub fn spawn(argv: &[std::ffi::OsString]) -> std::io::Result<Keeper> {
        let Some((program, args)) = argv.split_first() else {
            return Err(std::io::Error::other("the keeper's command is empty"));
        };
        let setsid = crate::find_on_process_path("setsid");
        let mut command = match &setsid {
            Some(setsid) => {
                let mut c = Command::new(setsid);
                c.arg("-f").arg(program);
                c
            }
            None => Command::new(program),
        };
        command
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        let mut child = command.spawn()?;
        let input = child
            .stdin
            .take()
            .ok_or_else(|| std::io::Error::other("the keeper's standard input was not piped"))?;
        // A keeper that stops reading (stopped itself) must not stall the worker, whose
        // heartbeat writes while it holds its runs: a write that would block fails instead.
        let flags = rustix::fs::fcntl_getfl(&input)?;
        rustix::fs::fcntl_setfl(&input, flags | rustix::fs::OFlags::NONBLOCK)?;
        if setsid.is_some() {
            // `setsid -f` forks the keeper off and exits at once.
            child.wait()?;
        } else {
            // The keeper is this process's child: reaped when it ends, on a thread of its own.
            std::thread::spawn(move || child.wait());
        }
        Ok(Keeper {
            input: Mutex::new(input),
        })
    }

    /// Has the keeper kill `group` when `until` passes, unless moved on or released first.
    pub fn keep(&self, group: u32, until: Instant) -> std::io::Result<()> {
        let left = until.saturating_duration_since(Instant::now());
        let deadline =
            monotonic_ns().saturating_add(u64::try_from(left.as_nanos()).unwrap_or(u64::MAX));
        self.send(&format!("keep {group} {deadline}\n"))
    }

    /// Tells the keeper `group` ended: it is not to be killed.
    pub fn release(&self, group: u32) -> std::io::Result<()> {
        self.send(&format!("release {group}\n"))
    }

    fn send(&self, line: &str) -> std::io::Result<()> {
        let mut input = self.input.lock().unwrap_or_else(PoisonError::into_inner);
        input.write_all(line.as_bytes())?;
        input.flush()
    }
}

/// One line of the protocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Order {
    Keep { group: u32, deadline: u64 },
    Release { group: u32 },
}

/// Reads one line of the protocol; `None` for a line it does not know (skipped: the worker
/// and its keeper are the same program, so that is a line cut short).
fn parse(line: &str) -> Option<Order> {
    let mut words = line.split_whitespace();
    let order = match (words.next()?, words.next()?.parse().ok()?) {
        ("keep", group) => Order::Keep {
            group,
            deadline: words.next()?.parse().ok()?,
        },
        ("release", group) => Order::Release { group },
        _ => return None,
    };
    words.next().is_none().then_some(order)
}

/// The keeper's whole life: reads orders from `input` until it closes, kills each group whose
/// deadline passes, and when the input closes kills every group still kept, then returns.
pub fn serve(input: impl std::io::Read + Send + 'static) {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(input).lines() {
            let Ok(line) = line else { break };
            if let Some(order) = parse(&line)
                && tx.send(order).is_err()
            {
                break;
            }
        }
    });
    // Each group: its deadline and when its leader started (clock ticks since boot).
    let mut kept: HashMap<u32, (u64, u64)> = HashMap::new();
    loop {
        match rx.recv_timeout(TICK) {
            Ok(Order::Keep { group, deadline }) => {
                if let Some(entry) = kept.get_mut(&group) {
                    entry.0 = deadline;
                } else if let Some((_, started)) = stat(group) {
                    kept.insert(group, (deadline, started));
                }
                // Else the leader is gone already: its child ended, nothing to keep.
            }
            Ok(Order::Release { group }) => {
                kept.remove(&group);
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                for (group, (_, started)) in &kept {
                    kill_own(*group, *started);
                }
                return;
            }
        }
        let now = monotonic_ns();
        kept.retain(|group, (deadline, started)| {
            let alive = *deadline > now;
            if !alive {
                kill_own(*group, *started);
            }
            alive
        });
    }
}

/// Kills the group `group` while its leader is the process that started at `started` (alive,
/// or ended and not yet reaped: its number is not free then). A leader gone leaves the group
/// alone: its number may lead another group by now, and a group without its leader cannot be
/// told from one that took the number since (a program that started a daemon and exited).
fn kill_own(group: u32, started: u64) {
    if stat(group).is_some_and(|(_, s)| s == started) {
        kill_group(group);
    }
}

/// A process's group and start time (clock ticks since boot), from `/proc/<pid>/stat`.
fn stat(pid: u32) -> Option<(u32, u64)> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The name, in parentheses, may hold anything: the fields start after the last `)`.
    let fields: Vec<&str> = text
        .get(text.rfind(')')? + 1..)?
        .split_whitespace()
        .collect();
    // After the name: state, ppid, pgrp (the 5th field), …, starttime (the 22nd).
    Some((fields.get(2)?.parse().ok()?, fields.get(19)?.parse().ok()?))
}

/// Now on `CLOCK_MONOTONIC`, in nanoseconds.
fn monotonic_ns() -> u64 {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::Monotonic);
    u64::try_from(t.tv_sec)
        .unwrap_or(0)
        .saturating_mul(1_000_000_000)
        .saturating_add(u64::try_from(t.tv_nsec).unwrap_or(0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orders_read_and_anything_else_is_skipped() {
        assert_eq!(
            parse("keep 42 1000"),
            Some(Order::Keep {
                group: 42,
                deadline: 1000
            })
        );
        assert_eq!(parse("release 42"), Some(Order::Release { group: 42 }));
        for bad in [
            "",
            "keep",
            "keep 42",
            "keep x 1",
            "release",
            "release 1 2",
            "stop 1",
        ] {
            assert_eq!(parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn a_process_s_group_and_start_are_read_from_proc() {
        let me = std::process::id();
        let (group, started) = stat(me).expect("this process's stat");
        assert_eq!(
            group,
            rustix::process::getpgrp()
                .as_raw_nonzero()
                .get()
                .unsigned_abs()
        );
        assert!(started > 0);
        assert_eq!(stat(me).map(|s| s.1), Some(started));
    }

    #[test]
    fn the_monotonic_clock_agrees_with_instant() {
        let a = monotonic_ns();
        std::thread::sleep(Duration::from_millis(20));
        let b = monotonic_ns();
        assert!(b - a >= 20_000_000, "{a} {b}");
    }
}
