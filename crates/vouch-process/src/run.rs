//! Running one child to its end or its deadline.
//!
//! The order of things, which every caller relies on:
//! 1. The child starts in a process group of its own, standard input piped (when given) or
//!    closed, standard output and error into pipes only it holds.
//! 2. Standard input is written on a thread of its own, so a child that does not read cannot
//!    stall the wait.
//! 3. Each output stream is read to its end on a thread of its own, capped when asked.
//! 4. A thread waits for the child; this thread waits for that or for the deadline. At the
//!    deadline the whole group is killed; after a normal exit, output pipes that grandchildren
//!    still hold open get a short grace and then the group is killed too, so a background
//!    process cannot hold the caller forever.

use std::path::Path;
use std::process::{Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, mpsc};
use std::time::{Duration, Instant};

use crate::capture::{Captured, capture};
use crate::group::kill_group;

/// How long output pipes may stay open after the child exited before its group is killed.
const PIPE_GRACE: Duration = Duration::from_millis(100);

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
        }
    }

    /// Stops the child, its group killed, when `flag` turns true.
    #[must_use]
    pub fn cancel_on(mut self, flag: Arc<AtomicBool>) -> Options {
        self.cancel = Some(flag);
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
pub fn run(mut command: Command, options: &Options) -> std::io::Result<Finished> {
    use std::os::unix::process::CommandExt;
    let started = Instant::now();
    let (out_reader, out_writer) = std::io::pipe()?;
    let (err_reader, err_writer) = std::io::pipe()?;
    let out_for_child = out_writer.try_clone()?;
    // Only the child may hold write ends once it runs, or reading would never end.
    let err_for_child = if options.merge {
        drop(err_writer);
        out_writer
    } else {
        drop(out_writer);
        err_writer
    };
    command
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
    if let (Some(bytes), Some(mut pipe)) = (options.stdin.clone(), child.stdin.take()) {
        std::thread::spawn(move || {
            use std::io::Write;
            // A child that stops reading early closes the pipe: not an error of ours.
            let _ = pipe.write_all(&bytes);
        });
    }
    let cap = options.cap;
    let (read_tx, read_rx) = mpsc::channel();
    let out_collector = std::thread::spawn(move || {
        let captured = capture(out_reader, cap);
        let _ = read_tx.send(());
        captured
    });
    let merge = options.merge;
    let err_collector = std::thread::spawn(move || {
        if merge {
            Captured::default()
        } else {
            capture(err_reader, cap)
        }
    });
    let pid = child.id();
    let (done_tx, done_rx) = mpsc::channel();
    let waiter = std::thread::spawn(move || {
        let status = child.wait();
        let _ = done_tx.send(());
        status
    });
    let (timed_out, cancelled) = wait(&done_rx, options);
    if timed_out || cancelled || read_rx.recv_timeout(PIPE_GRACE).is_err() {
        kill_group(pid);
    }
    let status: ExitStatus = waiter
        .join()
        .map_err(|_| std::io::Error::other("the thread waiting for the child stopped"))??;
    let out = out_collector.join().unwrap_or_default();
    let err = err_collector.join().unwrap_or_default();
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
    })
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
