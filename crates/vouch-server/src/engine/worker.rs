//! A worker: claims one task at a time, runs it with its executor under its lease, and records
//! how it ended — or nothing, when the run was stopped because its lease was lost or could
//! not be confirmed, or because the process is shutting down (S1, S3, S4).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::time::Instant;

use serde_json::json;
use tracing::{debug, warn};

use super::{Config, Registry, Running, Signals, Stop, check_inputs, held, lease_ms};
use crate::engine::Job;
use crate::store::{Claimed, Outcome, Store};

pub(super) struct Worker {
    pub(super) store: Arc<Store>,
    pub(super) registry: Arc<Registry>,
    pub(super) signals: Arc<Signals>,
    pub(super) stop: Arc<AtomicBool>,
    pub(super) config: Config,
}

impl Worker {
    pub(super) fn run(&self) {
        while !self.stop.load(Ordering::SeqCst) {
            // The lease starts when the claim commits, after this moment.
            let asked = Instant::now();
            match self
                .store
                .claim(&self.config.worker, 1, lease_ms(self.config.lease))
            {
                Ok(claimed) if claimed.is_empty() => self.signals.wait(self.config.poll),
                Ok(claimed) => {
                    for c in claimed {
                        self.execute(c, asked);
                    }
                }
                Err(e) => {
                    warn!("claiming a task failed: {e}");
                    self.signals.wait(self.config.poll);
                }
            }
        }
    }

    fn execute(&self, claimed: Claimed, asked: Instant) {
        let Claimed { task, attempt } = claimed;
        let key = (task.id.clone(), attempt);
        let run = Running {
            cancel: Arc::new(AtomicBool::new(false)),
            stop: Arc::new(AtomicU8::new(Stop::No as u8)),
            confirmed_until: asked + held(self.config.lease),
        };
        self.signals.runs().insert(key.clone(), run.clone());
        let outcome = self.outcome(&task, Arc::clone(&run.cancel));
        self.signals.runs().remove(&key);
        match run.stopped() {
            Stop::LeaseLost | Stop::Shutdown => {
                // The run was stopped for the lease's sake: another attempt may hold the task,
                // or will after the lease; this one records nothing.
                debug!(
                    "task {} attempt {attempt}: stopped without its lease, nothing recorded",
                    task.id
                );
                return;
            }
            Stop::Cancelled | Stop::No => {}
        }
        match self.store.finish(&task.id, attempt, &outcome) {
            Ok(true) => {
                self.signals.executed.fetch_add(1, Ordering::Relaxed);
                // Dependents may be ready now.
                self.signals.wake();
            }
            Ok(false) => debug!(
                "task {} attempt {attempt}: lease lost, nothing recorded",
                task.id
            ),
            Err(e) => warn!("recording task {} failed: {e}", task.id),
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
        let dependencies = match self.store.dependency_results(task) {
            Ok(d) => d,
            Err(e) => {
                return Outcome::Failed(
                    json!({"message": format!("cannot read the dependencies: {e}")}),
                );
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
