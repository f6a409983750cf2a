//! The documented commands run as written: every fenced block marked ```` ```sh runnable ```` in
//! README.md and docs/*.md runs, with `sh -e`, in a fresh copy of the repository's tracked
//! files, with the built `vouch` first on PATH (a line ending in `# exits N` must exit with N).
//! A block that fails, or a file the blocks leave
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

/// The runnable blocks of `text`: (line of the fence, the block's lines).
fn runnable_blocks(text: &str) -> Vec<(usize, String)> {
    let mut blocks = Vec::new();
    let mut open: Option<(usize, String)> = None;
    for (n, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        match &mut open {
            None if trimmed.starts_with("```") => {
                let info: Vec<&str> = trimmed.trim_start_matches('`').split_whitespace().collect();
                if info.contains(&"runnable") {
                    open = Some((n + 1, String::new()));
                } else if !info.is_empty() || trimmed == "```" {
                    // Another block: skip to its end.
                    open = Some((0, String::new()));
                }
            }
            Some((at, body)) => {
                if trimmed.starts_with("```") {
                    if *at > 0 {
                        blocks.push((*at, std::mem::take(body)));
                    }
                    open = None;
                } else {
                    body.push_str(line);
                    body.push('\n');
                }
            }
            None => {}
        }
    }
    blocks
}

/// `block` as `sh` runs it: a line ending in `# exits N` must exit with N (a blocked gate is
/// shown exiting 1), which `sh -e` would otherwise stop at.
fn with_expected_exits(block: &str) -> String {
    let mut out = String::new();
    for line in block.lines() {
        let expected = line
            .rsplit_once("# exits ")
            .and_then(|(cmd, n)| Some((cmd, n.trim().parse::<i32>().ok()?)));
        match expected {
            Some((cmd, n)) => {
                let _ = writeln!(
                    out,
                    "set +e; {cmd}; s=$?; set -e; [ $s -eq {n} ] || {{ echo \"expected exit {n}, got $s\" >&2; exit 1; }}"
                );
            }
            None => {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
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
fn every_runnable_block_of_the_readme_and_docs_runs_and_leaves_nothing_behind() {
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
            .filter(|f| f.starts_with("docs") && f.extension().is_some_and(|e| e == "md"))
            .cloned(),
    );
    let mut ran = 0;
    let mut failures = Vec::new();
    for doc in &docs {
        let text = std::fs::read_to_string(repo().join(doc)).unwrap();
        for (line, block) in runnable_blocks(&text) {
            for p in tmp_paths(&block) {
                let _ = std::fs::remove_dir_all(&p);
                let _ = std::fs::remove_file(&p);
            }
            let out = Command::new("sh")
                .args(["-e", "-c", &with_expected_exits(&block)])
                .current_dir(copy.path())
                .env("PATH", &path)
                .env("NO_COLOR", "1")
                .env("VOUCH_STATE_DIR", state_root())
                .env_remove("VOUCH_LOG")
                .output()
                .unwrap();
            ran += 1;
            if !out.status.success() {
                failures.push(format!(
                    "{}:{line}: exit {:?}\n{block}{}{}",
                    doc.display(),
                    out.status.code(),
                    String::from_utf8_lossy(&out.stdout),
                    String::from_utf8_lossy(&out.stderr)
                ));
            }
        }
    }
    assert!(ran >= 5, "only {ran} runnable blocks found");
    assert!(failures.is_empty(), "{}", failures.join("\n---\n"));
    let left: Vec<_> = files_under(copy.path())
        .difference(&before)
        .cloned()
        .collect();
    assert!(left.is_empty(), "the documented commands left {left:?}");
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
    assert!(!run("true   # exits 1\n"));
    assert!(!run("false\ntrue\n"));
}

#[test]
fn runnable_blocks_are_found_and_others_skipped() {
    let text =
        "a\n```sh\nnot this\n```\n```sh runnable\necho one\necho two\n```\n```\nplain\n```\n";
    assert_eq!(
        runnable_blocks(text),
        vec![(5, "echo one\necho two\n".to_owned())]
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
