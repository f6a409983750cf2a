//! Strict check 7b: a test file may not be weakened during the session. Its count of
//! assertion matches (comments removed) must not drop, nor its count of skip markers grow,
//! against git `HEAD` or, for a file git does not hold, the first version written in the part
//! of the session read.

use std::fmt::Write;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use vouch_evidence::{Brief, same_file};

use super::{NAME, TestReportValid};
use crate::predicate::{GateContext, Verdict, fail_closed};

/// How long `git show` may take.
const GIT_TIMEOUT: Duration = Duration::from_secs(10);

/// Returns a block when a test file lost assertions, `None` when none did.
pub(super) fn check(
    v: &TestReportValid,
    cx: &GateContext<'_, '_>,
    brief: Option<&Brief>,
) -> Option<Verdict> {
    let kw = cx.keyword;
    let files = match test_files(v, cx, brief) {
        Ok(files) => files,
        Err(verdict) => return Some(verdict),
    };
    let mut weakened = String::new();
    for path in files {
        let text = match std::fs::read_to_string(cx.view.resolve(Path::new(&path))) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Some(fail_closed(NAME, kw, &format!("the test file {path}"), &e)),
        };
        let Some((before, source)) = baseline(cx, &path) else {
            continue;
        };
        let (then, now) = (
            v.assertion_count(&path, &before),
            v.assertion_count(&path, &text),
        );
        if now < then {
            let _ = writeln!(
                weakened,
                "✗ {path} — {then} assertion(s) {source}, {now} now"
            );
        }
        let (then, now) = (skip_count(&path, &before), skip_count(&path, &text));
        if now > then {
            let _ = writeln!(
                weakened,
                "✗ {path} — {then} skipped test(s) {source}, {now} now"
            );
        }
    }
    if weakened.is_empty() {
        return None;
    }
    Some(Verdict::block(
        NAME,
        format!(
            "{kw} blocked: these test files were weakened this session:\n{weakened}\
             A test may not be weakened to make it pass (assertions deleted or commented out,\n\
             tests marked skipped). Restore them and fix the code instead, then retry the handoff."
        ),
    ))
}

/// Markers that skip a test, across test frameworks: pytest and unittest, Jest, Vitest and
/// Mocha, RSpec, Rust, Go, JUnit, xUnit/NUnit/MSTest, PHPUnit, GoogleTest.
const SKIP_MARKERS: &str = r"@pytest\.mark\.(skip|xfail)|\bpytest\.skip\(|@unittest\.skip|\.skip\(|\bx(it|describe|test|context)\b|#\[ignore\b|\bt\.Skip(Now|f)?\(|@Disabled\b|@Ignore\b|\[Ignore\b|Skip\s*=|markTestSkipped|^\s*(skip|pending)\b|GTEST_SKIP|\bDISABLED_";

/// Returns how many skip markers `text` (the file at `path`) holds, comments removed.
fn skip_count(path: &str, text: &str) -> usize {
    static MARKERS: std::sync::OnceLock<Option<regex::Regex>> = std::sync::OnceLock::new();
    let Some(re) = MARKERS
        .get_or_init(|| regex::Regex::new(&format!("(?m){SKIP_MARKERS}")).ok())
        .as_ref()
    else {
        return 0;
    };
    re.find_iter(&vouch_evidence::strip_comments(path, text))
        .count()
}

/// Returns the test files to compare: the brief's and those written this session (see
/// `TestReportValid::is_test_file`), each once.
fn test_files(
    v: &TestReportValid,
    cx: &GateContext<'_, '_>,
    brief: Option<&Brief>,
) -> Result<Vec<String>, Verdict> {
    let mut paths: Vec<String> = brief
        .into_iter()
        .flat_map(Brief::paths_to_change)
        .map(str::to_owned)
        .collect();
    let written = cx
        .view
        .written_paths()
        .map_err(|e| fail_closed(NAME, cx.keyword, "the change log", e))?;
    paths.extend(written.into_iter().map(str::to_owned));
    let mut out: Vec<String> = Vec::new();
    for p in paths {
        if v.is_test_file(&p) && !out.iter().any(|o| same_file(o, &p)) {
            out.push(p);
        }
    }
    Ok(out)
}

/// Returns the file's earlier text and where it came from: git `HEAD`, else the first version
/// written in the session read.
fn baseline(cx: &GateContext<'_, '_>, path: &str) -> Option<(String, &'static str)> {
    if let Some(text) = at_head(cx.view.workdir(), path) {
        return Some((text, "at git HEAD"));
    }
    cx.view
        .all_calls()
        .iter()
        .filter(|c| c.call.kind.writes_files() && c.succeeded())
        .filter(|c| c.call.touched_paths().iter().any(|p| same_file(p, path)))
        .find_map(|c| c.call.arg_str("content").map(str::to_owned))
        .map(|text| (text, "in its first version this session"))
}

/// Returns the file's text at git `HEAD`, `None` when git does not hold it there.
fn at_head(workdir: &Path, path: &str) -> Option<String> {
    let relative = if Path::new(path).is_absolute() {
        let dir = std::fs::canonicalize(workdir).ok()?;
        Path::new(path)
            .strip_prefix(&dir)
            .ok()?
            .to_string_lossy()
            .into_owned()
    } else {
        path.trim_start_matches("./").to_owned()
    };
    let mut git = Command::new("git");
    git.arg("-C")
        .arg(workdir)
        .arg("show")
        .arg(format!("HEAD:./{relative}"));
    let finished = vouch_process::run(git, &vouch_process::Options::new(GIT_TIMEOUT)).ok()?;
    finished
        .succeeded()
        .then(|| String::from_utf8_lossy(&finished.stdout).into_owned())
}
