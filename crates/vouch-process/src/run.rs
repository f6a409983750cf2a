//! Running one child to its end or its deadline.
//!
//! The order of things, which every caller relies on:
//! 1. The child starts in a process group of its own, tagged (an environment variable every
//!    process it starts inherits), standard input piped (when given) or closed, standard
//!    output and error into pipes only it holds.
//! 2. Standard input is written on a thread of its own, so a child that does not read cannot
//!    stall the wait.
//! 3. Each output stream is read on a thread of its own, capped when asked.
//! 4. A thread waits for the child to end (without reaping it, so its process id cannot be
//!    taken by another process while its group is signalled); this thread waits for that, the
//!    deadline, or a cancellation.
//! 5. Then the whole group is killed — at the deadline, on cancellation, and after a normal
//!    exit too: background processes a command left behind (`cmd &`, `nohup cmd &`) end with
//!    it, and write nothing after it.
//! 6. Processes that left the group (`setsid`, a daemon's double fork) are looked for by their
//!    tag — and, when the output pipes stay open past a short grace, by the pipes they hold —
//!    and killed where this user may; they are reported in [`Finished::escaped`].
//! 7. Reading stops at the pipes' end or after a second grace: a process nobody could kill
//!    never holds the caller.

use std::path::Path;
use std::process::{Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

use crate::capture::{Capture, capture_into};
use crate::escape::{Escaped, TAG_ENV, Traces, hunt};
use crate::group::kill_group;

/// How long output pipes may stay open after the group was killed before the processes that
/// hold them are looked for; and how long after those were killed before reading stops.
const PIPE_GRACE: Duration = Duration::from_millis(200);

/// How to run a child: its standard input, its deadline, and what to keep of its output.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Options {
    /// Written to standard input, which is then closed; `None` closes it at once.
    pub stdin: Option<Vec<u8>>,
    /// The deadline, counted from the start.
    pub timeout: Duration,
    /// Reads standard error into the same buffer as standard output, interleaved as written.
    pub merge: bool,
    /// Keeps at most this many bytes of each stream: the first half and the last half.
    pub cap: Option<usize>,
    /// When this turns true the child's group is killed and the run answers `cancelled`
    /// (a user's Ctrl-C).
    pub cancel: Option<Arc<AtomicBool>>,
    /// After the child ends, looks for the processes it started that left its group even when
    /// they let go of the output pipes (a read of every process's environment, a few
    /// milliseconds); without it they are looked for only when they hold the pipes.
    pub hunt_escapes: bool,
    /// Confines the child by the kernel ([`crate::Sandbox`]); a sandbox this machine cannot
    /// enforce (outside best-effort) is an error, and the child does not start.
    pub sandbox: Option<crate::Sandbox>,
    /// Told the child's process group when it starts and again just before the group is
    /// killed and the child reaped (the group id is still the child's then).
    pub on_group: Option<OnGroup>,
}

/// A moment in the life of a child's process group.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GroupEvent {
    /// The child started, leading this group.
    Started(u32),
    /// The child ended (or is being stopped); its group is killed next.
    Ending(u32),
}

/// What [`Options::on_group`] calls.
#[derive(Clone)]
pub struct OnGroup(pub Arc<dyn Fn(GroupEvent) + Send + Sync>);

impl std::fmt::Debug for OnGroup {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("OnGroup(..)")
    }
}

impl Options {
    /// Returns the options of a child with `timeout`, no input, separate streams, no cap.
    pub fn new(timeout: Duration) -> Options {
        Options {
            stdin: None,
            timeout,
            merge: false,
            cap: None,
            cancel: None,
            hunt_escapes: false,
            sandbox: None,
            on_group: None,
        }
    }

    /// Confines the child in `sandbox`.
    #[must_use]
    pub fn sandboxed(mut self, sandbox: crate::Sandbox) -> Options {
        self.sandbox = Some(sandbox);
        self
    }

    /// Looks for escaped processes after every run, not only when they hold the output pipes
    /// (for commands an agent wrote).
    #[must_use]
    pub fn hunt_escapes(mut self) -> Options {
        self.hunt_escapes = true;
        self
    }

    /// Stops the child, its group killed, when `flag` turns true.
    #[must_use]
    pub fn cancel_on(mut self, flag: Arc<AtomicBool>) -> Options {
        self.cancel = Some(flag);
        self
    }

    /// Calls `hook` when the child's group starts and before it is killed.
    #[must_use]
    pub fn on_group(mut self, hook: OnGroup) -> Options {
        self.on_group = Some(hook);
        self
    }

    /// Writes `bytes` to the child's standard input.
    #[must_use]
    pub fn stdin(mut self, bytes: impl Into<Vec<u8>>) -> Options {
        self.stdin = Some(bytes.into());
        self
    }

    /// Merges standard error into standard output.
    #[must_use]
    pub fn merged(mut self) -> Options {
        self.merge = true;
        self
    }

    /// Keeps at most `bytes` of each stream, head and tail.
    #[must_use]
    pub fn cap(mut self, bytes: usize) -> Options {
        self.cap = Some(bytes);
        self
    }
}

/// What became of a child.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Finished {
    /// The exit code; `None` when the child was killed (its deadline) or ended by a signal.
    pub exit_code: Option<i32>,
    /// The signal that ended it, when one did (`9` after a timeout).
    pub signal: Option<i32>,
    /// Standard output (standard error interleaved, when merged), capped when asked.
    pub stdout: Vec<u8>,
    /// Standard error, when not merged, capped when asked.
    pub stderr: Vec<u8>,
    /// How many bytes standard output carried in all, before any cap.
    pub stdout_len: u64,
    /// How many bytes standard error carried in all, before any cap.
    pub stderr_len: u64,
    /// The SHA-256 of all of standard output (before any cap), lowercase hex.
    pub stdout_sha256: String,
    /// True when the child ran past its deadline and its process group was killed.
    pub timed_out: bool,
    /// True when the cancel flag stopped it and its process group was killed.
    pub cancelled: bool,
    /// How long it ran.
    pub elapsed: Duration,
    /// Processes it started that left its process group, found after it ended (and killed,
    /// where this user may).
    pub escaped: Vec<Escaped>,
    /// True when its output pipes were still held when reading stopped: the output may lack
    /// what a process nobody could stop wrote later.
    pub pipes_abandoned: bool,
}

impl Finished {
    /// Returns true when the child exited with code 0 before its deadline.
    pub fn succeeded(&self) -> bool {
        self.exit_code == Some(0) && !self.timed_out
    }

    /// Returns standard output as text (invalid UTF-8 replaced).
    pub fn stdout_text(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }

    /// Returns standard error as text (invalid UTF-8 replaced).
    pub fn stderr_text(&self) -> String {
        String::from_utf8_lossy(&self.stderr).into_owned()
    }
}

/// Runs `command` (program, arguments, folder and environment already set) as the module
/// header describes, and returns what became of it. Fails only when the child cannot start or
/// cannot be waited for.
pub fn run(command: Command, options: &Options) -> std::io::Result<Finished> {
    match &options.sandbox {
        // The whole run happens on a thread the kernel confines: the child inherits its rules,
        // and the thread lives as long as the child (a parent-death signal stays meaningful).
        Some(sandbox) => {
            sandbox.check().map_err(std::io::Error::other)?;
            let command = sandbox.wrap(command);
            sandbox
                .confined(move || run_here(command, options))
                .map_err(std::io::Error::other)?
        }
        None => run_here(command, options),
    }
}

/// Runs `command` on this thread.
fn run_here(mut command: Command, options: &Options) -> std::io::Result<Finished> {
    use std::os::unix::process::CommandExt;
    let started = Instant::now();
    let (out_reader, out_writer) = std::io::pipe()?;
    let (err_reader, err_writer) = std::io::pipe()?;
    let pipes = [inode(&out_reader)?, inode(&err_reader)?];
    let out_for_child = out_writer.try_clone()?;
    // Only the child may hold write ends once it runs, or reading would never end.
    let err_for_child = if options.merge {
        drop(err_writer);
        out_writer
    } else {
        drop(out_writer);
        err_writer
    };
    let tag = new_tag();
    command
        .env(TAG_ENV, &tag)
        .stdin(if options.stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(out_for_child)
        .stderr(err_for_child)
        .process_group(0);
    let mut child = command.spawn()?;
    // The command held the parent's copies of the write ends.
    drop(command);
    if let Some(hook) = &options.on_group {
        (hook.0)(GroupEvent::Started(child.id()));
    }
    if let (Some(bytes), Some(mut pipe)) = (options.stdin.clone(), child.stdin.take()) {
        std::thread::spawn(move || {
            use std::io::Write;
            // A child that stops reading early closes the pipe: not an error of ours.
            let _ = pipe.write_all(&bytes);
        });
    }
    let out = Arc::new(Mutex::new(Capture::new(options.cap)));
    let err = Arc::new(Mutex::new(Capture::new(options.cap)));
    let (eof_tx, eof_rx) = mpsc::channel();
    for (reader, shared) in [
        (out_reader, Arc::clone(&out)),
        (err_reader, Arc::clone(&err)),
    ] {
        let eof = eof_tx.clone();
        std::thread::spawn(move || {
            capture_into(reader, &shared);
            let _ = eof.send(());
        });
    }
    drop(eof_tx);
    let pid = child.id();
    let (done_tx, done_rx) = mpsc::channel();
    let (reap_tx, reap_rx) = mpsc::channel::<()>();
    let waiter = std::thread::spawn(move || {
        ended(pid);
        let _ = done_tx.send(());
        // The child stays unreaped until its group has been signalled.
        let _ = reap_rx.recv();
        child.wait()
    });
    let (timed_out, cancelled) = wait(&done_rx, options);
    if let Some(hook) = &options.on_group {
        (hook.0)(GroupEvent::Ending(pid));
    }
    kill_group(pid);
    let _ = reap_tx.send(());
    let status: ExitStatus = waiter
        .join()
        .map_err(|_| std::io::Error::other("the thread waiting for the child stopped"))??;
    let mut open = 2usize;
    let mut drained = |grace: Duration| {
        let deadline = Instant::now() + grace;
        while open > 0 {
            let left = deadline.saturating_duration_since(Instant::now());
            match eof_rx.recv_timeout(left) {
                Ok(()) => open -= 1,
                Err(mpsc::RecvTimeoutError::Disconnected) => open = 0,
                Err(mpsc::RecvTimeoutError::Timeout) => return false,
            }
        }
        true
    };
    let traces = Traces::new(&tag, pipes.to_vec());
    let mut escaped = Vec::new();
    let mut abandoned = false;
    if drained(PIPE_GRACE) {
        if options.hunt_escapes {
            escaped = hunt(&traces, pid, false);
        }
    } else {
        escaped = hunt(&traces, pid, true);
        abandoned = !drained(PIPE_GRACE);
    }
    let finish = |c: &Mutex<Capture>| {
        c.lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .finish()
    };
    let (out, err) = (finish(&out), finish(&err));
    use std::os::unix::process::ExitStatusExt;
    Ok(Finished {
        exit_code: if timed_out || cancelled {
            None
        } else {
            status.code()
        },
        signal: status.signal(),
        stdout: out.bytes,
        stderr: err.bytes,
        stdout_len: out.total,
        stdout_sha256: out.sha256,
        stderr_len: err.total,
        timed_out,
        cancelled,
        elapsed: started.elapsed(),
        escaped,
        pipes_abandoned: abandoned,
    })
}

/// Returns the inode of a pipe end: how a process holding the pipe names it in `/proc`.
fn inode(pipe: &std::io::PipeReader) -> std::io::Result<u64> {
    Ok(rustix::fs::fstat(pipe)?.st_ino)
}

/// Returns a tag no other child of this process carries.
fn new_tag() -> String {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    format!(
        "{}.{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

/// Waits until the child `pid` has ended, leaving it to be reaped (its process id stays its
/// own meanwhile).
fn ended(pid: u32) {
    use rustix::process::{Pid, WaitId, WaitIdOptions, waitid};
    let Some(pid) = i32::try_from(pid).ok().and_then(Pid::from_raw) else {
        return;
    };
    loop {
        match waitid(
            WaitId::Pid(pid),
            WaitIdOptions::EXITED | WaitIdOptions::NOWAIT,
        ) {
            Err(rustix::io::Errno::INTR) => {}
            // Ended, or nothing to wait for: either way the caller reaps it next.
            _ => return,
        }
    }
}

/// How often a cancel flag is looked at while a child runs.
const CANCEL_POLL: Duration = Duration::from_millis(50);

/// Waits for the child's end, its deadline, or its cancellation; returns whether the deadline
/// passed and whether it was cancelled.
fn wait(done: &mpsc::Receiver<()>, options: &Options) -> (bool, bool) {
    let Some(flag) = &options.cancel else {
        return (done.recv_timeout(options.timeout).is_err(), false);
    };
    let deadline = Instant::now() + options.timeout;
    loop {
        if flag.load(Ordering::SeqCst) {
            return (false, true);
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return (true, false);
        }
        match done.recv_timeout(left.min(CANCEL_POLL)) {
            Ok(()) | Err(mpsc::RecvTimeoutError::Disconnected) => return (false, false),
            Err(mpsc::RecvTimeoutError::Timeout) => {}
        }
    }
}

/// Runs `script` with `sh -c` in `workdir` for at most `timeout`, standard error merged into
/// standard output.
pub fn shell(script: &str, workdir: &Path, timeout: Duration) -> std::io::Result<Finished> {
    let mut cmd = Command::new("sh");
    cmd.arg("-c").arg(script).current_dir(workdir);
    run(cmd, &Options::new(timeout).merged())
}
