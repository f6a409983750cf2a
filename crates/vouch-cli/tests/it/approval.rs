//! `Security.Approve`: a person approves what the policy says — on a pseudo-terminal (yes, then
//! no), or unattended by `--approve` / `--deny`; with neither and no terminal, denied. Each
//! decision is journaled.

use std::path::Path;

use crate::support::{run_record, vouch_env};

const PIPELINE: &str = "Models:\n  m: {Provider: scripted, Script: script.yaml}\nAgents:\n  - {Name: Worker, Instructions: Work., Model: m, Plugins: [Shell]}\nSelection: {Type: roundrobin}\nTermination: {Type: composite, MaxIterations: 2, Strategies: [{Type: regex, Pattern: DONE}]}\nSecurity:\n  Approve: ['^rm ']\n";

const SCRIPT: &str = "agents:\n  Worker:\n    - calls:\n        - {tool: shell_run, args: {command: \"rm -f a.txt\"}}\n        - {tool: shell_run, args: {command: \"rm -f b.txt\"}}\n        - {tool: shell_run, args: {command: \"echo untouched\"}}\n    - text: DONE\n";

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("work")).unwrap();
    for f in ["a.txt", "b.txt"] {
        std::fs::write(dir.path().join("work").join(f), "x").unwrap();
    }
    std::fs::write(dir.path().join("p.yaml"), PIPELINE).unwrap();
    std::fs::write(dir.path().join("script.yaml"), SCRIPT).unwrap();
    dir
}

fn approvals(dir: &Path) -> Vec<(bool, String)> {
    let journal =
        std::fs::read_to_string(run_record(&dir.join("work")).join("journal.jsonl")).unwrap();
    journal
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v["record"] == "approval")
        .map(|v| {
            (
                v["approved"].as_bool().unwrap_or(false),
                v["by"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect()
}

#[test]
fn a_person_on_the_terminal_approves_then_denies() {
    let Some(script) = vouch_process::find_on_process_path("script") else {
        eprintln!("skipped: util-linux's `script` (a pseudo-terminal) is not installed");
        return;
    };
    let dir = project();
    let vouch = env!("CARGO_BIN_EXE_vouch");
    let state = crate::support::state_root();
    let command = format!(
        "{vouch} run p.yaml --workdir work --task t --state-dir {}",
        state.display()
    );
    let mut child = std::process::Command::new(script)
        .args(["-qec", &command, "/dev/null"])
        .current_dir(dir.path())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child.stdin.take().unwrap().write_all(b"y\nn\n").unwrap();
    let out = child.wait_with_output().unwrap();
    let shown = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{shown}");
    assert!(
        shown.contains("Worker wants to call shell_run: rm -f a.txt"),
        "{shown}"
    );
    assert!(!dir.path().join("work/a.txt").exists(), "approved: removed");
    assert!(dir.path().join("work/b.txt").exists(), "denied: kept");
    assert_eq!(
        approvals(dir.path()),
        [
            (true, "terminal".to_owned()),
            (false, "terminal".to_owned())
        ]
    );
}

#[test]
fn unattended_runs_are_decided_by_the_flags_and_fail_closed_without_them() {
    for (flags, removed, by) in [
        (vec!["--deny"], false, "--deny"),
        (vec!["--approve"], true, "--approve"),
        (vec![], false, "no terminal (pass --approve or --deny)"),
    ] {
        let dir = project();
        let mut args = vec!["run", "p.yaml", "--workdir", "work", "--task", "t"];
        args.extend(flags.iter().copied());
        // In a session of its own, vouch has no controlling terminal to ask on.
        let out = match vouch_process::find_on_process_path("setsid") {
            Some(setsid) => std::process::Command::new(setsid)
                .arg("-w")
                .arg(env!("CARGO_BIN_EXE_vouch"))
                .args(&args)
                .current_dir(dir.path())
                .env("VOUCH_STATE_DIR", crate::support::state_root())
                .env("NO_COLOR", "1")
                .output()
                .unwrap(),
            None => vouch_env(dir.path(), &args, &[]),
        };
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(
            !dir.path().join("work/a.txt").exists(),
            removed,
            "{flags:?}"
        );
        let decided = approvals(dir.path());
        assert_eq!(decided.len(), 2, "{decided:?}");
        assert!(
            decided
                .iter()
                .all(|(approved, who)| *approved == removed && who == by),
            "{decided:?}"
        );
    }
}
