//! The PostgreSQL store on a throwaway cluster: the protocol end to end, leases and fencing,
//! and claims by concurrent workers that never share a task.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use vouch_server::store::{Outcome, PushDelivery, PushTarget, Store};
use vouch_standin::postgres::Cluster;

use crate::common::{Server, cmd, find, id};

fn cluster() -> Cluster {
    Cluster::start().unwrap_or_else(|e| panic!("a PostgreSQL cluster is needed: {e}"))
}

/// Tasks `root` and `n` children, all ready, as the store takes them.
fn flat_tree(n: u32) -> Vec<vouch_tasks::Task> {
    let mut tasks = vec![
        serde_json::from_value(json!({"id": id(0), "name": "root", "status": "pending"})).unwrap(),
    ];
    for i in 1..=n {
        tasks.push(
            serde_json::from_value(json!({"id": id(i), "name": format!("t{i}"), "status": "pending", "parent_id": id(0)}))
                .unwrap(),
        );
    }
    tasks
}

#[test]
fn the_protocol_runs_on_postgres() {
    let pg = cluster();
    let url = pg.url().to_owned();
    let s = Server::start_with(|o| o.db = url);
    assert_eq!(
        s.ok("system.health", &json!({}))["storage"]["kind"],
        "postgres"
    );
    s.ok(
        "tasks.execute",
        &json!({"tasks": [
            cmd(1, None, "true", &json!({"dependencies": [id(2), {"id": id(3), "required": false}]})),
            cmd(2, Some(1), "echo two", &json!({"priority": 0})),
            cmd(3, Some(1), "exit 4", &json!({})),
            cmd(4, Some(1), "true", &json!({"dependencies": [id(3)]})),
        ]}),
    );
    let tasks = s.wait(&id(1));
    assert_eq!(find(&tasks, 1)["status"], "completed");
    assert_eq!(find(&tasks, 2)["result"]["stdout"], "two\n");
    assert_eq!(find(&tasks, 3)["status"], "failed");
    assert_eq!(find(&tasks, 4)["status"], "cancelled");
    let (_, events) = s.get(&format!("/events/{}", id(1)), &[]);
    assert!(events.contains("event: task_failed"), "{events}");
    // A second server on the same database sees the same tasks (migrations run once).
    let again = Store::open(pg.url()).unwrap();
    assert_eq!(again.tree(&id(1)).unwrap().len(), 4);
}

#[test]
fn a_lost_lease_fences_the_old_worker_out() {
    let pg = cluster();
    let store = Store::open(pg.url()).unwrap();
    store.insert(&flat_tree(1)[..1], &id(0)).unwrap();
    store.start(&id(0)).unwrap().unwrap();
    let first = store.claim("a", 1, 300).unwrap();
    assert_eq!(first.len(), 1);
    assert_eq!(first[0].attempt, 1);
    assert!(
        store.claim("b", 1, 300).unwrap().is_empty(),
        "a live lease is never shared"
    );
    std::thread::sleep(Duration::from_millis(450));
    let second = store.claim("b", 1, 10_000).unwrap();
    assert_eq!(second.len(), 1, "an expired lease is claimed again");
    assert_eq!(second[0].attempt, 2);
    assert!(
        store.renew(&[(id(0), 1)], 10_000).unwrap().is_empty(),
        "the old attempt's lease is not renewed"
    );
    assert_eq!(store.renew(&[(id(0), 2)], 10_000).unwrap(), [(id(0), 2)]);
    assert!(
        !store
            .finish(&id(0), 1, &Outcome::Completed(json!({"by": "a"})))
            .unwrap()
    );
    assert!(
        store
            .finish(&id(0), 2, &Outcome::Completed(json!({"by": "b"})))
            .unwrap()
    );
    assert_eq!(
        store.get(&id(0)).unwrap().unwrap().result,
        Some(json!({"by": "b"}))
    );
}

#[test]
fn concurrent_workers_never_claim_the_same_task() {
    let pg = cluster();
    let store = Store::open(pg.url()).unwrap();
    let n = 1500;
    store.insert(&flat_tree(n), &id(0)).unwrap();
    store.start(&id(0)).unwrap().unwrap();
    let url = Arc::new(pg.url().to_owned());
    let workers: Vec<_> = (0..4)
        .map(|w| {
            let url = Arc::clone(&url);
            std::thread::spawn(move || {
                let store = Store::open(&url).unwrap();
                let mut mine = Vec::new();
                loop {
                    let claimed = store.claim(&format!("w{w}"), 3, 60_000).unwrap();
                    if claimed.is_empty() {
                        return mine;
                    }
                    for c in claimed {
                        assert!(
                            store
                                .finish(&c.task.id, c.attempt, &Outcome::Completed(json!(w)))
                                .unwrap()
                        );
                        mine.push(c.task.id);
                    }
                }
            })
        })
        .collect();
    let mut all = Vec::new();
    for w in workers {
        all.extend(w.join().unwrap());
    }
    let unique: HashSet<&String> = all.iter().collect();
    assert_eq!(all.len(), (n + 1) as usize);
    assert_eq!(unique.len(), all.len(), "a task was claimed twice");
}

#[test]
fn a_stream_never_steps_past_an_event_still_being_written() {
    let pg = cluster();
    let store = Store::open(pg.url()).unwrap();
    store.insert(&flat_tree(0), &id(0)).unwrap();
    let insert = "INSERT INTO events (root_id, task_id, kind, data) VALUES ($1, $1, 'task_status_update', '{}')";
    // Session A writes an event and does not commit yet; session B writes one after it and
    // commits: B's event has the higher seq.
    let mut a = postgres::Client::connect(pg.url(), postgres::NoTls).unwrap();
    let mut a_tx = a.transaction().unwrap();
    a_tx.execute(insert, &[&id(0)]).unwrap();
    let mut b = postgres::Client::connect(pg.url(), postgres::NoTls).unwrap();
    b.execute(insert, &[&id(0)]).unwrap();
    assert!(
        store.events(&id(0), 0, 100).unwrap().is_empty(),
        "an event after one still in flight is not sent yet"
    );
    a_tx.commit().unwrap();
    let events = store.events(&id(0), 0, 100).unwrap();
    assert_eq!(events.len(), 2, "{events:?}");
    assert!(events[0].id < events[1].id);
}

#[test]
fn starting_a_tree_waits_for_a_task_that_is_ending_and_counts_after_it() {
    let pg = cluster();
    let store = Arc::new(Store::open(pg.url()).unwrap());
    let tasks: Vec<vouch_tasks::Task> = vec![
        serde_json::from_value(json!({"id": id(0), "name": "root", "status": "pending"})).unwrap(),
        serde_json::from_value(json!({"id": id(1), "name": "dep", "status": "pending", "parent_id": id(0)})).unwrap(),
        serde_json::from_value(json!({"id": id(2), "name": "after", "status": "pending", "parent_id": id(0), "dependencies": [id(1)]})).unwrap(),
    ];
    store.insert(&tasks, &id(0)).unwrap();
    // Another session is in the middle of ending the dependency (its row locked).
    let mut other = postgres::Client::connect(pg.url(), postgres::NoTls).unwrap();
    let mut tx = other.transaction().unwrap();
    tx.execute("SELECT id FROM tasks WHERE id = $1 FOR UPDATE", &[&id(1)])
        .unwrap();
    let starting = {
        let store = Arc::clone(&store);
        std::thread::spawn(move || store.start(&id(0)).unwrap())
    };
    std::thread::sleep(Duration::from_millis(400));
    assert!(
        !starting.is_finished(),
        "the start waits for the tree's rows"
    );
    tx.execute(
        "UPDATE tasks SET status = 'completed', completed_at = 'x' WHERE id = $1",
        &[&id(1)],
    )
    .unwrap();
    tx.commit().unwrap();
    assert!(starting.join().unwrap().is_ok());
    // The dependent counts the dependency as done: it is ready, not waiting forever.
    let ready = store.claim("w", 5, 60_000).unwrap();
    let ids: HashSet<String> = ready.into_iter().map(|c| c.task.id).collect();
    assert!(ids.contains(&id(2)), "{ids:?}");
    // A tree with a task executing is refused in the same transaction that would start it.
    assert!(store.start(&id(0)).unwrap().is_err());
    // A task that runs is not deleted.
    assert!(store.delete(&id(2)).unwrap().is_err());
}

#[test]
fn three_workers_fire_each_due_time_of_a_schedule_once() {
    let pg = cluster();
    let store = Store::open(pg.url()).unwrap();
    // A root due now, every second, three runs in all.
    let due = jiff::Timestamp::now().to_string();
    let task: vouch_tasks::Task = serde_json::from_value(json!({
        "id": id(0), "name": "scheduled", "status": "pending",
        "schemas": {"method": "aggregate_results"},
        "schedule_enabled": true, "schedule_type": "interval", "schedule_expression": "1",
        "max_runs": 3, "next_run_at": due
    }))
    .unwrap();
    store.insert(&[task], &id(0)).unwrap();
    let url = Arc::new(pg.url().to_owned());
    let schedulers: Vec<_> = (0..3)
        .map(|_| {
            let url = Arc::clone(&url);
            std::thread::spawn(move || {
                let store = Store::open(&url).unwrap();
                let mut fired = 0;
                let until = std::time::Instant::now() + std::time::Duration::from_millis(3600);
                while std::time::Instant::now() < until {
                    let now = jiff::Timestamp::now().as_millisecond();
                    for (task, at) in store.due(now, 10).unwrap() {
                        if store.fire(&task, at).unwrap().is_some() {
                            fired += 1;
                        }
                    }
                    std::thread::sleep(std::time::Duration::from_millis(5));
                }
                fired
            })
        })
        .collect();
    let fired: u64 = schedulers.into_iter().map(|s| s.join().unwrap()).sum();
    let task = store.get(&id(0)).unwrap().unwrap();
    assert_eq!(fired, 3, "{task:?}");
    assert_eq!(task.run_count, Some(3));
    assert_eq!(task.schedule_enabled, Some(false));
    assert_eq!(task.next_run_at, None);
}

#[test]
fn three_pushers_deliver_each_event_of_a_tree_once() {
    let pg = cluster();
    let store = Store::open(pg.url()).unwrap();
    store.insert(&flat_tree(30), &id(0)).unwrap();
    store
        .push_register(
            &id(0),
            &PushTarget::new("https://example.com/cb".into(), vec![], None),
        )
        .unwrap();
    let ids: Vec<String> = (0..=30).map(id).collect();
    store.cancel(&ids, "to make events").unwrap();
    let total = store.events(&id(0), 0, 1000).unwrap().len();
    assert_eq!(total, 31);
    let url = Arc::new(pg.url().to_owned());
    let pushers: Vec<_> = (0..3)
        .map(|n| {
            let url = Arc::clone(&url);
            std::thread::spawn(move || {
                let store = Store::open(&url).unwrap();
                let owner = format!("pusher-{n}");
                let mut sent = Vec::new();
                let until = std::time::Instant::now() + Duration::from_secs(3);
                while std::time::Instant::now() < until {
                    // A lease of 0 ms: every look may find the target free, so the three race
                    // for it all the time — only the cursor's compare-and-swap keeps order.
                    for (root, _, after) in store.push_claim(&owner, 0, 10).unwrap() {
                        for event in store.events(&root, after, 3).unwrap() {
                            let delivery = PushDelivery::of(&event, 1, Some(200), None);
                            if store.push_record(&owner, 0, &root, &delivery).unwrap() {
                                sent.push(event.id);
                            }
                        }
                    }
                }
                sent
            })
        })
        .collect();
    let mut all: Vec<i64> = pushers
        .into_iter()
        .flat_map(|p| p.join().unwrap())
        .collect();
    let delivered = all.len();
    all.sort_unstable();
    all.dedup();
    assert_eq!(all.len(), delivered, "an event was delivered twice");
    assert_eq!(delivered, total);
    let state = store.push_state(&id(0)).unwrap().unwrap();
    assert_eq!(state.deliveries.len(), total);
    assert_eq!(state.delivered, i64::try_from(total).unwrap());
}

#[test]
fn a_root_waiting_for_many_tasks_counts_every_completion_once_on_postgres() {
    let pg = cluster();
    let url = pg.url().to_owned();
    crate::lifecycle::fan_in_with_a_retry(&Server::start_with(|o| {
        o.db = url;
        o.concurrency = 8;
    }));
}
