//! Running a shell command for a gate: in its own process group, output captured, and the whole
//! group killed when it runs past its time.

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

/// What became of a command a gate ran.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct CommandOutcome {
    /// The exit code; `None` when the command was killed or ended by a signal.
    pub exit_code: Option<i32>,
    /// Standard output and standard error, interleaved as written.
    pub output: String,
    /// True when the command ran past its time and its process group was killed.
    pub timed_out: bool,
}

impl CommandOutcome {
    /// Returns true when the command exited with code 0.
    pub fn succeeded(&self) -> bool {
        self.exit_code == Some(0) && !self.timed_out
    }
}

/// Runs `command` with `sh -c` in `workdir`, for at most `timeout`.
///
/// The command runs in a process group of its own; on expiry the whole group is killed, so a
/// test runner's children die with it. After the command exits, anything it left running in
/// its group is killed too.
pub fn run_shell(
    command: &str,
    workdir: &Path,
    timeout: Duration,
) -> std::io::Result<CommandOutcome> {
    let mut cmd = Command::new("sh");
    cmd.arg("-c").arg(command).current_dir(workdir);
    let out = run_process(cmd, None, timeout, true)?;
    Ok(CommandOutcome {
        exit_code: out.exit_code,
        output: String::from_utf8_lossy(&out.stdout).into_owned(),
        timed_out: out.timed_out,
    })
}

/// What became of a process run by [`run_process`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ProcessOutcome {
    /// The exit code; `None` when the process was killed or ended by a signal.
    pub exit_code: Option<i32>,
    /// Standard output (with standard error interleaved, when asked).
    pub stdout: Vec<u8>,
    /// Standard error, when not interleaved.
    pub stderr: Vec<u8>,
    /// True when the process ran past its time and its process group was killed.
    pub timed_out: bool,
    /// How long it ran.
    pub elapsed: Duration,
}

/// Runs `command` (program, arguments, directory and environment already set) in a process
/// group of its own, with `stdin` written to its standard input (closed when `None`), for at
/// most `timeout`: on expiry the whole group is killed, and after a normal exit so is anything
/// it left running that still holds its output open. With `merge`, standard error is read into
/// the same buffer as standard output, interleaved as written.
pub fn run_process(
    mut command: Command,
    stdin: Option<Vec<u8>>,
    timeout: Duration,
    merge: bool,
) -> std::io::Result<ProcessOutcome> {
    use std::os::unix::process::CommandExt;
    let started = std::time::Instant::now();
    let (mut out_reader, out_writer) = std::io::pipe()?;
    let (mut err_reader, err_writer) = std::io::pipe()?;
    // Only the child may hold write ends once it runs, or reading would never end.
    let out_for_child = out_writer.try_clone()?;
    let err_for_child = if merge {
        drop(err_writer);
        out_writer
    } else {
        drop(out_writer);
        err_writer
    };
    command
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(out_for_child)
        .stderr(err_for_child)
        .process_group(0);
    let mut child = command.spawn()?;
    // The command holds the only write ends now: reading ends when it (and its group) is done.
    drop(command);
    if let (Some(bytes), Some(mut pipe)) = (stdin, child.stdin.take()) {
        std::thread::spawn(move || {
            use std::io::Write;
            // A process that stops reading early closes the pipe: not an error of ours.
            let _ = pipe.write_all(&bytes);
        });
    }
    let (read_tx, read_rx) = std::sync::mpsc::channel();
    let collector = std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = out_reader.read_to_end(&mut bytes);
        let _ = read_tx.send(());
        bytes
    });
    let err_collector = std::thread::spawn(move || {
        let mut bytes = Vec::new();
        if !merge {
            let _ = err_reader.read_to_end(&mut bytes);
        }
        bytes
    });
    // A thread waits for the child, so its end is seen at once; this thread waits for that, or
    // for the deadline.
    let pid = child.id();
    let (done_tx, done_rx) = std::sync::mpsc::channel();
    let waiter = std::thread::spawn(move || {
        let status = child.wait();
        let _ = done_tx.send(());
        status
    });
    let timed_out = done_rx.recv_timeout(timeout).is_err();
    if timed_out || read_rx.recv_timeout(Duration::from_millis(100)).is_err() {
        kill_group(pid);
    }
    let status = waiter
        .join()
        .map_err(|_| std::io::Error::other("the thread waiting for the process stopped"))??;
    let stdout = collector.join().unwrap_or_default();
    let stderr = err_collector.join().unwrap_or_default();
    Ok(ProcessOutcome {
        exit_code: if timed_out { None } else { status.code() },
        stdout,
        stderr,
        timed_out,
        elapsed: started.elapsed(),
    })
}

/// Kills every process of the group led by `pid` (the group may already be gone).
fn kill_group(pid: u32) {
    let _ = Command::new("kill")
        .args(["-KILL", "--", &format!("-{pid}")])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
}

/// Quotes `s` for a POSIX shell.
pub(crate) fn shell_quote(s: &str) -> String {
    if !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./:=@%+,".contains(&b))
    {
        s.to_owned()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// Returns at most `max` characters of `text`, marking the cut.
pub(crate) fn truncate(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((end, _)) => format!("{}\n… (output truncated to {max} characters)", &text[..end]),
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn captures_output_and_exit_code() {
        let out = run_shell(
            "echo out; echo err >&2; exit 3",
            Path::new("."),
            Duration::from_secs(10),
        )
        .unwrap();
        assert_eq!(out.exit_code, Some(3));
        assert!(out.output.contains("out") && out.output.contains("err"));
        assert!(!out.succeeded());
    }

    #[test]
    fn a_hanging_group_is_killed_at_the_deadline() {
        let started = std::time::Instant::now();
        let out = run_shell(
            "sleep 30 & sleep 30; echo never",
            Path::new("."),
            Duration::from_millis(300),
        )
        .unwrap();
        assert!(out.timed_out);
        assert_eq!(out.exit_code, None);
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "the background child was killed too"
        );
    }

    #[test]
    fn standard_input_in_and_separate_streams_out() {
        let mut cmd = Command::new("sh");
        cmd.arg("-c").arg("cat; echo oops >&2");
        let out = run_process(
            cmd,
            Some(b"the prompt".to_vec()),
            Duration::from_secs(10),
            false,
        )
        .unwrap();
        assert_eq!(out.stdout, b"the prompt");
        assert_eq!(out.stderr, b"oops\n");
        assert_eq!(out.exit_code, Some(0));
    }

    #[test]
    fn quoting_survives_spaces_and_quotes() {
        assert_eq!(shell_quote("tests/a.py"), "tests/a.py");
        assert_eq!(shell_quote("my file's.py"), r"'my file'\''s.py'");
    }
}
