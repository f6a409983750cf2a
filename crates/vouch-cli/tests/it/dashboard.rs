//! `vouch serve`'s live dashboard (`/ui`) in headless Chromium, driven over the DevTools
//! protocol (`scripts/cdp.py`): a tree executes while the page is open and the page shows each
//! change from the event stream without a reload; a task's details and the button that
//! executes it again; a tree of 10,000 tasks rendered.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::json;

use crate::serve::Served;
use crate::support::repo;

fn id(n: u32) -> String {
    format!("00000000-0000-4000-8000-{n:012}")
}

/// Runs `scripts/cdp.py URL STEPS…`, saving a screenshot to `shot`; returns the page's DOM.
fn cdp(url: &str, steps: &[String], shot: &Path) -> String {
    let mut cmd = Command::new("python3");
    cmd.arg(repo().join("scripts/cdp.py")).arg(url);
    for s in steps {
        cmd.arg("--step").arg(s);
    }
    let out = cmd
        .arg("--screenshot")
        .arg(shot)
        .args(["--timeout", "30"])
        .output()
        .unwrap();
    let dom = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{}\n{dom}",
        String::from_utf8_lossy(&out.stderr)
    );
    dom
}

/// Copies `shot` to `docs/reports/NAME.png` when `VOUCH_UPDATE_SCREENSHOTS` is set.
fn keep(shot: &Path, name: &str) {
    let png = std::fs::read(shot).unwrap();
    assert!(
        png.starts_with(b"\x89PNG") && png.len() > 10_000,
        "a real picture"
    );
    if std::env::var_os("VOUCH_UPDATE_SCREENSHOTS").is_some() {
        let docs: PathBuf = repo().join("docs/reports");
        std::fs::create_dir_all(&docs).unwrap();
        std::fs::copy(shot, docs.join(format!("{name}.png"))).unwrap();
    }
}

#[test]
fn the_dashboard_shows_a_tree_executing_live_and_executes_a_task_again() {
    let dir = tempfile::tempdir().unwrap();
    let served = Served::start(
        dir.path(),
        &["--listen", "127.0.0.1:0", "--db", "tasks.db", "--quiet"],
    );
    let url = served.url.clone().unwrap();
    served
        .client()
        .call(
            "tasks.create",
            &json!({"tasks": [
                {"id": id(1), "name": "release", "schemas": {"method": "aggregate_results"},
                 "dependencies": [{"id": id(2), "required": true}]},
                {"id": id(2), "name": "build", "parent_id": id(1), "schemas": {"method": "command"},
                 "inputs": {"command": "sleep 1; echo built"}},
                {"id": id(3), "name": "lint", "parent_id": id(1), "schemas": {"method": "command"},
                 "inputs": {"command": "echo 'src/main.rs: unused import' >&2; exit 3"}},
            ]}),
        )
        .unwrap();
    let rows = "document.querySelectorAll('#tree .row')";
    let execute =
        json!({"jsonrpc": "2.0", "id": 1, "method": "tasks.execute", "params": {"task_id": id(1)}});
    let shot = dir.path().join("dashboard.png");
    let dom = cdp(
        &format!("{url}/ui#root={}", id(1)),
        &[
            // The tree is shown, nothing run yet.
            format!("wait:{rows}.length === 3 && document.querySelectorAll('#tree .s-pending').length === 3"),
            // It executes while the page is open.
            format!("post:{url}/ {execute}"),
            "wait:document.querySelectorAll('#tree .s-completed, #tree .s-failed').length === 3".into(),
            // A task's details: its error; then the button that executes it again.
            format!("eval:document.querySelector('[data-id=\"{}\"]').click()", id(3)),
            "wait:document.querySelector('#detail').textContent.includes('unused import')".into(),
            "eval:document.getElementById('again').click()".into(),
            "wait:document.getElementById('changes').textContent.includes('lint: failed → pending')".into(),
            "wait:document.getElementById('changes').textContent.includes('lint: failed → pending') && document.querySelectorAll('#tree .s-failed').length === 1".into(),
        ],
        &shot,
    );
    // Every change came from the stream: the tree was loaded once.
    assert!(dom.contains("data-loads=\"1\""), "{dom}");
    for change in [
        "build: pending → in_progress",
        "build: in_progress → completed",
        "lint: in_progress → failed",
        "release: in_progress → completed",
        "lint: failed → pending",
    ] {
        assert!(dom.contains(change), "{change} not shown: {dom}");
    }
    // Executing again re-runs what failed, not what completed (D76), and the page shows only
    // what happened: the completed build did not run again.
    assert_eq!(
        dom.matches("build: pending → in_progress").count(),
        1,
        "{dom}"
    );
    assert!(!dom.contains("build: completed →"), "{dom}");
    assert!(dom.contains("the command exited with code 3"), "{dom}");
    // Nothing outside this server: the page names no other origin.
    assert!(
        !dom.contains("https://") && !dom.contains("http://"),
        "{dom}"
    );
    keep(&shot, "dashboard");
}

/// Every row of a 10,000-task tree is drawn, and the page says how long that took. The time is
/// not asserted here (a debug build on a loaded machine says little about it): the figure of
/// record is `scripts/dashboard-render.py`'s, in docs/performance.md.
#[test]
fn a_tree_of_ten_thousand_tasks_renders_whole_and_reports_its_render_time() {
    let dir = tempfile::tempdir().unwrap();
    let served = Served::api(dir.path(), "tasks.db");
    let url = served.url.clone().unwrap();
    let mut tasks =
        vec![json!({"id": id(0), "name": "root", "schemas": {"method": "aggregate_results"}})];
    tasks.extend((1..10_000).map(|n| {
        json!({"id": id(n), "name": format!("task {n}"), "parent_id": id(n / 100 * 100 * u32::from(n % 100 != 0)),
               "schemas": {"method": "aggregate_results"}})
    }));
    served
        .client()
        .call("tasks.create", &json!({"tasks": tasks}))
        .unwrap();
    let dom = cdp(
        &format!("{url}/ui#root={}", id(0)),
        &["wait:document.querySelectorAll('#tree .row').length === 10000 && document.getElementById('tree').dataset.renderMs !== undefined".into()],
        &dir.path().join("big.png"),
    );
    let ms: u64 = dom
        .split("data-render-ms=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no render time in the page"));
    eprintln!("a 10,000-task tree: fetched and rendered in {ms} ms (debug build)");
    assert!(ms > 0, "the page reported no render time");
}
