//! An executor thread: runs the tasks the dispatcher hands it, one at a time, each with its
//! executor under its lease, and passes back how the run ended — or that it ended with nothing
//! to record, when it was stopped because its lease was lost or could not be confirmed, or
//! because the process is shutting down (S1, S3, S4).

use std::sync::atomic::AtomicBool;
use std::sync::mpsc::Receiver;
use std::sync::{Arc, Mutex, PoisonError};

use serde_json::json;
use tracing::debug;

use super::dispatch::{Assigned, Ended, Inbox};
use super::{Registry, Signals, Stop, check_inputs};
use crate::engine::Job;
use crate::store::{Outcome, Store};

pub(super) struct Worker {
    pub(super) store: Arc<Store>,
    pub(super) registry: Arc<Registry>,
    pub(super) signals: Arc<Signals>,
    pub(super) jobs: Arc<Mutex<Receiver<Assigned>>>,
    pub(super) inbox: Inbox,
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
            let outcome = self.outcome(&task, Arc::clone(&run.cancel));
            self.signals.runs().remove(&(task.id.clone(), attempt));
            let outcome = match run.stopped() {
                Stop::LeaseLost | Stop::Shutdown => {
                    // Another attempt may hold the task, or will after the lease: this one
                    // records nothing.
                    debug!(
                        "task {} attempt {attempt}: stopped without its lease, nothing recorded",
                        task.id
                    );
                    None
                }
                Stop::Cancelled | Stop::No => Some(readable(outcome)),
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

    /// Runs `task` with its executor; what cannot run fails with the reason.
    fn outcome(&self, task: &vouch_tasks::Task, cancel: Arc<AtomicBool>) -> Outcome {
        let Some(schemas) = &task.schemas else {
            // A task without an executor groups others: it completes when it is ready.
            return Outcome::Completed(json!({}));
        };
        let Some(executor) = self.registry.get(&schemas.method) else {
            return Outcome::Failed(json!({
                "message": format!("no executor for method `{}`", schemas.method),
                "code": crate::rpc::code::EXECUTOR_NOT_FOUND,
            }));
        };
        if let Some(schema) = &schemas.input_schema
            && let Err(why) = check_inputs(schema, &task.inputs)
        {
            return Outcome::Failed(json!({
                "message": format!("inputs do not match input_schema: {why}"),
                "code": crate::rpc::code::INVALID_SCHEMA,
            }));
        }
        let dependencies = if task.dependencies.is_empty() {
            Vec::new()
        } else {
            match self.store.dependency_results(task) {
                Ok(d) => d,
                Err(e) => {
                    return Outcome::Failed(
                        json!({"message": format!("cannot read the dependencies: {e}")}),
                    );
                }
            }
        };
        let job = Job {
            task,
            dependencies: &dependencies,
            cancel,
        };
        // An executor that panics fails its task instead of taking the worker down.
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| executor.run(&job))).unwrap_or_else(|_| {
            Outcome::Failed(json!({"message": format!("the `{}` executor failed unexpectedly", schemas.method)}))
        })
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
