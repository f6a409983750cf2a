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

/// Returns the state root the test binary's runs keep their records in (never the home
/// folder's).
pub(crate) fn state_root() -> &'static std::path::Path {
    static ROOT: std::sync::OnceLock<tempfile::TempDir> = std::sync::OnceLock::new();
    ROOT.get_or_init(|| tempfile::tempdir().unwrap()).path()
}

/// Returns the folder of the record of the run in `workdir`.
pub(crate) fn run_record(workdir: &std::path::Path) -> PathBuf {
    vouch_pipeline::run_dir(state_root(), &workdir.canonicalize().unwrap())
}

/// Returns the command that runs the built `vouch` in `dir`, as every test runs it.
pub(crate) fn command_in(dir: &std::path::Path) -> std::process::Command {
    let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("vouch"));
    cmd.current_dir(dir)
        .env_remove("VOUCH_LOG")
        .env("NO_COLOR", "1")
        .env("VOUCH_STATE_DIR", state_root());
    cmd
}

/// Runs `vouch` with `args` and `stdin` in `dir`.
pub(crate) fn vouch_in_with_stdin(dir: &std::path::Path, args: &[&str], stdin: &[u8]) -> Output {
    assert_cmd::Command::cargo_bin("vouch")
        .unwrap()
        .current_dir(dir)
        .env("VOUCH_STATE_DIR", state_root())
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
        .env("VOUCH_STATE_DIR", state_root())
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

/// Asserts that `out` exited 0 (showing both streams when not) and returns its stdout.
pub(crate) fn succeeded(out: &Output) -> String {
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}
