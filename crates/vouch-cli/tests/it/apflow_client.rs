//! `vouch serve` driven by a client we did not write: apflow 0.18.2's own CLI (`apflow tasks
//! …` with `APFLOW_BASE_URL`) and its `ApFlowApiExecutor` (`tasks.execute` with
//! `wait_for_completion`), from PyPI in a virtual environment `.ci/run` makes.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::serve::Served;

/// apflow's virtual environment: `$VOUCH_APFLOW_VENV`, else `~/.cache/vouch-apflow`, made with
/// pip when it is missing; `None` (the test says it is skipped) only when pip cannot install it.
fn venv() -> Option<PathBuf> {
    let dir = std::env::var_os("VOUCH_APFLOW_VENV").map_or_else(
        || PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".cache/vouch-apflow"),
        PathBuf::from,
    );
    if dir.join("bin/apflow").is_file() {
        return Some(dir);
    }
    let made = Command::new("python3")
        .args(["-m", "venv"])
        .arg(&dir)
        .status()
        .is_ok_and(|s| s.success())
        && Command::new(dir.join("bin/pip"))
            .args(["install", "-q", "apflow[cli]==0.18.2", "greenlet"])
            .status()
            .is_ok_and(|s| s.success());
    if made {
        Some(dir)
    } else {
        eprintln!("skipped: apflow 0.18.2 could not be installed with pip (is PyPI reachable?)");
        None
    }
}

/// Runs `apflow ARGS` against `url` in `home`; returns its standard output, asserting success.
fn apflow(venv: &Path, home: &Path, url: &str, args: &[&str]) -> String {
    let out = Command::new(venv.join("bin/apflow"))
        .args(args)
        .current_dir(home)
        .env("HOME", home)
        .env("APFLOW_BASE_URL", url)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "apflow {args:?}: {stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

const ROOT: &str = "00000000-0000-4000-8000-0000000000a1";
const CHILD: &str = "00000000-0000-4000-8000-0000000000a2";
const ALONE: &str = "00000000-0000-4000-8000-0000000000a3";

#[test]
fn apflow_s_cli_creates_reads_updates_clones_cancels_counts_and_deletes() {
    let Some(venv) = venv() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let served = Served::api(dir.path(), "tasks.db");
    let url = served.url.clone().unwrap();
    let home = dir.path();
    // A tree with apflow's executor names, and a task alone.
    let tree = serde_json::json!([
        {"id": ROOT, "name": "root", "schemas": {"method": "aggregate_results_executor"}},
        {"id": CHILD, "name": "echo", "parent_id": ROOT, "schemas": {"method": "command_executor"},
         "inputs": {"command": "echo hi"}}
    ]);
    std::fs::write(home.join("tree.json"), tree.to_string()).unwrap();
    let alone = serde_json::json!([{"id": ALONE, "name": "alone", "schemas": {"method": "command_executor"}, "inputs": {"command": "true"}}]);
    std::fs::write(home.join("alone.json"), alone.to_string()).unwrap();
    let created = apflow(&venv, home, &url, &["tasks", "create", "-f", "tree.json"]);
    assert!(created.contains(ROOT), "{created}");
    apflow(&venv, home, &url, &["tasks", "create", "-f", "alone.json"]);
    let got = apflow(&venv, home, &url, &["tasks", "get", CHILD]);
    assert!(got.contains("\"name\": \"echo\""), "{got}");
    let listed = apflow(&venv, home, &url, &["tasks", "list"]);
    assert!(listed.contains(ROOT), "{listed}");
    let updated = apflow(
        &venv,
        home,
        &url,
        &["tasks", "update", CHILD, "--name", "renamed"],
    );
    assert!(updated.contains("Successfully updated"), "{updated}");
    let got = apflow(&venv, home, &url, &["tasks", "get", CHILD]);
    assert!(got.contains("\"name\": \"renamed\""), "{got}");
    let tree = apflow(&venv, home, &url, &["tasks", "tree", ROOT]);
    assert!(tree.contains(CHILD), "{tree}");
    let cloned = apflow(&venv, home, &url, &["tasks", "clone", ROOT]);
    assert!(cloned.contains("Successfully copied"), "{cloned}");
    let status = apflow(&venv, home, &url, &["tasks", "status", CHILD]);
    assert!(status.contains("\"status\": \"pending\""), "{status}");
    let cancelled = apflow(
        &venv,
        home,
        &url,
        &["tasks", "cancel", CHILD, "-m", "not needed"],
    );
    assert!(
        cancelled.contains("\"status\": \"cancelled\""),
        "{cancelled}"
    );
    let counted = apflow(&venv, home, &url, &["tasks", "count", "-f", "json"]);
    let counts: serde_json::Value = serde_json::from_str(&counted).unwrap();
    // The tree (2), the task alone (1) and the clone (2); one of them cancelled.
    assert_eq!(counts["total"], 5, "{counts}");
    assert_eq!(counts["cancelled"], 1, "{counts}");
    // A schedule in the data model's syntax, listed by apflow's `tasks scheduled list`.
    let weekly = serde_json::json!([{"id": "00000000-0000-4000-8000-0000000000a4", "name": "weekly",
        "schemas": {"method": "aggregate_results_executor"}, "schedule_enabled": true,
        "schedule_type": "weekly", "schedule_expression": "mon,wed@09:30"}]);
    std::fs::write(home.join("weekly.json"), weekly.to_string()).unwrap();
    apflow(&venv, home, &url, &["tasks", "create", "-f", "weekly.json"]);
    let scheduled = apflow(
        &venv,
        home,
        &url,
        &["tasks", "scheduled", "list", "-f", "json"],
    );
    assert!(scheduled.contains("mon,wed@09:30"), "{scheduled}");
    apflow(
        &venv,
        home,
        &url,
        &["tasks", "delete", "00000000-0000-4000-8000-0000000000a4"],
    );
    apflow(&venv, home, &url, &["tasks", "delete", ALONE]);
    let counted = apflow(&venv, home, &url, &["tasks", "count", "-f", "json"]);
    assert!(counted.contains("\"total\": 4"), "{counted}");
}

#[test]
fn apflow_s_api_executor_waits_for_the_tree_it_executes() {
    let Some(venv) = venv() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let served = Served::start(
        dir.path(),
        &["--listen", "127.0.0.1:0", "--db", "tasks.db", "--quiet"],
    );
    let url = served.url.clone().unwrap();
    let script = r#"
import asyncio, json, sys
from apflow.extensions.apflow.api_executor import ApFlowApiExecutor
tasks = [
  {"id": "00000000-0000-4000-8000-0000000000b1", "name": "root",
   "schemas": {"method": "aggregate_results_executor"},
   "dependencies": [{"id": "00000000-0000-4000-8000-0000000000b2", "required": True}]},
  {"id": "00000000-0000-4000-8000-0000000000b2", "name": "slow echo",
   "parent_id": "00000000-0000-4000-8000-0000000000b1",
   "schemas": {"method": "command_executor"}, "inputs": {"command": "sleep 1; echo hi"}},
]
out = asyncio.run(ApFlowApiExecutor().execute({"base_url": sys.argv[1], "method": "tasks.execute",
    "params": {"tasks": tasks}, "wait_for_completion": True, "poll_interval": 0.2, "timeout": 60}))
print(json.dumps(out, default=str))
"#;
    let out = Command::new(venv.join("bin/python"))
        .args(["-c", script, &url])
        .env("HOME", dir.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let last = stdout.lines().last().unwrap_or_default();
    let answer: serde_json::Value = serde_json::from_str(last)
        .unwrap_or_else(|e| panic!("{e}: {stdout}\n{}", String::from_utf8_lossy(&out.stderr)));
    assert_eq!(answer["success"], true, "{answer:#}");
    assert_eq!(answer["status"], "completed", "{answer:#}");
    // It waited for the command: the root's result holds the child's output.
    assert!(
        answer["task"]["result"].to_string().contains("hi"),
        "{answer:#}"
    );
}
