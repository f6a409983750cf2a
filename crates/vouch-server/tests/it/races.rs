//! The service's invariants under races (SQLite): no task runs early, late, twice or never.
//! Each test reproduces a way they were broken: dependencies changed while a task waits,
//! renewals that hang or fail, a brief outage, an escaped grandchild, a shutdown with streams
//! open, updates racing the engine, and requests that should cost little.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::json;
use vouch_server::engine::{Config, Engine, Registry, Signals};
use vouch_server::store::{Store, Updated};

use crate::common::{Server, cmd, find, id};

/// A command that waits until the file `gate` exists in its folder, then says `said`.
fn gated(gate: &str, said: &str) -> String {
    format!("while [ ! -e {gate} ]; do sleep 0.02; done; echo {said}")
}

/// Opens the gate `name` in the server's folder.
fn open_gate(s: &Server, name: &str) {
    std::fs::write(s.dir.path().join(name), "").unwrap();
}

#[test]
fn a_dependency_added_while_a_task_waits_holds_it_back() {
    let s = Server::start();
    let cwd = json!({"cwd": s.dir.path()});
    let with_cwd = |mut t: serde_json::Value| {
        t["inputs"]["cwd"] = cwd["cwd"].clone();
        t
    };
    s.ok(
        "tasks.execute",
        &json!({"tasks": [
            with_cwd(cmd(1, None, "true", &json!({}))),
            with_cwd(cmd(2, Some(1), &gated("a", "A"), &json!({}))),
            with_cwd(cmd(3, Some(1), &gated("c", "C"), &json!({}))),
            with_cwd(cmd(4, Some(1), "echo B", &json!({"dependencies": [id(2)]}))),
        ]}),
    );
    s.wait_for(&id(2), "in_progress");
    s.wait_for(&id(3), "in_progress");
    // While A runs, B's dependencies grow to [A, C].
    s.ok(
        "tasks.update",
        &json!({"task_id": id(4), "dependencies": [id(2), id(3)]}),
    );
    open_gate(&s, "a");
    s.wait_for(&id(2), "completed");
    // C still runs: B must not have started.
    std::thread::sleep(Duration::from_millis(300));
    let b = s.ok("tasks.get", &json!({"task_id": id(4)}));
    assert_eq!(b["status"], "pending", "B ran before C ended: {b:#}");
    open_gate(&s, "c");
    let tasks = s.wait(&id(1));
    assert_eq!(find(&tasks, 4)["status"], "completed");
    assert_eq!(find(&tasks, 4)["result"]["stdout"], "B\n");
}

#[test]
fn a_dependency_removed_while_a_task_waits_lets_it_run_and_the_stream_ends() {
    let s = Server::start();
    let mut a = cmd(2, Some(1), &gated("a", "A"), &json!({}));
    a["inputs"]["cwd"] = json!(s.dir.path());
    s.ok(
        "tasks.execute",
        &json!({"tasks": [
            cmd(1, None, "true", &json!({})),
            a,
            cmd(3, Some(1), "echo B", &json!({"dependencies": [id(2)]})),
        ]}),
    );
    s.wait_for(&id(2), "in_progress");
    s.ok(
        "tasks.update",
        &json!({"task_id": id(3), "dependencies": []}),
    );
    // B no longer waits for A: it runs while A still does.
    s.wait_for(&id(3), "completed");
    open_gate(&s, "a");
    s.wait(&id(1));
    // The tree's stream ends: nothing is left pending.
    let (status, events) = s.get(&format!("/events/{}", id(1)), &[]);
    assert_eq!(status, 200);
    assert!(events.contains("event: task_completed"), "{events}");
}

/// An engine on its own store of the SQLite file `db`, with `lease`.
fn engine(db: &Path, lease: Duration, name: &str) -> (Arc<Store>, Engine) {
    let store = Arc::new(Store::open(&db.to_string_lossy()).unwrap());
    let mut config = Config::default();
    config.concurrency = 1;
    config.lease = lease;
    config.poll = Duration::from_millis(50);
    config.worker = name.into();
    let engine = Engine::start(
        Arc::clone(&store),
        &Arc::new(Registry::default()),
        Arc::new(Signals::default()),
        &config,
    )
    .unwrap();
    (store, engine)
}

/// A task whose command runs under an exclusive lock for `seconds`: a second copy running at
/// the same time writes OVERLAP to the log; each copy writes `start` and `end`.
fn locked_task(dir: &Path, seconds: f64) -> vouch_tasks::Task {
    let script = format!(
        "flock -n run.lock sh -c 'echo start >> log; sleep {seconds}; echo end >> log' || {{ echo OVERLAP >> log; exit 1; }}"
    );
    serde_json::from_value(json!({
        "id": id(1), "name": "long", "status": "pending",
        "schemas": {"method": "command"},
        "inputs": {"command": script, "cwd": dir},
    }))
    .unwrap()
}

/// Waits until task 1 of `store` has ended; returns it.
fn ended(store: &Store) -> vouch_tasks::Task {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let t = store.get(&id(1)).unwrap().unwrap();
        if t.status.is_terminal() {
            return t;
        }
        assert!(Instant::now() < deadline, "the task never ended: {t:?}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_renewal_that_hangs_stops_the_run_before_another_worker_claims_it() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("tasks.db");
    let lease = Duration::from_secs(1);
    let (a_store, a) = engine(&db, lease, "a");
    a_store
        .insert(&[locked_task(dir.path(), 2.5)], &id(1))
        .unwrap();
    // Renewals hang for longer than the lease from the moment the run starts.
    a_store
        .faults()
        .hang_renewals_until(Instant::now() + Duration::from_secs(6));
    a_store.start(&id(1)).unwrap().unwrap();
    let log = dir.path().join("log");
    while !log.exists() {
        std::thread::sleep(Duration::from_millis(10));
    }
    // Another worker, whose database answers, takes the task once the lease ran out.
    let (b_store, b) = engine(&db, lease, "b");
    let done = ended(&b_store);
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(!text.contains("OVERLAP"), "two copies ran at once:\n{text}");
    assert_eq!(done.status, vouch_tasks::Status::Completed, "{done:?}");
    // Each copy whose lease could not be confirmed was stopped before its lease ran out (the
    // worker that cannot renew keeps claiming the task each time the lease expires, and keeps
    // stopping it); one copy ran to its end.
    assert!(text.matches("start").count() >= 2, "{text}");
    assert_eq!(text.matches("end").count(), 1, "{text}");
    b.shutdown();
    a.shutdown();
}

#[test]
fn a_brief_outage_records_nothing_and_the_task_runs_again() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("tasks.db");
    let (store, engine) = engine(&db, Duration::from_secs(1), "a");
    store
        .insert(&[locked_task(dir.path(), 1.5)], &id(1))
        .unwrap();
    store
        .faults()
        .fail_renewals_until(Instant::now() + Duration::from_millis(1500));
    store.start(&id(1)).unwrap().unwrap();
    let done = ended(&store);
    assert_eq!(done.status, vouch_tasks::Status::Completed, "{done:?}");
    let events = store.events(&id(1), 0, 100).unwrap();
    let kinds: Vec<&str> = events.iter().map(|e| e.kind.as_str()).collect();
    assert!(
        !kinds.contains(&"task_failed"),
        "the stopped run recorded a failure: {kinds:?}"
    );
    assert!(
        kinds.iter().filter(|k| **k == "task_status_update").count() >= 2,
        "claimed again after the outage: {kinds:?}"
    );
    engine.shutdown();
}

#[test]
fn an_escaped_grandchild_holds_no_worker_and_a_cancel_frees_it() {
    let s = Server::start();
    let started = Instant::now();
    // The grandchild leaves the group (and the shell waits until it has) holding the output.
    let escape = "setsid sh -c 'touch escaped; exec sleep 20' & while [ ! -e escaped ]; do sleep 0.01; done; echo started";
    let mut task = cmd(1, None, escape, &json!({}));
    task["inputs"]["cwd"] = json!(s.dir.path());
    s.ok("tasks.execute", &json!({"tasks": [task]}));
    let tasks = s.wait(&id(1));
    assert!(started.elapsed() < Duration::from_secs(10));
    let t = find(&tasks, 1);
    assert_eq!(t["status"], "completed", "{t:#}");
    assert_eq!(t["result"]["stdout"], "started\n");
    assert!(
        t["result"]["escaped"][0]
            .as_str()
            .is_some_and(|e| e.starts_with("sleep (pid")),
        "{t:#}"
    );
    s.ok(
        "tasks.execute",
        &json!({"tasks": [cmd(2, None, "sleep 30", &json!({}))]}),
    );
    s.wait_for(&id(2), "in_progress");
    s.ok("tasks.cancel", &json!({"task_id": id(2)}));
    let deadline = Instant::now() + Duration::from_secs(10);
    while s.ok("system.health", &json!({}))["workers"]["running"] != 0 {
        assert!(
            Instant::now() < deadline,
            "the cancelled command still runs"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn shutting_down_ends_open_streams() {
    let s = Server::start_with(|o| o.stream_idle = Duration::from_millis(500));
    // A tree nobody started: its stream ends once the tree has been still a while.
    s.ok(
        "tasks.create",
        &json!({"tasks": [cmd(1, None, "true", &json!({}))]}),
    );
    let started = Instant::now();
    let (status, _) = s.get(&format!("/events/{}", id(1)), &[]);
    assert_eq!(status, 200);
    assert!(started.elapsed() < Duration::from_secs(10));
    // A tree that runs a long command, followed by a client that never hangs up.
    s.ok(
        "tasks.execute",
        &json!({"tasks": [cmd(2, None, "sleep 60", &json!({}))]}),
    );
    s.wait_for(&id(2), "in_progress");
    let url = format!("{}/events/{}", s.url, id(2));
    let reader = std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async {
            let mut response = reqwest::get(url).await.unwrap();
            while let Ok(Some(_)) = response.chunk().await {}
        });
    });
    std::thread::sleep(Duration::from_millis(300));
    let stopping = Instant::now();
    drop(s);
    assert!(
        stopping.elapsed() < Duration::from_secs(10),
        "the server waited for the stream: {:?}",
        stopping.elapsed()
    );
    reader.join().unwrap();
}

#[test]
fn a_progress_update_is_an_event_and_an_update_keeps_what_the_engine_wrote() {
    let s = Server::start_with(|o| o.concurrency = 0);
    s.ok(
        "tasks.create",
        &json!({"tasks": [cmd(1, None, "true", &json!({}))]}),
    );
    s.ok(
        "tasks.update",
        &json!({"task_id": id(1), "status": "in_progress"}),
    );
    s.ok("tasks.update", &json!({"task_id": id(1), "progress": 0.5}));
    s.ok(
        "tasks.update",
        &json!({"task_id": id(1), "status": "completed", "result": {"ok": true}}),
    );
    let (_, events) = s.get(&format!("/events/{}", id(1)), &[]);
    assert!(
        events.contains("event: task_progress_update") && events.contains("\"progress\":0.5"),
        "{events}"
    );
    // At the store: an update made from a stale read changes only its own fields.
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("t.db").to_string_lossy()).unwrap();
    let task: vouch_tasks::Task =
        serde_json::from_value(json!({"id": id(5), "name": "t", "status": "pending"})).unwrap();
    store.insert(std::slice::from_ref(&task), &id(5)).unwrap();
    store.start(&id(5)).unwrap().unwrap();
    let stale = store.get(&id(5)).unwrap().unwrap();
    let claimed = store.claim("w", 1, 60_000).unwrap();
    assert_eq!(claimed.len(), 1);
    let mut reprioritized = stale.clone();
    reprioritized.priority = 3;
    let Updated::Done(saved) = store.update(&stale, &reprioritized).unwrap() else {
        panic!("a change of priority alone does not conflict with a claim")
    };
    assert_eq!(saved.priority, 3);
    assert_eq!(
        saved.status,
        vouch_tasks::Status::InProgress,
        "the claim stays"
    );
    assert!(saved.started_at.is_some(), "the claim's start stays");
    let mut completed = stale.clone();
    completed.status = vouch_tasks::Status::Completed;
    assert_eq!(
        store.update(&stale, &completed).unwrap(),
        Updated::Conflict("status".into()),
        "a status read before the claim does not overwrite it"
    );
}

#[test]
fn a_token_is_checked_before_the_body_is_read() {
    let s = Server::start_with(|o| {
        o.token = Some("s3cret".into());
        o.max_body = 1 << 20;
    });
    // Someone without the token announces a body past the limit and sends none of it: the
    // answer, 401, comes before the server reads a byte of it.
    let addr = s.url.trim_start_matches("http://");
    let mut conn = std::net::TcpStream::connect(addr).unwrap();
    use std::io::{Read, Write};
    write!(
        conn,
        "POST / HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        2 << 20
    )
    .unwrap();
    conn.set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut head = [0u8; 12];
    conn.read_exact(&mut head).unwrap();
    assert_eq!(&head, b"HTTP/1.1 401");
    let (status, body) = s.post("/", "{ this is not json", &[]);
    assert_eq!(status, 401, "{body}");
    assert!(body.contains("-32001") || body.contains("Bearer"), "{body}");
    let (status, _) = s.post(
        "/",
        "{ this is not json",
        &[("authorization", "Bearer s3cret-and-more")],
    );
    assert_eq!(status, 401, "a longer token is not the token");
    let (status, body) = s.post(
        "/",
        "{ this is not json",
        &[("authorization", "Bearer s3cret")],
    );
    assert_eq!(status, 200);
    assert!(body.contains("-32700"), "{body}");
}

#[test]
fn a_deleted_task_takes_its_events_and_a_running_one_is_not_deleted() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("t.db").to_string_lossy()).unwrap();
    let task: vouch_tasks::Task =
        serde_json::from_value(json!({"id": id(1), "name": "t", "status": "pending"})).unwrap();
    store.insert(std::slice::from_ref(&task), &id(1)).unwrap();
    store.start(&id(1)).unwrap().unwrap();
    let claimed = store.claim("w", 1, 60_000).unwrap();
    assert!(
        store.delete(&id(1)).unwrap().is_err(),
        "a running task is not deleted"
    );
    assert!(
        store
            .finish(
                &id(1),
                claimed[0].attempt,
                &vouch_server::store::Outcome::Failed(json!({"message": "no"}))
            )
            .unwrap()
    );
    // Set back to pending, it may be deleted — with the events it had.
    let failed = store.get(&id(1)).unwrap().unwrap();
    let mut pending = failed.clone();
    pending.status = vouch_tasks::Status::Pending;
    assert!(matches!(
        store.update(&failed, &pending).unwrap(),
        Updated::Done(_)
    ));
    assert!(!store.events(&id(1), 0, 10).unwrap().is_empty());
    store.delete(&id(1)).unwrap().unwrap();
    assert!(store.events(&id(1), 0, 10).unwrap().is_empty());
}
