//! Running the built binary on the repository's fixtures.

use std::path::PathBuf;
use std::process::Output;

/// Returns the folder of the session fixtures, which commands run in.
pub(crate) fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../vouch-session/tests/fixtures")
}

/// Runs `vouch` with `args` in the fixtures folder.
pub(crate) fn vouch(args: &[&str]) -> Output {
    vouch_with_stdin(args, &[])
}

/// Runs `vouch` with `args` and `stdin` in the fixtures folder.
pub(crate) fn vouch_with_stdin(args: &[&str], stdin: &[u8]) -> Output {
    vouch_in_with_stdin(&fixtures(), args, stdin)
}

/// Runs `vouch` with `args` in `dir`.
pub(crate) fn vouch_in(dir: &std::path::Path, args: &[&str]) -> Output {
    vouch_in_with_stdin(dir, args, &[])
}

/// Runs `vouch` with `args` and `stdin` in `dir`.
pub(crate) fn vouch_in_with_stdin(dir: &std::path::Path, args: &[&str], stdin: &[u8]) -> Output {
    assert_cmd::Command::cargo_bin("vouch")
        .unwrap()
        .current_dir(dir)
        .env_remove("VOUCH_LOG")
        .env("NO_COLOR", "1")
        .args(args)
        .write_stdin(stdin.to_vec())
        .output()
        .unwrap()
}

/// Returns stdout, stderr and the exit code as one text for snapshots.
pub(crate) fn render(out: &Output) -> String {
    format!(
        "exit: {}\n----- stdout -----\n{}----- stderr -----\n{}",
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// Runs `vouch` with `args` in `dir`, with environment variables `envs` set.
pub(crate) fn vouch_env(
    dir: &std::path::Path,
    args: &[&str],
    envs: &[(&str, &std::ffi::OsStr)],
) -> Output {
    let mut cmd = assert_cmd::Command::cargo_bin("vouch").unwrap();
    cmd.current_dir(dir)
        .env_remove("VOUCH_LOG")
        .env("NO_COLOR", "1")
        .args(args);
    for (k, v) in envs {
        cmd.env(k, v);
    }
    cmd.output().unwrap()
}

/// Returns the repository's root.
pub(crate) fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}
