//! `tasks.update` of one task's progress in a tree of 40,000 tasks, on SQLite: the update
//! checks and writes that task alone, whatever the size of its tree.
//!
//! `cargo bench -p vouch-server --bench update`

use std::sync::Arc;

use serde_json::json;
use vouch_server::engine::{Registry, Signals};
use vouch_server::rpc::{Extras, Methods};
use vouch_server::service::Service;
use vouch_server::store::Store;

fn main() {
    divan::main();
}

/// Returns the UUID of task `n`.
fn id(n: u32) -> String {
    format!("00000000-0000-4000-8000-{n:012}")
}

/// A service over a fresh store holding a tree of `n` tasks (a root and its children, ten
/// levels of fan-out 20 where they fit), task 1 in progress.
fn service(n: u32) -> (tempfile::TempDir, Service) {
    let dir = tempfile::tempdir().expect("a folder");
    let store =
        Arc::new(Store::open(&dir.path().join("tasks.db").to_string_lossy()).expect("a store"));
    let tasks: Vec<vouch_tasks::Task> = (0..n)
        .map(|i| {
            let mut t = json!({"id": id(i), "name": format!("t{i}"), "status": "pending"});
            if i > 0 {
                t["parent_id"] = json!(id((i - 1) / 20));
            }
            serde_json::from_value(t).expect("a task")
        })
        .collect();
    store.insert(&tasks, &id(0)).expect("the tree stored");
    let service = Service::new(
        store,
        Arc::new(Registry::default()),
        Arc::new(Signals::default()),
        0,
    );
    service
        .call(
            "tasks.update",
            Some(&json!({"task_id": id(1), "status": "in_progress"})),
            Extras::default(),
        )
        .expect("task 1 started");
    (dir, service)
}

#[divan::bench(args = [1_000, 40_000], sample_count = 200)]
fn progress(bencher: divan::Bencher<'_, '_>, n: u32) {
    let (_dir, service) = service(n);
    let mut step = 0u32;
    bencher.bench_local(|| {
        step = (step + 1) % 100;
        service
            .call(
                "tasks.update",
                Some(&json!({"task_id": id(1), "progress": f64::from(step) / 100.0})),
                Extras::default(),
            )
            .expect("an update")
    });
}
