//! The kernel's sandbox around what agents run, through `vouch run` with a scripted model: an
//! escape corpus that must not get out (0 escapes, each refused in the agent's transcript) and
//! the honest twin of each succeeding; failing closed where the kernel cannot enforce it;
//! `vouch sandbox check`.

use std::path::Path;

use crate::support::{run_record, vouch_env};

fn enforced() -> bool {
    let out = vouch_env(Path::new("."), &["sandbox", "check"], &[]);
    let ok = out.status.code() == Some(0);
    if !ok {
        eprintln!("skipped: {}", String::from_utf8_lossy(&out.stdout));
    }
    ok
}

fn pipeline(security: &str) -> String {
    format!(
        "Models:\n  m: {{Provider: scripted, Script: script.yaml}}\nAgents:\n  - {{Name: Worker, Instructions: Work., Model: m, Plugins: [Shell]}}\nSelection: {{Type: roundrobin}}\nTermination: {{Type: composite, MaxIterations: 2, Strategies: [{{Type: regex, Pattern: DONE}}]}}\nSecurity:\n  CommandTimeoutSeconds: 20\n{security}"
    )
}

fn script(commands: &[String]) -> String {
    let calls: Vec<String> = commands
        .iter()
        .map(|c| {
            format!(
                "        - {{tool: shell_run, args: {{command: {}}}}}",
                serde_json::to_string(c).unwrap()
            )
        })
        .collect();
    format!(
        "agents:\n  Worker:\n    - calls:\n{}\n    - text: DONE\n",
        calls.join("\n")
    )
}

#[test]
fn the_escape_corpus_gets_nowhere_and_its_honest_twins_succeed() {
    if !enforced() {
        return;
    }
    let root = tempfile::tempdir().unwrap();
    let work = root.path().join("work");
    let outside = root.path().join("outside");
    let home = root.path().join("home");
    for d in [&work, &outside, &home.join(".ssh")] {
        std::fs::create_dir_all(d).unwrap();
    }
    std::fs::write(home.join(".ssh/id_rsa"), "PRIVATE KEY OF THE TEST").unwrap();
    std::fs::write(outside.join("other.txt"), "ANOTHER FOLDER'S FILE").unwrap();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let o = outside.display();
    let escapes = vec![
        "cd .. && echo x > outside/1".to_owned(),
        format!("echo x > {o}/2"),
        format!("echo x > /proc/self/root{o}/3"),
        format!("ln -s {o} link && echo x > link/4"),
        format!("python3 -c \"open('{o}/5', 'w').write('x')\""),
        format!("echo x | tee {o}/6"),
        format!("echo x > local && cp local {o}/7"),
        format!("dd if=/dev/zero of={o}/8 bs=1 count=1"),
        format!("cat {}/.ssh/id_rsa", home.display()),
        format!("cat {o}/other.txt"),
        format!("exec 3<>/dev/tcp/127.0.0.1/{port} && echo CONNECTED"),
        "(sleep 2; touch outlived) > /dev/null 2>&1 &".to_owned(),
    ];
    let honest = vec![
        "echo x > inside-1 && cp inside-1 inside-2 && echo x | tee inside-3".to_owned(),
        "python3 -c \"open('inside-4', 'w').write('x')\"".to_owned(),
    ];
    let mut all = escapes.clone();
    all.extend(honest.clone());
    std::fs::write(root.path().join("p.yaml"), pipeline("")).unwrap();
    std::fs::write(root.path().join("script.yaml"), script(&all)).unwrap();
    let out = vouch_env(
        root.path(),
        &[
            "run",
            "p.yaml",
            "--workdir",
            "work",
            "--task",
            "escape",
            "--format",
            "json",
        ],
        &[("HOME", home.as_os_str())],
    );
    let stdout = crate::support::succeeded(&out);
    std::thread::sleep(std::time::Duration::from_secs(3));
    // 0 escapes: nothing written outside, nothing read, no connection, nothing outlived.
    let written: Vec<_> = std::fs::read_dir(&outside)
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.file_name())
        .collect();
    assert_eq!(
        written,
        [std::ffi::OsString::from("other.txt")],
        "written outside"
    );
    assert!(
        !work.join("outlived").exists(),
        "a background child outlived its call"
    );
    listener.set_nonblocking(true).unwrap();
    assert!(listener.accept().is_err(), "a connection got out");
    let summary: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let session = std::fs::read_to_string(summary["session"].as_str().unwrap()).unwrap();
    assert!(
        !session.contains("PRIVATE KEY OF THE TEST")
            || session.matches("PRIVATE KEY OF THE TEST").count() == 0
    );
    assert!(!session.contains("ANOTHER FOLDER'S FILE"));
    assert!(!session.contains("CONNECTED\\n"));
    assert!(
        session.matches("Permission denied").count() >= 9,
        "each refusal is in the transcript"
    );
    // The honest twins succeeded.
    for f in ["inside-1", "inside-2", "inside-3", "inside-4"] {
        assert!(work.join(f).exists(), "{f}: {session}");
    }
}

#[test]
fn a_machine_that_cannot_confine_refuses_the_run_unless_the_pipeline_says_off() {
    let root = tempfile::tempdir().unwrap();
    std::fs::create_dir(root.path().join("work")).unwrap();
    std::fs::write(
        root.path().join("script.yaml"),
        script(&["echo hi".to_owned()]),
    )
    .unwrap();
    let no_landlock = [("VOUCH_TEST_NO_LANDLOCK", std::ffi::OsStr::new("1"))];
    std::fs::write(root.path().join("p.yaml"), pipeline("")).unwrap();
    let refused = vouch_env(
        root.path(),
        &["run", "p.yaml", "--workdir", "work", "--task", "t"],
        &no_landlock,
    );
    let err = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{err}");
    assert!(
        err.contains("the sandbox cannot be enforced on this machine") && err.contains("Landlock"),
        "{err}"
    );
    std::fs::write(root.path().join("p.yaml"), pipeline("  Sandbox: off\n")).unwrap();
    let ran = vouch_env(
        root.path(),
        &["run", "p.yaml", "--workdir", "work", "--task", "t"],
        &no_landlock,
    );
    assert_eq!(
        ran.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&ran.stderr)
    );
    let journal =
        std::fs::read_to_string(run_record(&root.path().join("work")).join("journal.jsonl"))
            .unwrap();
    assert!(
        journal.contains("\"record\":\"sandbox\",\"mode\":\"off\""),
        "{journal}"
    );
}
