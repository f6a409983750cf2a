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
