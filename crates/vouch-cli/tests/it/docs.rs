//! The documented commands run as written: every fenced ```` ```sh ```` block of README.md,
//! docs/*.md and the examples' README.md files runs, with `sh -e`, in a fresh copy of the
//! repository's tracked files, with the built `vouch` first on PATH (a line ending in
//! `# exits N` must exit with N). A block that cannot run here says why in its info string,
//! with one of [`NOT_RUN`]'s reasons (```` ```sh server ````); any other word there fails the
//! test, so a block is never skipped by a typo. A block that fails, or a file the blocks leave
//! in the copy that the repository does not track, fails the test. Paths under `/tmp` a block
//! names are cleared before it runs, so `cp -r … /tmp/calc` starts from nothing.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support::{repo, state_root};

/// The repository's tracked files, relative to its root.
fn tracked() -> Vec<PathBuf> {
    let out = Command::new("git")
        .args(["ls-files", "-z"])
        .current_dir(repo())
        .output()
        .expect("git lists the tracked files");
    assert!(out.status.success(), "git ls-files failed");
    out.stdout
        .split(|b| *b == 0)
        .filter(|p| !p.is_empty())
        .map(|p| PathBuf::from(String::from_utf8_lossy(p).into_owned()))
        .filter(|p| repo().join(p).is_file())
        .collect()
}

/// Every file beneath `dir`, relative to it.
fn files_under(dir: &Path) -> BTreeSet<PathBuf> {
    let mut out = BTreeSet::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for entry in std::fs::read_dir(&d).unwrap().map(Result::unwrap) {
            let path = entry.path();
            if path.is_dir() {
                todo.push(path);
            } else {
                out.insert(path.strip_prefix(dir).unwrap().to_path_buf());
            }
        }
    }
    out
}

/// The reasons a documented `sh` block may give for not running in the suite, each with what
/// it means. Everything else runs.
const NOT_RUN: &[(&str, &str)] = &[
    (
        "ci",
        "the build and the suite themselves, which CI runs (.ci/run)",
    ),
    ("install", "installs vouch into ~/.cargo/bin"),
    (
        "server",
        "needs a server of the reader's (PostgreSQL on a host), or shows its answer inline",
    ),
    (
        "agent-cli",
        "needs Claude Code, Codex or Gemini CLI and an account",
    ),
    (
        "peer",
        "needs a peer's program (apflow, the MCP inspector) from the network",
    ),
    (
        "bench",
        "a measurement: minutes of machine time and the peer installed",
    ),
    (
        "sketch",
        "shell around vouch with placeholders the reader fills in",
    ),
];

/// A fenced `sh` block: the line of its fence, its body, and the reason it does not run.
#[derive(Debug, PartialEq)]
struct ShBlock {
    line: usize,
    body: String,
    not_run: Option<String>,
}

/// The `sh` blocks of `text`; other fenced blocks are passed over.
fn sh_blocks(text: &str) -> Vec<ShBlock> {
    let mut blocks = Vec::new();
    let mut open: Option<Option<ShBlock>> = None;
    for (n, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        match &mut open {
            None if trimmed.starts_with("```") => {
                let mut info = trimmed.trim_start_matches('`').split_whitespace();
                open = Some((info.next() == Some("sh")).then(|| ShBlock {
                    line: n + 1,
                    body: String::new(),
                    not_run: info.next().map(str::to_owned),
                }));
            }
            Some(block) => {
                if trimmed.starts_with("```") {
                    blocks.extend(block.take());
                    open = None;
                } else if let Some(block) = block {
                    block.body.push_str(line);
                    block.body.push('\n');
                }
            }
            None => {}
        }
    }
    blocks
}

/// `block` as `sh` runs it: a command ending in `# exits N` (optionally followed by `:` and a
/// note) must exit with N (a blocked gate is shown exiting 1), which `sh -e` would otherwise
/// stop at. A command continued over lines with `\\` is one command.
fn with_expected_exits(block: &str) -> String {
    let mut out = String::new();
    let mut command = String::new();
    for line in block.lines() {
        command.push_str(line);
        if line.ends_with('\\') {
            command.push('\n');
            continue;
        }
        let expected = command.rsplit_once("# exits ").and_then(|(cmd, rest)| {
            let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
            let after = rest[digits.len()..].trim_start();
            (after.is_empty() || after.starts_with(':'))
                .then(|| Some((cmd.to_owned(), digits.parse::<i32>().ok()?)))
                .flatten()
        });
        match expected {
            Some((cmd, n)) => {
                let _ = writeln!(
                    out,
                    "set +e; {cmd}; s=$?; set -e; [ $s -eq {n} ] || {{ echo \"expected exit {n}, got $s\" >&2; exit 1; }}"
                );
            }
            None => {
                out.push_str(&command);
                out.push('\n');
            }
        }
        command.clear();
    }
    out.push_str(&command);
    out
}

/// The paths under `/tmp` that `block` names.
fn tmp_paths(block: &str) -> Vec<PathBuf> {
    block
        .split(|c: char| c.is_whitespace() || c == '"' || c == '\'')
        .filter(|w| w.starts_with("/tmp/") && w.len() > "/tmp/".len())
        .map(PathBuf::from)
        .collect()
}

#[test]
fn every_sh_block_of_the_readme_and_docs_runs_and_leaves_nothing_behind() {
    let copy = tempfile::tempdir().unwrap();
    let files = tracked();
    for f in &files {
        let to = copy.path().join(f);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(repo().join(f), &to).unwrap();
    }
    let before = files_under(copy.path());
    let bin = assert_cmd::cargo::cargo_bin("vouch");
    let path = format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut docs: Vec<PathBuf> = vec![PathBuf::from("README.md")];
    docs.extend(
        files
            .iter()
            .filter(|f| {
                (f.starts_with("docs") && f.extension().is_some_and(|e| e == "md"))
                    || (f.starts_with("examples") && f.ends_with("README.md"))
            })
            .cloned(),
    );
    let mut ran = 0;
    let mut failures = Vec::new();
    for doc in &docs {
        let text = std::fs::read_to_string(repo().join(doc)).unwrap();
        for ShBlock {
            line,
            body: block,
            not_run,
        } in sh_blocks(&text)
        {
            if let Some(reason) = not_run {
                if !NOT_RUN.iter().any(|(r, _)| *r == reason) {
                    failures.push(format!(
                        "{}:{line}: `sh {reason}` is not a reason a block may give for not \
                         running (one of {:?})",
                        doc.display(),
                        NOT_RUN.iter().map(|(r, _)| *r).collect::<Vec<_>>()
                    ));
                }
                continue;
            }
            for p in tmp_paths(&block) {
                let _ = std::fs::remove_dir_all(&p);
                let _ = std::fs::remove_file(&p);
            }
            let (status, output) = run_block(&block, copy.path(), &path);
            ran += 1;
            if !status.success() {
                failures.push(format!(
                    "{}:{line}: exit {:?}\n{block}{output}",
                    doc.display(),
                    status.code(),
                ));
            }
        }
    }
    assert!(ran >= 20, "only {ran} documented blocks ran");
    assert!(failures.is_empty(), "{}", failures.join("\n---\n"));
    let new: Vec<_> = files_under(copy.path())
        .difference(&before)
        .cloned()
        .collect();
    let left = not_ignored(&new);
    assert!(left.is_empty(), "the documented commands left {left:?}");
}

/// Runs `block` with `sh -e` in `dir` in a process group of its own, which is ended when the
/// block ends (a `vouch serve &` it started stops with it); returns its exit status and what it
/// printed.
fn run_block(block: &str, dir: &Path, path: &str) -> (std::process::ExitStatus, String) {
    use std::os::unix::process::CommandExt;
    let out = tempfile::tempfile().unwrap();
    let status = Command::new("sh")
        .args(["-e", "-c", &with_expected_exits(block)])
        .current_dir(dir)
        .env("PATH", path)
        .env("NO_COLOR", "1")
        .env("VOUCH_STATE_DIR", state_root())
        .env_remove("VOUCH_LOG")
        .stdout(out.try_clone().unwrap())
        .stderr(out.try_clone().unwrap())
        .process_group(0)
        .spawn()
        .and_then(|mut child| {
            let status = child.wait();
            let group = format!("-{}", child.id());
            let _ = Command::new("kill").args(["-TERM", "--", &group]).status();
            // Until the group is gone: a server writes its store on the way out.
            for _ in 0..100 {
                let alive = Command::new("kill").args(["-0", "--", &group]).status();
                if !alive.is_ok_and(|s| s.success()) {
                    break;
                }
                std::thread::sleep(std::time::Duration::from_millis(50));
            }
            status
        })
        .unwrap();
    let mut printed = String::new();
    let mut out = out;
    use std::io::{Read, Seek};
    out.rewind().unwrap();
    out.read_to_string(&mut printed).unwrap();
    (status, printed)
}

/// The files of `paths` (relative to the repository) that the repository's .gitignore does not
/// ignore: what `git status` would show a reader after the commands.
fn not_ignored(paths: &[PathBuf]) -> Vec<PathBuf> {
    if paths.is_empty() {
        return Vec::new();
    }
    let list: String = paths.iter().map(|p| format!("{}\n", p.display())).collect();
    let mut child = Command::new("git")
        .args(["check-ignore", "--no-index", "--stdin"])
        .current_dir(repo())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), list.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    let ignored: BTreeSet<PathBuf> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(PathBuf::from)
        .collect();
    paths
        .iter()
        .filter(|p| !ignored.contains(*p))
        .cloned()
        .collect()
}

#[test]
fn a_line_may_say_the_exit_it_expects() {
    let run = |block: &str| {
        Command::new("sh")
            .args(["-e", "-c", &with_expected_exits(block)])
            .status()
            .unwrap()
            .success()
    };
    assert!(run("false   # exits 1\ntrue\n"));
    assert!(run("false   # exits 1: a note\n"));
    assert!(run("test a = \\\n  b   # exits 1\n"));
    assert!(!run("true \\\n  # exits 1\n"));
    assert!(!run("true   # exits 1\n"));
    assert!(!run("false\ntrue\n"));
}

#[test]
fn sh_blocks_are_found_with_their_reasons_and_others_passed_over() {
    let text = "a\n```sh\necho one\necho two\n```\n```sh server\nvouch serve\n```\n```\nplain\n```\n```yaml\nk: v\n```\n";
    assert_eq!(
        sh_blocks(text),
        vec![
            ShBlock {
                line: 2,
                body: "echo one\necho two\n".to_owned(),
                not_run: None
            },
            ShBlock {
                line: 6,
                body: "vouch serve\n".to_owned(),
                not_run: Some("server".to_owned())
            }
        ]
    );
    assert_eq!(
        tmp_paths("cp -r x /tmp/calc\nvouch run --workdir /tmp/calc --html '/tmp/r.html'"),
        [
            PathBuf::from("/tmp/calc"),
            PathBuf::from("/tmp/calc"),
            PathBuf::from("/tmp/r.html")
        ]
    );
}

#[test]
fn the_readme_s_cargo_run_has_one_binary_to_run() {
    // `cargo run --release -- test examples/` runs the one binary of the default members; a
    // second one (the stand-ins' executables) makes cargo refuse to choose.
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = Command::new(cargo)
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--offline",
        ])
        .current_dir(repo())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let defaults: Vec<&str> = meta["workspace_default_members"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(serde_json::Value::as_str)
        .collect();
    let bins: Vec<&str> = meta["packages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| defaults.contains(&p["id"].as_str().unwrap_or_default()))
        .flat_map(|p| p["targets"].as_array().unwrap())
        .filter(|t| t["kind"].as_array().unwrap().iter().any(|k| k == "bin"))
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert_eq!(bins, ["vouch"], "the default members' binaries");
}
