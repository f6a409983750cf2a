//! Several processes appending to one change log at once lose nothing.

use std::process::Command;

use vouch_evidence::{ChangeLog, NewCommand, NewTurn, append};

const PROCESSES: i64 = 8;
const TURNS: i64 = 150;
const WORKER: &str = "VOUCH_TEST_APPEND_WORKER";

/// Run as a child process by `eight_processes_append_concurrently`: appends `TURNS` turns of
/// the agent named in the environment.
#[test]
fn append_worker() {
    let (Ok(path), Ok(agent)) = (std::env::var(WORKER), std::env::var("VOUCH_TEST_AGENT")) else {
        return;
    };
    for i in 0..TURNS {
        let mut turn = NewTurn::new(agent.clone());
        turn.session_id = Some("shared".into());
        turn.files_written.push(format!("src/{agent}/{i}.rs"));
        turn.commands.push(NewCommand::new(
            format!("cargo test {agent} {i}"),
            Some(0),
            "ok",
        ));
        append(std::path::Path::new(&path), &turn).unwrap();
    }
}

#[test]
fn eight_processes_append_concurrently() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("state/changes.json");
    let exe = std::env::current_exe().unwrap();
    let children: Vec<_> = (0..PROCESSES)
        .map(|p| {
            Command::new(&exe)
                .args([
                    "--exact",
                    "concurrency::append_worker",
                    "--nocapture",
                    "--test-threads=1",
                ])
                .env(WORKER, &path)
                .env("VOUCH_TEST_AGENT", format!("agent{p}"))
                // Their own test summaries stay out of this run's output (shown on failure).
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let log = ChangeLog::read(&path).unwrap();
    assert_eq!(i64::try_from(log.entries.len()).unwrap(), PROCESSES * TURNS);
    for p in 0..PROCESSES {
        let agent = format!("agent{p}");
        let mine: Vec<_> = log.entries.iter().filter(|e| e.agent == agent).collect();
        assert_eq!(i64::try_from(mine.len()).unwrap(), TURNS, "{agent}");
        // Each process's turns are all there, in the order it wrote them.
        for (i, e) in mine.iter().enumerate() {
            assert_eq!(e.files_written, vec![format!("src/{agent}/{i}.rs")]);
        }
    }
    let mut indexes: Vec<i64> = log.entries.iter().filter_map(|e| e.turn_index).collect();
    indexes.sort_unstable();
    assert_eq!(
        indexes,
        (1..=PROCESSES * TURNS).collect::<Vec<_>>(),
        "turn numbers are unique"
    );
}
