//! The PostgreSQL store on a throwaway cluster: the protocol end to end, leases and fencing,
//! and claims by concurrent workers that never share a task.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use vouch_server::store::{Outcome, Store};
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
    store.start(&id(0)).unwrap();
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
    assert!(!store.renew(&id(0), 1, 10_000).unwrap());
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
    store.start(&id(0)).unwrap();
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
