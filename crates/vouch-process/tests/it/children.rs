//! Real children, run through the crate's one entry point.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use vouch_process::{Options, run, shell};

const LONG: Duration = Duration::from_secs(20);

#[test]
fn captures_merged_output_and_the_exit_code() {
    let out = shell("echo out; echo err >&2; exit 3", Path::new("."), LONG).unwrap();
    assert_eq!(out.exit_code, Some(3));
    assert_eq!(out.signal, None);
    assert_eq!(out.stdout_text(), "out\nerr\n");
    assert!(!out.succeeded());
}

#[test]
fn standard_input_in_and_separate_streams_out() {
    let mut cmd = Command::new("sh");
    cmd.arg("-c").arg("cat; echo oops >&2");
    let out = run(cmd, &Options::new(LONG).stdin("the prompt")).unwrap();
    assert_eq!(out.stdout, b"the prompt");
    assert_eq!(out.stderr, b"oops\n");
    assert!(out.succeeded());
}

#[test]
fn without_input_standard_input_is_closed() {
    let out = shell("cat; echo done", Path::new("."), LONG).unwrap();
    assert_eq!(out.stdout_text(), "done\n");
}

#[test]
fn a_hanging_group_is_killed_at_the_deadline_grandchildren_included() {
    let dir = tempfile::tempdir().unwrap();
    // The shell says its pid — its group's id — first; the background sleeper would write its
    // marker if it outlived the kill.
    let script = "echo $$; (sleep 2; touch survived) & sleep 30; echo never";
    let out = shell(script, dir.path(), Duration::from_millis(300)).unwrap();
    assert!(out.timed_out);
    assert_eq!(out.exit_code, None);
    assert_eq!(out.signal, Some(9));
    assert!(!out.stdout_text().contains("never"));
    let group = out.stdout_text().lines().next().unwrap().trim().to_owned();
    assert!(
        group_ends(&group),
        "the process group {group} outlived its deadline"
    );
    assert!(!dir.path().join("survived").exists());
}

#[test]
fn a_background_process_holding_the_pipe_does_not_hold_the_caller() {
    let out = shell("sleep 30 & echo started", Path::new("."), LONG).unwrap();
    assert!(!out.timed_out);
    assert_eq!(out.exit_code, Some(0));
    assert_eq!(out.stdout_text(), "started\n");
}

#[test]
fn a_cap_keeps_the_head_and_the_tail_and_counts_everything() {
    let mut cmd = Command::new("sh");
    cmd.arg("-c").arg("seq 1 10000");
    let out = run(cmd, &Options::new(LONG).cap(100)).unwrap();
    let text = out.stdout_text();
    assert!(text.starts_with("1\n2\n3\n"), "{text}");
    assert!(text.ends_with("9999\n10000\n"), "{text}");
    assert!(text.contains("bytes of output left out"), "{text}");
    assert_eq!(out.stdout_len, 48_894);
}

#[test]
fn a_program_that_does_not_exist_is_an_error() {
    let err = run(Command::new("/nonexistent/program"), &Options::new(LONG)).unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::NotFound);
}

#[test]
fn a_cancelled_child_is_stopped_with_its_group() {
    let flag = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
    let mut cmd = Command::new("sh");
    cmd.arg("-c").arg("sleep 30 & sleep 30");
    let out = run(cmd, &Options::new(LONG).cancel_on(flag)).unwrap();
    assert!(out.cancelled && !out.timed_out);
    assert_eq!(out.exit_code, None);
}

/// Returns true once no process of group `group` is left. A killed process leaves the process
/// table a moment after the signal; a group still alive after five seconds was not killed.
fn group_ends(group: &str) -> bool {
    for _ in 0..500 {
        let alive = Command::new("kill")
            .args(["-0", "--", &format!("-{group}")])
            .stderr(std::process::Stdio::null())
            .status()
            .unwrap()
            .success();
        if !alive {
            return true;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    false
}

/// Returns a script that starts `escapee` in a session of its own (`setsid`), waits until it
/// is out of the group, then runs `then`.
fn escape(escapee: &str, then: &str) -> String {
    format!(
        "setsid sh -c 'touch escaped; {escapee}' & while [ ! -e escaped ]; do sleep 0.01; done; {then}"
    )
}

/// Returns true when `file` still does not exist a while after every process that could have
/// written it should be gone: it is written one second after the command, so two seconds is
/// past its time.
fn never_written(file: &Path) -> bool {
    std::thread::sleep(Duration::from_secs(2));
    !file.exists()
}

#[test]
fn a_process_that_left_the_group_holding_the_pipe_is_found_and_killed() {
    // The shell ends at once; `setsid` puts the sleeper in a session of its own, out of the
    // group's reach, holding the output pipe. The run must neither wait for it nor miss it.
    let dir = tempfile::tempdir().unwrap();
    let started = std::time::Instant::now();
    let out = shell(
        &escape("exec sleep 30", "echo started"),
        dir.path(),
        Duration::from_secs(2),
    )
    .unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(out.exit_code, Some(0));
    assert!(!out.timed_out);
    assert_eq!(out.stdout_text(), "started\n");
    assert_eq!(out.escaped.len(), 1, "{:?}", out.escaped);
    assert_eq!(out.escaped[0].name, "sleep");
    assert!(out.escaped[0].killed);
    assert!(!out.pipes_abandoned);
}

#[test]
fn a_process_that_cleared_its_environment_is_found_by_the_pipe_it_holds() {
    let dir = tempfile::tempdir().unwrap();
    let out = shell(
        &escape("exec env -i /bin/sleep 30", "echo started"),
        dir.path(),
        LONG,
    )
    .unwrap();
    assert_eq!(out.escaped.len(), 1, "{:?}", out.escaped);
    assert!(out.escaped[0].killed);
}

#[test]
fn a_background_process_ends_with_its_command() {
    let dir = tempfile::tempdir().unwrap();
    let out = shell(
        "nohup sh -c 'sleep 1; touch late' >/dev/null 2>&1 & echo started",
        dir.path(),
        LONG,
    )
    .unwrap();
    assert_eq!(out.stdout_text(), "started\n");
    assert!(out.escaped.is_empty(), "{:?}", out.escaped);
    assert!(never_written(&dir.path().join("late")));
}

#[test]
fn an_escape_that_let_go_of_the_pipes_is_found_by_its_tag_when_asked() {
    let dir = tempfile::tempdir().unwrap();
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg(escape(
            "exec </dev/null >/dev/null 2>&1; sleep 1; touch late",
            "echo started",
        ))
        .current_dir(dir.path());
    let out = run(cmd, &Options::new(LONG).hunt_escapes()).unwrap();
    // The escaped shell, and the `sleep` it was running — when it had started it already: on a
    // loaded machine the hunt may come first, and the shell dies before it starts one.
    let names: Vec<&str> = out.escaped.iter().map(|e| e.name.as_str()).collect();
    assert!(
        names == ["sh"] || names == ["sh", "sleep"],
        "{:?}",
        out.escaped
    );
    assert!(out.escaped.iter().all(|e| e.killed));
    assert!(never_written(&dir.path().join("late")));
}

#[test]
fn a_timeout_is_recorded_when_an_escaped_process_holds_the_pipe() {
    let dir = tempfile::tempdir().unwrap();
    let out = shell(
        &escape("exec sleep 30", "sleep 30"),
        dir.path(),
        Duration::from_millis(500),
    )
    .unwrap();
    assert!(out.timed_out);
    assert_eq!(out.exit_code, None);
    assert_eq!(out.escaped.len(), 1, "{:?}", out.escaped);
}
