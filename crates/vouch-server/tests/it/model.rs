//! The store's scheduling against a model: random trees of tasks with random dependencies
//! (required or optional) and random failures, run to the end through claims and results;
//! every task must end as the protocol's rules say, and no task may run before what it needs.

use std::collections::HashMap;

use proptest::prelude::*;
use serde_json::json;
use vouch_server::store::{Outcome, Store};
use vouch_tasks::{Status, Task};

use crate::common::id;

/// One task of a generated tree: its dependencies (earlier tasks: no cycles), and whether its
/// run fails.
#[derive(Debug, Clone)]
struct Spec {
    deps: Vec<(usize, bool)>,
    fails: bool,
    priority: u8,
}

fn specs() -> impl Strategy<Value = Vec<Spec>> {
    (2usize..24).prop_flat_map(|n| {
        (0..n)
            .map(|i| {
                let deps = if i == 0 {
                    Just(Vec::new()).boxed()
                } else {
                    proptest::collection::vec((0..i, any::<bool>()), 0..3.min(i) + 1).boxed()
                };
                (deps, proptest::bool::weighted(0.25), 0u8..4)
                    .prop_map(|(mut deps, fails, priority)| {
                        deps.sort_unstable();
                        deps.dedup_by_key(|d| d.0);
                        Spec {
                            deps,
                            fails,
                            priority,
                        }
                    })
                    .boxed()
            })
            .collect::<Vec<_>>()
    })
}

/// What the protocol says each task ends as.
fn expected(specs: &[Spec]) -> Vec<Status> {
    let mut out: Vec<Status> = Vec::with_capacity(specs.len());
    for s in specs {
        let blocked = s
            .deps
            .iter()
            .any(|&(d, required)| required && out[d] != Status::Completed);
        out.push(if blocked {
            Status::Cancelled
        } else if s.fails {
            Status::Failed
        } else {
            Status::Completed
        });
    }
    out
}

fn tasks(specs: &[Spec]) -> Vec<Task> {
    specs
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let n = u32::try_from(i).unwrap();
            let mut t = json!({
                "id": id(n), "name": format!("t{i}"), "status": "pending", "priority": s.priority,
                "dependencies": s.deps.iter().map(|&(d, r)| json!({"id": id(u32::try_from(d).unwrap()), "required": r})).collect::<Vec<_>>(),
            });
            if i > 0 {
                t["parent_id"] = json!(id(0));
            }
            serde_json::from_value(t).unwrap()
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn every_task_ends_as_the_rules_say(specs in specs(), batch in 1usize..4) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("t.db").to_string_lossy()).unwrap();
        store.insert(&tasks(&specs), &id(0)).unwrap();
        store.start(&id(0)).unwrap().unwrap();
        let index: HashMap<String, usize> = (0..specs.len()).map(|i| (id(u32::try_from(i).unwrap()), i)).collect();
        let mut ended: Vec<Option<Status>> = vec![None; specs.len()];
        loop {
            let claimed = store.claim("model", batch, 60_000).unwrap();
            if claimed.is_empty() {
                break;
            }
            for c in claimed {
                let i = index[&c.task.id];
                // Nothing runs before what it needs has ended (and, when required, completed).
                for &(d, required) in &specs[i].deps {
                    let dep = store.get(&id(u32::try_from(d).unwrap())).unwrap().unwrap().status;
                    prop_assert!(dep.is_terminal(), "task {i} ran before its dependency {d} ended");
                    prop_assert!(!required || dep == Status::Completed, "task {i} ran without {d}");
                }
                let outcome = if specs[i].fails { Outcome::Failed(json!("no")) } else { Outcome::Completed(json!(i)) };
                prop_assert!(store.finish(&c.task.id, c.attempt, &outcome).unwrap());
                ended[i] = Some(if specs[i].fails { Status::Failed } else { Status::Completed });
            }
        }
        let stored: Vec<Status> = (0..specs.len())
            .map(|i| store.get(&id(u32::try_from(i).unwrap())).unwrap().unwrap().status)
            .collect();
        prop_assert_eq!(&stored, &expected(&specs));
        prop_assert_eq!(store.openness(&id(0)).unwrap().open, 0, "the tree ended");
    }
}
