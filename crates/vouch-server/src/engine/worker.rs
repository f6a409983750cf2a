//! An executor thread: runs the tasks the dispatcher hands it, one at a time, each with its
//! executor under its lease, and passes back how the run ended — or that it ended with nothing
//! to record, when it was stopped because its lease was lost or could not be confirmed, or
//! because the process is shutting down (S1, S3, S4).

use std::sync::atomic::Ordering;
use std::sync::mpsc::Receiver;
use std::sync::{Arc, Mutex, PoisonError};

use serde_json::json;
use tracing::{debug, warn};
use vouch_process::{GroupEvent, Keeper, OnGroup};

use super::dispatch::{Assigned, Ended, Inbox};
use super::{Registry, Running, Signals, Stop, check_inputs, kill_at};
use crate::engine::Job;
use crate::store::{Outcome, Store};

pub(super) struct Worker {
    pub(super) store: Arc<Store>,
    pub(super) registry: Arc<Registry>,
    pub(super) signals: Arc<Signals>,
    pub(super) jobs: Arc<Mutex<Receiver<Assigned>>>,
    pub(super) inbox: Inbox,
    pub(super) keeper: Option<Arc<Keeper>>,
    pub(super) lease: std::time::Duration,
}

impl Worker {
    /// Runs what it is handed until the dispatcher is gone.
    pub(super) fn run(&self) {
        loop {
            let next = self
                .jobs
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .recv();
            let Ok(Assigned { claimed, run }) = next else {
                return;
            };
            let (task, attempt) = (claimed.task, claimed.attempt);
            let outcome = self.outcome(&task, attempt, &run);
            let ended = self.signals.runs().remove(&(task.id.clone(), attempt));
            // A run that ends after its lease was last confirmed records nothing, as if the
            // watchdog had stopped it first; nor one whose keeper may have acted on a deadline
            // a slow renewal moved on too late, or is about to: its child may have been killed
            // by the keeper. The task runs again after its lease.
            let now = std::time::Instant::now();
            let unconfirmed = ended.is_some_and(|r| {
                now >= r.confirmed_until || r.keeper_lapsed || r.keeper_may_act(now)
            });
            let outcome = match run.stopped() {
                _ if unconfirmed => {
                    debug!(
                        "task {} attempt {attempt}: ended after its lease was last confirmed, nothing recorded",
                        task.id
                    );
                    None
                }
                Stop::LeaseLost | Stop::Shutdown => {
                    // Another attempt may hold the task, or will after the lease: this one
                    // records nothing.
                    debug!(
                        "task {} attempt {attempt}: stopped without its lease, nothing recorded",
                        task.id
                    );
                    None
                }
                Stop::Cancelled | Stop::No => outcome.map(readable),
            };
            self.inbox
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(Ended {
                    id: task.id,
                    attempt,
                    outcome,
                });
            self.signals.wake();
        }
    }

    /// Runs `task` with its executor; what cannot run fails with the reason. `None` when the
    /// store could not give what the run needs (nothing is to be recorded).
    fn outcome(&self, task: &vouch_tasks::Task, attempt: i64, run: &Running) -> Option<Outcome> {
        let Some(schemas) = &task.schemas else {
            // A task without an executor groups others: it completes when it is ready.
            return Some(Outcome::Completed(json!({})));
        };
        let Some(executor) = self.registry.get(&schemas.method) else {
            return Some(Outcome::Failed(json!({
                "message": format!("no executor for method `{}`", schemas.method),
                "code": crate::rpc::code::EXECUTOR_NOT_FOUND,
            })));
        };
        if let Some(schema) = &schemas.input_schema
            && let Err(why) = check_inputs(schema, &task.inputs)
        {
            return Some(Outcome::Failed(json!({
                "message": format!("inputs do not match input_schema: {why}"),
                "code": crate::rpc::code::INVALID_SCHEMA,
            })));
        }
        let dependencies = if task.dependencies.is_empty() {
            Vec::new()
        } else {
            match self.store.dependency_results(task) {
                Ok(d) => d,
                Err(e) => {
                    // The store's trouble, not the task's: nothing is recorded, and the task
                    // runs again after its lease.
                    tracing::warn!(
                        "task {}: its dependencies cannot be read ({e}); it runs again after its lease",
                        task.id
                    );
                    return None;
                }
            }
        };
        let job = Job {
            task,
            dependencies: &dependencies,
            cancel: Arc::clone(&run.cancel),
            on_group: self.keeper.as_ref().map(|keeper| {
                on_group(
                    keeper,
                    &self.signals,
                    (task.id.clone(), attempt),
                    run,
                    self.lease,
                )
            }),
        };
        // An executor that panics fails its task instead of taking the worker down.
        Some(std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| executor.run(&job))).unwrap_or_else(|_| {
            Outcome::Failed(json!({"message": format!("the `{}` executor failed unexpectedly", schemas.method)}))
        }))
    }
}

/// The deepest nesting a recorded result or error may have: it must read back as JSON (whose
/// readers stop at 128 levels), inside the event that carries it too.
const MAX_DEPTH: usize = 100;

/// Returns `outcome`, or — when its value nests deeper than [`MAX_DEPTH`] (a chain of
/// `aggregate_results` tasks, each holding the one before) — a failure saying so: a value that
/// could not be read back would stop every read of the task.
fn readable(outcome: Outcome) -> Outcome {
    let value = match &outcome {
        Outcome::Completed(v) | Outcome::Failed(v) => v,
    };
    let depth = depth(value);
    if depth <= MAX_DEPTH {
        return outcome;
    }
    Outcome::Failed(json!({
        "message": format!(
            "the result nests {depth} levels deep; results are kept up to {MAX_DEPTH} levels"
        ),
    }))
}

/// Returns how deeply `value` nests (a scalar is 0), without recursion.
fn depth(value: &serde_json::Value) -> usize {
    let mut deepest = 0;
    let mut stack = vec![(value, 0usize)];
    while let Some((v, d)) = stack.pop() {
        deepest = deepest.max(d);
        match v {
            serde_json::Value::Array(items) => stack.extend(items.iter().map(|i| (i, d + 1))),
            serde_json::Value::Object(map) => stack.extend(map.values().map(|i| (i, d + 1))),
            _ => {}
        }
    }
    deepest
}

/// The hook an executor's child reports its process group to: the keeper is told to kill the
/// group when the run's confirmed lease runs out (moved on by each renewal), and released
/// from it when the child ends.
fn on_group(
    keeper: &Arc<Keeper>,
    signals: &Arc<Signals>,
    key: (String, i64),
    run: &Running,
    lease: std::time::Duration,
) -> OnGroup {
    let keeper = Arc::clone(keeper);
    let signals = Arc::clone(signals);
    let group = Arc::clone(&run.group);
    let claimed_until = run.confirmed_until;
    OnGroup(Arc::new(move |event| {
        let told = match event {
            GroupEvent::Started(pid) => {
                // Under the lock of the runs, so a renewal cannot slip between the deadline
                // read and the group stored (the heartbeat tells the keeper of groups it sees).
                let mut runs = signals.runs();
                group.store(pid, Ordering::SeqCst);
                let run = runs.get_mut(&key);
                let until = run.as_ref().map_or(claimed_until, |r| r.confirmed_until);
                let next = kill_at(until, lease);
                if let Some(run) = run {
                    run.keeper_told(next);
                }
                keeper.keep(pid, next)
            }
            GroupEvent::Ending(pid) => {
                // Under the lock too: a renewal read before cannot tell the keeper of the group
                // after it was released (its number may be another process's soon).
                let _runs = signals.runs();
                group.store(0, Ordering::SeqCst);
                keeper.release(pid)
            }
        };
        if let Err(e) = told {
            warn!("the keeper was not told of a task's child: {e}");
        }
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_result_too_deep_to_read_back_becomes_a_failure() {
        let mut deep = json!(1);
        for _ in 0..150 {
            deep = json!({"results": deep});
        }
        match readable(Outcome::Completed(deep)) {
            Outcome::Failed(e) => assert!(e["message"].as_str().unwrap().contains("150 levels")),
            Outcome::Completed(_) => panic!("kept"),
        }
        let fine = json!({"a": [1, {"b": 2}]});
        assert_eq!(depth(&fine), 3);
        assert_eq!(
            readable(Outcome::Completed(fine.clone())),
            Outcome::Completed(fine)
        );
    }
}
