//! Which tasks can run: the protocol's dependency-satisfaction algorithm, the tasks that can
//! start now, an order for all that can run, and those that never can.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

use serde::Serialize;

use crate::model::{Status, Task};

/// Returns true when every dependency of `task` is satisfied, as the protocol's algorithm
/// says: a required dependency must be completed; an optional one must have ended (completed,
/// failed or cancelled); a dependency that names no task of `tasks` is not satisfied.
pub fn satisfied(task: &Task, tasks: &[Task]) -> bool {
    task.dependencies.iter().all(|dep| {
        tasks
            .iter()
            .find(|t| t.id.eq_ignore_ascii_case(&dep.id))
            .is_some_and(|t| dep_met(dep.required, t.status))
    })
}

fn dep_met(required: bool, status: Status) -> bool {
    if required {
        status == Status::Completed
    } else {
        status.is_terminal()
    }
}

/// A task in a readiness answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Entry {
    /// Its id.
    pub id: String,
    /// Its name.
    pub name: String,
    /// Its priority (0 first).
    pub priority: u8,
}

/// A pending task that can never run, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Blocked {
    /// The task.
    #[serde(flatten)]
    pub task: Entry,
    /// Why it can never run.
    pub reason: String,
}

/// What can run, now and later.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Readiness {
    /// The pending tasks whose dependencies are all satisfied now, by ascending priority
    /// (document order among equals).
    pub ready: Vec<Entry>,
    /// Every pending task that can still run, in an order that runs each after its pending
    /// dependencies and, among those free to go, by ascending priority.
    pub order: Vec<Entry>,
    /// The pending tasks that never can: a required dependency failed or was cancelled, a
    /// dependency is missing or can never run itself, or the task is in a dependency cycle.
    pub blocked: Vec<Blocked>,
}

/// Answers which of `tasks` can run.
pub fn ready_order(tasks: &[Task]) -> Readiness {
    let n = tasks.len();
    let index: HashMap<String, usize> = tasks
        .iter()
        .enumerate()
        .map(|(i, t)| (t.id.to_ascii_lowercase(), i))
        .collect();
    let entry = |i: usize| Entry {
        id: tasks[i].id.clone(),
        name: tasks[i].name.clone(),
        priority: tasks[i].priority,
    };
    let pending = |i: usize| tasks[i].status == Status::Pending;

    // Why each pending task can never run, when it cannot; propagated to dependents.
    let mut blocked: Vec<Option<String>> = vec![None; n];
    // Pending tasks that depend on each task, and how many pending dependencies each waits on.
    let mut dependents: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut waiting = vec![0usize; n];
    let mut now = vec![true; n];
    for i in (0..n).filter(|&i| pending(i)) {
        for dep in &tasks[i].dependencies {
            let Some(&t) = index.get(&dep.id.to_ascii_lowercase()) else {
                blocked[i].get_or_insert_with(|| format!("dependency {} does not exist", dep.id));
                continue;
            };
            let status = tasks[t].status;
            if dep_met(dep.required, status) {
                continue;
            }
            now[i] = false;
            match status {
                Status::Pending => {
                    dependents[t].push(i);
                    waiting[i] += 1;
                }
                Status::InProgress => {}
                Status::Failed | Status::Cancelled | Status::Completed => {
                    blocked[i].get_or_insert_with(|| {
                        format!("required dependency {} is {status}", tasks[t].id)
                    });
                }
            }
        }
    }
    // Spread blocks down to dependents.
    let mut stack: Vec<usize> = (0..n).filter(|&i| blocked[i].is_some()).collect();
    while let Some(b) = stack.pop() {
        for &d in &dependents[b] {
            if blocked[d].is_none() {
                blocked[d] = Some(format!("dependency {} can never run", tasks[b].id));
                stack.push(d);
            }
        }
    }
    // Kahn's algorithm over the pending tasks that are not blocked, lowest priority first.
    let mut heap: BinaryHeap<Reverse<(u8, usize)>> = (0..n)
        .filter(|&i| pending(i) && blocked[i].is_none() && waiting[i] == 0)
        .map(|i| Reverse((tasks[i].priority, i)))
        .collect();
    let mut order = Vec::new();
    let mut placed = vec![false; n];
    while let Some(Reverse((_, i))) = heap.pop() {
        placed[i] = true;
        order.push(entry(i));
        for &d in &dependents[i] {
            waiting[d] -= 1;
            if waiting[d] == 0 && blocked[d].is_none() {
                heap.push(Reverse((tasks[d].priority, d)));
            }
        }
    }
    for i in 0..n {
        if pending(i) && blocked[i].is_none() && !placed[i] {
            blocked[i] = Some("it is in a dependency cycle, or waits on one".to_owned());
        }
    }
    let mut ready: Vec<usize> = (0..n)
        .filter(|&i| pending(i) && now[i] && blocked[i].is_none())
        .collect();
    ready.sort_by_key(|&i| (tasks[i].priority, i));
    Readiness {
        ready: ready.into_iter().map(entry).collect(),
        order,
        blocked: (0..n)
            .filter_map(|i| {
                blocked[i].take().map(|reason| Blocked {
                    task: entry(i),
                    reason,
                })
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn task(id: &str, status: &str, priority: u8, deps: &serde_json::Value) -> Task {
        serde_json::from_value(json!({"id": id, "name": id, "status": status, "priority": priority, "dependencies": deps})).unwrap()
    }

    #[test]
    fn the_protocols_satisfaction_rules() {
        let tasks = vec![
            task("a", "completed", 2, &json!([])),
            task("f", "failed", 2, &json!([])),
            task("r", "in_progress", 2, &json!([])),
        ];
        let t = |deps| task("t", "pending", 2, &deps);
        assert!(satisfied(&t(json!(["a"])), &tasks));
        assert!(!satisfied(&t(json!(["f"])), &tasks));
        assert!(satisfied(
            &t(json!([{"id": "f", "required": false}])),
            &tasks
        ));
        assert!(!satisfied(
            &t(json!([{"id": "r", "required": false}])),
            &tasks
        ));
        assert!(!satisfied(&t(json!(["missing"])), &tasks));
    }

    #[test]
    fn ready_now_the_order_and_the_blocked() {
        let tasks = vec![
            task("done", "completed", 2, &json!([])),
            task("failed", "failed", 2, &json!([])),
            task("low", "pending", 3, &json!(["done"])),
            task("high", "pending", 0, &json!([])),
            task("after-high", "pending", 0, &json!(["high"])),
            task("needs-failed", "pending", 1, &json!(["failed"])),
            task("below-blocked", "pending", 1, &json!(["needs-failed"])),
            task(
                "optional-failed",
                "pending",
                2,
                &json!([{"id": "failed", "required": false}]),
            ),
            task("c1", "pending", 1, &json!(["c2"])),
            task("c2", "pending", 1, &json!(["c1"])),
        ];
        let r = ready_order(&tasks);
        let ids = |v: &[Entry]| v.iter().map(|e| e.id.clone()).collect::<Vec<_>>();
        assert_eq!(ids(&r.ready), ["high", "optional-failed", "low"]);
        assert_eq!(
            ids(&r.order),
            ["high", "after-high", "optional-failed", "low"]
        );
        let blocked: Vec<(String, String)> = r
            .blocked
            .iter()
            .map(|b| (b.task.id.clone(), b.reason.clone()))
            .collect();
        assert_eq!(
            blocked,
            [
                (
                    "needs-failed".to_owned(),
                    "required dependency failed is failed".to_owned()
                ),
                (
                    "below-blocked".to_owned(),
                    "dependency needs-failed can never run".to_owned()
                ),
                (
                    "c1".to_owned(),
                    "it is in a dependency cycle, or waits on one".to_owned()
                ),
                (
                    "c2".to_owned(),
                    "it is in a dependency cycle, or waits on one".to_owned()
                ),
            ]
        );
    }
}
