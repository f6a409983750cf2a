//! HTML reports: the structure of the generated page, and the page in a real browser —
//! headless Chromium (Debian's `chromium`, which `.ci/run` installs) loads it from `file://`
//! with its script on; the test reads the rendered DOM and the browser's console, and writes a
//! screenshot of each view.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support::{render, vouch};

/// The bundled example session: a subagent, a failed command, a denied read.
fn example() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/sessions/claude-code/7f3e2a10-5c4b-4e8d-9a61-0b2c3d4e5f60.jsonl")
}

/// Writes the session report of the example into `dir`; returns its path and text.
fn session_report(dir: &Path) -> (PathBuf, String) {
    let path = dir.join("session.html");
    let example = example();
    let out = vouch(&[
        "session",
        "show",
        "--html",
        path.to_str().unwrap(),
        example.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", render(&out));
    // A person is told where the report is; standard output keeps the timeline.
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("the HTML report: {}", path.display())),
        "{stderr}"
    );
    let html = std::fs::read_to_string(&path).unwrap();
    (path, html)
}

/// Returns the page without its style and script: the structure a snapshot should hold.
fn structure(html: &str) -> String {
    let mut out = String::new();
    let mut rest = html;
    for (open, close) in [("<style>", "</style>"), ("<script>", "</script>")] {
        let (Some(a), Some(b)) = (rest.find(open), rest.find(close)) else {
            continue;
        };
        out.push_str(&rest[..a + open.len()]);
        out.push('…');
        rest = &rest[b..];
    }
    out.push_str(rest);
    // One element a line, so that a change shows where it is.
    out.replace("><", ">\n<")
}

#[test]
fn the_session_report_holds_every_call_with_its_outcome() {
    let dir = tempfile::tempdir().unwrap();
    let (path, html) = session_report(dir.path());
    let page = structure(&html).replace(&*example().to_string_lossy(), "<example>");
    insta::assert_snapshot!("session_report_structure", page);
    assert!(
        !html.contains("http://") && !html.contains("https://"),
        "no external request"
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o644, "a report others can read");
    }
}

/// Returns `html`'s structure with times blanked: durations (`2ms`, `1m 39s`) vary run to run.
fn timeless(html: &str) -> String {
    let mut out = String::new();
    for piece in structure(html).split_inclusive('\n') {
        let blank = |s: &str, open: &str| -> Option<String> {
            let start = s.find(open)? + open.len();
            let end = start + s[start..].find('<')?;
            Some(format!("{}…{}", &s[..start], &s[end..]))
        };
        let piece = blank(piece, "<span class=\"dur\">").unwrap_or_else(|| piece.to_owned());
        out.push_str(&piece);
    }
    out
}

/// Returns Chromium, or fails saying how to get it: the browser check is not skipped.
fn chromium() -> PathBuf {
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .find_map(|name| {
            std::env::var_os("PATH").and_then(|paths| {
                std::env::split_paths(&paths)
                    .map(|p| p.join(name))
                    .find(|p| p.is_file())
            })
        })
        .unwrap_or_else(|| {
            panic!("headless Chromium is needed for this test: `apt-get install chromium` (.ci/run installs it)")
        })
}

/// Runs headless Chromium on `url` with `args`; returns its standard output and error.
pub(crate) fn browse(url: &str, args: &[&str]) -> (String, String) {
    let profile = tempfile::tempdir().unwrap();
    let out = Command::new(chromium())
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--enable-logging=stderr",
            "--v=0",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args(args)
        .arg(url)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "chromium failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Fails when the browser's console said anything: the reports log nothing, so any line is an
/// error.
pub(crate) fn assert_quiet_console(log: &str) {
    let console: Vec<&str> = log
        .lines()
        .filter(|l| l.contains("CONSOLE") || l.contains("Uncaught"))
        .collect();
    assert!(console.is_empty(), "console messages: {console:?}");
}

/// Takes a screenshot of `url` `height` pixels high into `dir`, checks it is a picture, and
/// copies it to `docs/reports/<name>.png` when `VOUCH_UPDATE_SCREENSHOTS` is set.
fn screenshot(dir: &Path, url: &str, name: &str, height: u32) {
    let shot = dir.join(format!("{name}.png"));
    browse(
        url,
        &[
            &format!("--screenshot={}", shot.display()),
            &format!("--window-size=1280,{height}"),
            "--hide-scrollbars",
        ],
    );
    let png = std::fs::read(&shot).unwrap();
    assert!(
        png.starts_with(b"\x89PNG") && png.len() > 10_000,
        "a real picture"
    );
    if std::env::var_os("VOUCH_UPDATE_SCREENSHOTS").is_some() {
        let docs = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/reports");
        std::fs::create_dir_all(&docs).unwrap();
        std::fs::copy(&shot, docs.join(format!("{name}.png"))).unwrap();
    }
}

#[test]
fn the_session_report_works_in_a_real_browser() {
    let dir = tempfile::tempdir().unwrap();
    let (path, _) = session_report(dir.path());
    let url = format!("file://{}", path.display());
    // The link to the failed command opens it; the script counted the calls.
    let failed = "call-toolu_test1";
    let (dom, log) = browse(&format!("{url}#{failed}"), &["--dump-dom"]);
    assert_eq!(
        dom.matches("<details class=\"call ").count(),
        8,
        "every call a row"
    );
    let row = dom
        .split("<details ")
        .find(|d| d.contains(&format!("id=\"{failed}\"")))
        .unwrap_or_else(|| panic!("no row {failed} in {dom}"));
    assert!(row.contains("data-outcome=\"failed\""), "{row}");
    assert!(
        row.split('>').next().unwrap().contains("open"),
        "the failing row the link names is expanded: {row}"
    );
    assert!(dom.contains(">8 of 8 calls<"), "the script ran");
    assert_quiet_console(&log);
    // A screenshot for the docs.
    screenshot(dir.path(), &format!("{url}#{failed}"), "session", 1100);
}

/// A test of the bundled example session with two assertions that fail.
const FAILING_TEST: &str = r#"name: Checkout fixed, tests first
prompt: unused
assertions:
  - tool: Bash
    params: {command: "cargo test checkout"}
    succeeded: true
  - tool: Read
    params: {file_path: "*/.env"}
    called: false
  - tool: Edit
    called: true
"#;

#[test]
fn the_test_report_links_failing_rows_to_their_calls_in_a_real_browser() {
    let dir = tempfile::tempdir().unwrap();
    let test = dir.path().join("checkout.vouch.yaml");
    std::fs::write(&test, FAILING_TEST).unwrap();
    let path = dir.path().join("tests.html");
    let example = example();
    let out = vouch(&[
        "analyze",
        test.to_str().unwrap(),
        example.to_str().unwrap(),
        "--html",
        path.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", render(&out));
    let html = std::fs::read_to_string(&path).unwrap();
    let page = timeless(&html)
        .replace(&*example.to_string_lossy(), "<example>")
        .replace(&*test.to_string_lossy(), "<test>");
    // The summary's run time varies too.
    let page = match (
        page.find("<span>1 test</span>\n"),
        page.find("</p>\n</header>"),
    ) {
        (Some(a), Some(b)) if a < b => {
            format!("{}<span>1 test</span>\n…{}", &page[..a], &page[b..])
        }
        _ => page,
    };
    insta::assert_snapshot!("test_report_structure", page);
    assert!(
        !html.contains("http://") && !html.contains("https://"),
        "no external request"
    );
    assert_eq!(
        html.matches("<li class=\"row ").count(),
        3,
        "every assertion a row"
    );
    assert!(
        html.contains("<a href=\"#t0-r1-line-4\">(line 4)</a>"),
        "{html}"
    );
    // Following the failing row's link opens the session and the call that broke it.
    let url = format!("file://{}#t0-r1-line-4", path.display());
    let (dom, log) = browse(&url, &["--dump-dom"]);
    let session = dom
        .split("<details ")
        .find(|d| d.starts_with("class=\"session\""))
        .unwrap_or_else(|| panic!("no session in {dom}"));
    assert!(
        session.split('>').next().unwrap().contains("open"),
        "{session}"
    );
    let call = dom
        .split("<details ")
        .find(|d| d.contains("id=\"t0-r1-call-toolu_test1\""))
        .unwrap_or_else(|| panic!("no call in {dom}"));
    assert!(call.split('>').next().unwrap().contains("open"), "{call}");
    assert_quiet_console(&log);
    screenshot(
        dir.path(),
        &format!("file://{}", path.display()),
        "tests",
        1100,
    );
}

#[test]
fn the_pipeline_report_shows_lanes_handoffs_and_the_blocked_one_in_a_real_browser() {
    let dir = tempfile::tempdir().unwrap();
    let example = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/pipeline");
    for name in ["calc.sh", "test.sh"] {
        std::fs::copy(example.join("project").join(name), dir.path().join(name)).unwrap();
    }
    let report = dir.path().join("run.html");
    let out = crate::support::vouch_in(
        dir.path(),
        &[
            "run",
            example.join("run.yaml").to_str().unwrap(),
            "--task",
            "add() subtracts; make it add.",
            "--html",
            report.to_str().unwrap(),
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", render(&out));
    // `vouch report` on the folder the run ran in gives the same view, from the run's journal.
    let again = dir.path().join("again.html");
    let out = crate::support::vouch_in(
        dir.path(),
        &["report", ".", "--html", again.to_str().unwrap()],
    );
    assert_eq!(out.status.code(), Some(0), "{}", render(&out));
    let (live, replayed) = (
        std::fs::read_to_string(&report).unwrap(),
        std::fs::read_to_string(&again).unwrap(),
    );
    assert_eq!(
        live.split("<main").nth(1),
        replayed.split("<main").nth(1),
        "the same lanes"
    );
    assert!(
        replayed.contains("Ended: Reviewer wrote `APPROVED`"),
        "{replayed}"
    );
    let record = crate::support::run_record(dir.path());
    insta::assert_snapshot!(
        "pipeline_report_structure",
        timeless(&live).replace(&*record.to_string_lossy(), "<record>")
    );
    assert!(
        !live.contains("http://") && !live.contains("https://"),
        "no external request"
    );
    // The correction of turn 2 is the blocked handoff: its link opens the message.
    let url = format!("file://{}#handoff-2", report.display());
    let (dom, log) = browse(&url, &["--dump-dom"]);
    assert_eq!(
        dom.matches("<h2 class=\"lane\"").count(),
        4,
        "a lane per agent"
    );
    assert_eq!(
        dom.matches("<section class=\"card\"").count(),
        5,
        "a card per turn"
    );
    assert_eq!(
        dom.matches("class=\"handoff ok").count(),
        4,
        "three routes and the end"
    );
    let blocked = dom
        .split("<div class=\"handoff failed")
        .nth(1)
        .unwrap_or_else(|| panic!("no blocked handoff in {dom}"));
    assert!(blocked.contains("RequireWriteFile"), "{blocked}");
    assert!(
        blocked.contains("<details class=\"message\" open"),
        "the message the agent received, opened by the link: {blocked}"
    );
    assert_quiet_console(&log);
    screenshot(
        dir.path(),
        &format!("file://{}", report.display()),
        "pipeline",
        1300,
    );
}

/// A report stays proportional: 10,000 calls with 2 KB results make under 10 MB.
#[test]
fn a_ten_thousand_call_session_makes_a_report_under_ten_megabytes() {
    let log = vouch_loggen::claude_log_file(10_000).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.html");
    let out = vouch(&[
        "session",
        "show",
        "--format",
        "json",
        "--html",
        path.to_str().unwrap(),
        log.to_str().unwrap(),
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let html = std::fs::read_to_string(&path).unwrap();
    assert_eq!(html.matches("<details class=\"call ").count(), 10_000);
    assert!(html.len() < 10_000_000, "{} bytes", html.len());
}
