//! `vouch mcp` answering an MCP client we did not write: the official inspector's CLI mode
//! (`@modelcontextprotocol/inspector`, from npm; `.ci/run` installs it).

use std::path::PathBuf;
use std::process::Command;

use crate::support::repo;

/// The inspector's command: `mcp-inspector` on the PATH, else through `npx`; `None` (the test
/// says it is skipped) where neither is there.
fn inspector() -> Option<Vec<String>> {
    if vouch_process::find_on_process_path("mcp-inspector").is_some() {
        return Some(vec!["mcp-inspector".to_owned()]);
    }
    vouch_process::find_on_process_path("npx").map(|_| {
        ["npx", "--yes", "@modelcontextprotocol/inspector"]
            .map(str::to_owned)
            .to_vec()
    })
}

fn inspect(args: &[&str]) -> Option<serde_json::Value> {
    let Some(cmd) = inspector() else {
        eprintln!("skipped: neither `mcp-inspector` nor `npx` is installed");
        return None;
    };
    let vouch = PathBuf::from(env!("CARGO_BIN_EXE_vouch"));
    let out = Command::new(&cmd[0])
        .args(&cmd[1..])
        .arg("--cli")
        .arg(&vouch)
        .arg("mcp")
        .args(args)
        .current_dir(repo())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(serde_json::from_str(&stdout).unwrap())
}

#[test]
fn the_official_inspector_lists_vouch_s_tools() {
    let Some(listed) = inspect(&["--method", "tools/list"]) else {
        return;
    };
    let names: Vec<&str> = listed["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert_eq!(
        names,
        [
            "gate_check",
            "session_summary",
            "find_calls",
            "command_receipts",
            "analyze",
            "tasks_validate"
        ]
    );
}

#[test]
fn the_official_inspector_gets_a_gate_verdict_on_a_bundled_session() {
    let session =
        "examples/tests-before-success/sessions/9c4e1f08-6b2d-4a73-8e15-2f7a0d3c9b64.jsonl";
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("gates.yaml");
    std::fs::write(
        &config,
        "Termination:\n  Type: composite\n  MaxIterations: 5\n  Strategies:\n    - Type: regex\n      Pattern: DONE\n      Requires:\n        - CommandSucceeded: {Pattern: \"cargo test\"}\n",
    )
    .unwrap();
    let config = config.to_string_lossy().into_owned();
    let Some(answer) = inspect(&[
        "--method",
        "tools/call",
        "--tool-name",
        "gate_check",
        "--tool-arg",
        &format!("config={config}"),
        "--tool-arg",
        &format!("log={session}"),
        "--tool-arg",
        "workdir=examples/tests-before-success/project",
    ]) else {
        return;
    };
    assert_eq!(answer["isError"], false, "{answer}");
    let verdict: serde_json::Value =
        serde_json::from_str(answer["content"][0]["text"].as_str().unwrap()).unwrap();
    // The session ran `npm test`, never `cargo test`: the completion is blocked, with the
    // message an agent would get.
    assert_eq!(verdict["verdict"], "block", "{verdict}");
    assert!(
        verdict["message"].as_str().unwrap().contains("cargo test"),
        "{verdict}"
    );
}
