//! `vouch serve` as a process: the command line as its client, and what survives `kill -9` —
//! of the SQLite server, and of a PostgreSQL worker — and four workers sharing 10,000 tasks.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use vouch_server::client::Client;
use vouch_standin::postgres::Cluster;

use crate::support::{render, vouch_in};

/// A `vouch serve` process; killed when dropped.
pub(crate) struct Served {
    child: Child,
    pub(crate) url: Option<String>,
}

impl Served {
    /// Starts `vouch serve ARGS` in `dir`; waits for its first line.
    pub(crate) fn start(dir: &Path, args: &[&str]) -> Served {
        let mut child = Command::new(assert_cmd::cargo::cargo_bin("vouch"))
            .current_dir(dir)
            .arg("serve")
            .args(args)
            .env("NO_COLOR", "1")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
        let first = lines.next().unwrap().unwrap();
        // Keep draining the request log so the server never blocks on a full pipe.
        std::thread::spawn(move || for _ in lines.by_ref() {});
        let url = first
            .split_once("listening on ")
            .map(|(_, rest)| rest.split_whitespace().next().unwrap().to_owned());
        assert!(first.starts_with("vouch serve: "), "{first}");
        Served { child, url }
    }

    /// Starts a server that only answers requests (no worker) on the store at `db`.
    pub(crate) fn api(dir: &Path, db: &str) -> Served {
        Served::start(
            dir,
            &[
                "--listen",
                "127.0.0.1:0",
                "--db",
                db,
                "--concurrency",
                "0",
                "--quiet",
            ],
        )
    }

    pub(crate) fn client(&self) -> Client {
        Client::new(self.url.as_deref().unwrap(), None)
    }

    /// Kills the process with SIGKILL, as a crash would.
    /// Sends SIGTERM; returns the exit status and how long the process took to end.
    fn terminate(&mut self) -> (std::process::ExitStatus, Duration) {
        let sent = Instant::now();
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        let status = self.child.wait().unwrap();
        (status, sent.elapsed())
    }

    /// Sends `signal` to this process and every process under it (a stalled machine's view of
    /// a worker: its task children stop with it).
    fn signal_tree(&self, signal: &str) {
        let mut todo = vec![self.child.id()];
        let mut all = Vec::new();
        while let Some(pid) = todo.pop() {
            all.push(pid.to_string());
            let children = std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children"));
            todo.extend(
                children
                    .unwrap_or_default()
                    .split_whitespace()
                    .filter_map(|c| c.parse::<u32>().ok()),
            );
        }
        let _ = Command::new("kill")
            .arg(format!("-{signal}"))
            .args(&all)
            .status();
    }

    fn kill9(&mut self) {
        let _ = Command::new("kill")
            .args(["-9", &self.child.id().to_string()])
            .status();
        let _ = self.child.wait();
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn id(n: u32) -> String {
    format!("00000000-0000-4000-8000-{n:012}")
}

fn wait_for(what: &str, limit: Duration, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + limit;
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(str::to_owned)
        .collect()
}

fn status(client: &Client, n: u32) -> String {
    client
        .call("tasks.get", &json!({"task_id": id(n)}))
        .unwrap()["status"]
        .as_str()
        .unwrap()
        .to_owned()
}

#[test]
fn the_command_line_is_a_client_of_the_server() {
    let dir = tempfile::tempdir().unwrap();
    let server = Served::start(dir.path(), &["--listen", "127.0.0.1:0", "--db", "tasks.db"]);
    let url = server.url.clone().unwrap();
    let tree = json!({"task": {"id": id(1), "name": "release", "dependencies": [id(2)]},
        "children": [{"task": {"id": id(2), "name": "build", "schemas": {"method": "command"}, "inputs": {"command": "echo built"}}}]});
    std::fs::write(dir.path().join("tree.json"), tree.to_string()).unwrap();
    let created = vouch_in(
        dir.path(),
        &[
            "tasks",
            "create",
            "tree.json",
            "--execute",
            "--server",
            &url,
        ],
    );
    insta::assert_snapshot!(render(&created), @r"
    exit: 0
    ----- stdout -----
    created 2 task(s); root 00000000-0000-4000-8000-000000000001
    queued 2
    ----- stderr -----
    ");
    let client = server.client();
    wait_for("the tree", Duration::from_secs(30), || {
        status(&client, 1) == "completed"
    });
    // The same document again: its ids are taken, unless it asks for new ones.
    let again = |extra: &[&str]| {
        let mut args = vec!["tasks", "create", "tree.json", "--server", &url];
        args.extend(extra);
        vouch_in(dir.path(), &args)
    };
    assert_eq!(again(&[]).status.code(), Some(1));
    let renewed = again(&["--new-ids", "--format", "json"]);
    assert_eq!(renewed.status.code(), Some(0), "{}", render(&renewed));
    let answer: Value = serde_json::from_slice(&renewed.stdout).unwrap();
    let root = answer["root_id"].as_str().unwrap();
    assert_ne!(root, id(1));
    let copy = client
        .call("tasks.tree", &json!({"task_id": root}))
        .unwrap();
    assert_eq!(
        copy["task"]["dependencies"][0]["id"], copy["children"][0]["task"]["id"],
        "{copy:#}"
    );
    let tree = vouch_in(dir.path(), &["tasks", "tree", &id(1), "--server", &url]);
    insta::assert_snapshot!(render(&tree), @r"
    exit: 0
    ----- stdout -----
    release [completed] 00000000-0000-4000-8000-000000000001
      build [completed] 00000000-0000-4000-8000-000000000002
    ----- stderr -----
    ");
    let list = vouch_in(
        dir.path(),
        &["tasks", "list", "--status", "completed", "--server", &url],
    );
    assert!(
        render(&list).contains("2 of 2 task(s)"),
        "{}",
        render(&list)
    );
    let get = vouch_in(
        dir.path(),
        &["tasks", "get", &id(2), "--server", &url, "--format", "json"],
    );
    let task: Value = serde_json::from_slice(&get.stdout).unwrap();
    assert_eq!(task["result"]["stdout"], "built\n");
    std::fs::write(
        dir.path().join("bad.json"),
        json!([{"id": id(8), "name": "a", "priority": 7}, {"id": id(9), "name": "b"}]).to_string(),
    )
    .unwrap();
    let refused = vouch_in(
        dir.path(),
        &["tasks", "create", "bad.json", "--server", &url],
    );
    insta::assert_snapshot!(render(&refused), @r"
    exit: 1
    ----- stdout -----
    tasks.create refused: Invalid params (-32602)
      $: Multiple root tasks found: 00000000-0000-4000-8000-000000000008, 00000000-0000-4000-8000-000000000009 (-32012)
      $.tasks[0].priority: Value out of range (-32005)
    ----- stderr -----
    ");
    let gone = vouch_in(
        dir.path(),
        &["tasks", "list", "--server", "http://127.0.0.1:9"],
    );
    assert_eq!(gone.status.code(), Some(2), "{}", render(&gone));
}

#[test]
fn a_killed_sqlite_server_loses_no_task_and_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("started");
    let done = dir.path().join("finished");
    let step = |n: u32, deps: &[u32], sleep: &str| {
        json!({"id": id(n), "name": format!("s{n}"), "parent_id": (n > 1).then(|| id(1)),
            "dependencies": deps.iter().map(|d| id(*d)).collect::<Vec<_>>(),
            "schemas": {"method": "command"},
            "inputs": {"command": format!("echo {n} >> {}; sleep {sleep}; echo {n} >> {}", log.display(), done.display())}})
    };
    let tasks = json!([step(1, &[3], "0"), step(2, &[], "0"), step(3, &[2], "3")]);
    let args = [
        "--listen",
        "127.0.0.1:0",
        "--db",
        "tasks.db",
        "--lease",
        "1",
        "--quiet",
    ];
    let mut server = Served::start(dir.path(), &args);
    server
        .client()
        .call("tasks.execute", &json!({"tasks": tasks}))
        .unwrap();
    wait_for("step 3 to start", Duration::from_secs(30), || {
        lines(&log).contains(&"3".to_owned())
    });
    server.kill9();
    let server = Served::start(dir.path(), &args);
    let client = server.client();
    wait_for(
        "the tree after the restart",
        Duration::from_secs(60),
        || status(&client, 1) == "completed",
    );
    for n in 1..=3 {
        assert_eq!(status(&client, n), "completed");
    }
    // Step 3 started twice (the crash stopped its first run) and finished once.
    assert_eq!(lines(&log), ["2", "3", "3", "1"]);
    assert_eq!(lines(&done), ["2", "3", "1"]);
}

fn cluster() -> Cluster {
    Cluster::start().unwrap_or_else(|e| panic!("a PostgreSQL cluster is needed: {e}"))
}

/// A task that logs `run` to `started`, sleeps, and logs `run` to `finished`, executed through
/// an API process and one PostgreSQL worker (a 1 s lease), once its first run has started.
struct SlowTask {
    api: Served,
    first: Served,
    started: std::path::PathBuf,
    finished: std::path::PathBuf,
}

impl SlowTask {
    fn start(pg: &Cluster, dir: &Path, sleep: &str) -> SlowTask {
        let (started, finished) = (dir.join("started"), dir.join("finished"));
        let api = Served::api(dir, pg.url());
        let first = Served::start(dir, &worker_args(pg));
        let command = format!(
            "echo run >> {}; sleep {sleep}; echo run >> {}",
            started.display(),
            finished.display()
        );
        api.client()
            .call("tasks.execute", &json!({"id": id(1), "name": "slow", "schemas": {"method": "command"}, "inputs": {"command": command}}))
            .unwrap();
        wait_for("the first run", Duration::from_secs(30), || {
            !lines(&started).is_empty()
        });
        SlowTask {
            api,
            first,
            started,
            finished,
        }
    }
}

/// A worker running one task at a time under a 1 s lease.
fn worker_args(pg: &Cluster) -> [&str; 7] {
    [
        "--worker",
        "--db",
        pg.url(),
        "--concurrency",
        "1",
        "--lease",
        "1",
    ]
}

#[test]
fn a_killed_postgres_worker_s_task_is_claimed_again_and_finishes_once() {
    let pg = cluster();
    let dir = tempfile::tempdir().unwrap();
    let mut run = SlowTask::start(&pg, dir.path(), "2");
    run.first.kill9();
    let killed = Instant::now();
    let _second = Served::start(dir.path(), &worker_args(&pg));
    let client = run.api.client();
    wait_for("the second run", Duration::from_secs(60), || {
        status(&client, 1) == "completed"
    });
    assert!(
        killed.elapsed() >= Duration::from_millis(900),
        "re-claimed before the lease ran out"
    );
    assert_eq!(
        lines(&run.started).len(),
        2,
        "claimed again after the lease"
    );
    assert_eq!(
        lines(&run.finished).len(),
        1,
        "the killed run must not finish as well"
    );
}

#[test]
fn a_worker_frozen_past_its_lease_has_its_task_s_child_killed_by_its_keeper_so_two_runs_never_overlap()
 {
    let pg = cluster();
    let dir = tempfile::tempdir().unwrap();
    let run = SlowTask::start(&pg, dir.path(), "1");
    // The worker and its task's child stop; another worker takes the task after the lease.
    run.first.signal_tree("STOP");
    let _second = Served::start(dir.path(), &worker_args(&pg));
    wait_for("the second run", Duration::from_secs(30), || {
        lines(&run.started).len() == 2
    });
    // The first worker resumes after its child's sleep should have ended: without a keeper, the
    // child would finish before its worker noticed the lease was lost.
    run.first.signal_tree("CONT");
    let client = run.api.client();
    wait_for("the second run's end", Duration::from_secs(60), || {
        status(&client, 1) == "completed"
    });
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(
        lines(&run.finished).len(),
        1,
        "the frozen worker's child must not run on after its lease"
    );
}

#[test]
fn four_postgres_workers_run_ten_thousand_tasks_exactly_once() {
    let pg = cluster();
    let dir = tempfile::tempdir().unwrap();
    let runs = dir.path().join("runs");
    let api = Served::api(dir.path(), pg.url());
    let n = 10_000u32;
    let command = format!("echo \"$VOUCH_TASK_ID\" >> {}", runs.display());
    let mut tasks = vec![json!({"id": id(0), "name": "root"})];
    tasks.extend((1..=n).map(|i| {
        json!({"id": id(i), "name": format!("t{i}"), "parent_id": id(0),
        "schemas": {"method": "command"}, "inputs": {"command": command}})
    }));
    let client = api.client();
    let started = Instant::now();
    client
        .call("tasks.execute", &json!({"tasks": tasks}))
        .unwrap();
    eprintln!("created and started in {:?}", started.elapsed());
    let _workers: Vec<Served> = (0..4)
        .map(|_| {
            Served::start(
                dir.path(),
                &["--worker", "--db", pg.url(), "--concurrency", "2"],
            )
        })
        .collect();
    let completed = || match client.call("tasks.list", &json!({"status": "completed", "limit": 1}))
    {
        Ok(answer) => answer["total"].as_u64().unwrap(),
        Err(e) => panic!("{e:?} after {:?}", started.elapsed()),
    };
    wait_for("10,000 tasks", Duration::from_secs(600), || {
        completed() == u64::from(n) + 1
    });
    let ran = lines(&runs);
    let unique: std::collections::HashSet<&String> = ran.iter().collect();
    assert_eq!(ran.len(), n as usize, "every command ran exactly once");
    assert_eq!(unique.len(), n as usize);
}

#[test]
fn sigterm_lets_running_tasks_finish_and_gives_the_rest_to_another_worker_at_once() {
    let pg = cluster();
    let dir = tempfile::tempdir().unwrap();
    let mut api = Served::api(dir.path(), pg.url());
    // A long lease: a task given back is claimed again at once, not after 30 s.
    let worker_args = [
        "--worker",
        "--db",
        pg.url(),
        "--concurrency",
        "2",
        "--lease",
        "30",
        "--shutdown-timeout",
        "2",
    ];
    let mut first = Served::start(dir.path(), &worker_args);
    let marker = dir.path().join("long-started");
    let quick = "sleep 1; echo finished";
    let long = format!(
        "if [ -f {m} ]; then echo again; else touch {m}; sleep 60; fi",
        m = marker.display()
    );
    let client = api.client();
    client
        .call(
            "tasks.execute",
            &json!({"tasks": [
                {"id": id(1), "name": "root"},
                {"id": id(2), "name": "quick", "parent_id": id(1), "schemas": {"method": "command"}, "inputs": {"command": quick}},
                {"id": id(3), "name": "long", "parent_id": id(1), "schemas": {"method": "command"}, "inputs": {"command": long}},
            ]}),
        )
        .unwrap();
    wait_for("both running", Duration::from_secs(30), || {
        status(&client, 2) == "in_progress" && marker.exists()
    });
    let _second = Served::start(dir.path(), &worker_args);
    let (exit, took) = first.terminate();
    assert!(exit.success(), "{exit:?}");
    // Within the shutdown timeout and a little: it did not wait for the 60 s command.
    assert!(took < Duration::from_secs(10), "{took:?}");
    let task = |n| {
        client
            .call("tasks.get", &json!({"task_id": id(n)}))
            .unwrap()
    };
    // The quick task finished on the first worker, recorded once.
    assert_eq!(task(2)["status"], "completed", "{}", task(2));
    assert_eq!(task(2)["result"]["stdout"], "finished\n");
    // The long one was given back and run by the second worker long before its lease ran out.
    wait_for("the long task run again", Duration::from_secs(15), || {
        status(&client, 3) == "completed"
    });
    assert_eq!(task(3)["result"]["stdout"], "again\n");
    // The API process ends cleanly too (its store's connections closed off the runtime).
    let (exit, _) = api.terminate();
    assert!(
        exit.success(),
        "the API process ended with {exit:?} on SIGTERM"
    );
}

#[test]
fn pipeline_runs_and_agent_test_suites_are_tasks_spread_over_postgres_workers() {
    let pg = cluster();
    let dir = tempfile::tempdir().unwrap();
    let api = Served::api(dir.path(), pg.url());
    let worker_args = ["--worker", "--db", pg.url(), "--concurrency", "2"];
    let _workers: Vec<Served> = (0..2)
        .map(|_| Served::start(dir.path(), &worker_args))
        .collect();
    let repo = crate::support::repo();
    let examples = repo.join("examples");
    let pipeline = examples.join("pipeline");
    let client = api.client();
    let run = |n: u32| {
        json!({"id": id(n), "name": format!("run {n}"), "parent_id": id(1),
               "schemas": {"method": "vouch.run"},
               "inputs": {"config": pipeline.join("run.yaml"), "template": pipeline.join("project"),
                          "task": "add() subtracts; make it add."}})
    };
    client
        .call(
            "tasks.execute",
            &json!({"tasks": [
                {"id": id(1), "name": "evidence", "schemas": {"method": "aggregate_results"},
                 "dependencies": [id(2), id(3), id(4)]},
                run(2),
                run(3),
                {"id": id(4), "name": "suite", "parent_id": id(1), "schemas": {"method": "vouch.test"},
                 "inputs": {"path": examples, "cwd": repo}},
            ]}),
        )
        .unwrap();
    wait_for("the runs and the suite", Duration::from_secs(240), || {
        status(&client, 1) != "pending" && status(&client, 1) != "in_progress"
    });
    let task = |n: u32| {
        client
            .call("tasks.get", &json!({"task_id": id(n)}))
            .unwrap()
    };
    assert_eq!(task(1)["status"], "completed", "{:#}", task(1));
    let mut folders = Vec::new();
    for n in [2, 3] {
        let result = &task(n)["result"];
        // Each run in a folder of its own, its summary kept as evidence.
        assert_eq!(result["report"]["ended"], "terminated", "{result:#}");
        assert!(result["report"]["turns"].as_u64().unwrap() > 0);
        let args = result["args"].as_array().unwrap();
        let at = args.iter().position(|a| a == "--workdir").unwrap();
        let folder = dir.path().join(args[at + 1].as_str().unwrap());
        assert!(
            folder.ends_with(format!(".vouch/work/{}", id(n))),
            "{folder:?}"
        );
        assert!(folder.join("calc.py").exists() || folder.read_dir().unwrap().count() > 0);
        folders.push(folder);
    }
    assert_ne!(folders[0], folders[1]);
    let suite = &task(4)["result"]["report"];
    let tests = suite.as_array().unwrap();
    assert!(!tests.is_empty());
    assert!(tests.iter().all(|t| t["passed"] == true), "{suite:#}");
}
