//! The engine: workers that claim ready tasks from the store, run each with its executor
//! under a lease, and record how the run ended (decisions S1–S8).
//!
//! A worker thread claims one task at a time; a heartbeat thread renews the leases of the
//! running tasks every third of the lease and stops a task whose lease it lost, or could not
//! renew before it ran out (S3, S4). No transaction stays open while a task runs (S5).

pub mod executors;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tracing::{debug, warn};

use crate::store::{Claimed, Outcome, Store};
pub use executors::{Executor, Job, Registry};

/// How an engine runs.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Config {
    /// Tasks run at once.
    pub concurrency: usize,
    /// How long a claim holds a task without renewal.
    pub lease: Duration,
    /// How often an idle worker looks for work without being woken (S7).
    pub poll: Duration,
    /// The name the store records for this worker.
    pub worker: String,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            concurrency: std::thread::available_parallelism().map_or(2, |n| n.get().max(2)),
            lease: Duration::from_secs(10),
            poll: Duration::from_secs(1),
            worker: format!(
                "{}-{}",
                std::env::var("HOSTNAME").unwrap_or_else(|_| "local".into()),
                std::process::id()
            ),
        }
    }
}

/// What the engine shares with the service: a way to wake idle workers and to stop a task
/// this process is running.
#[derive(Debug, Default)]
pub struct Signals {
    wake: (Mutex<u64>, Condvar),
    running: Mutex<HashMap<String, Running>>,
    executed: AtomicU64,
}

#[derive(Debug, Clone)]
struct Running {
    attempt: i64,
    cancel: Arc<AtomicBool>,
    renewed: Instant,
}

impl Signals {
    /// Wakes the idle workers: there may be work.
    pub fn wake(&self) {
        let (lock, cv) = &self.wake;
        *lock.lock().unwrap_or_else(PoisonError::into_inner) += 1;
        cv.notify_all();
    }

    /// Stops the run of task `id` in this process, when there is one.
    pub fn stop(&self, id: &str) {
        if let Some(r) = self
            .running
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(id)
        {
            r.cancel.store(true, Ordering::SeqCst);
        }
    }

    /// How many tasks this process is running.
    pub fn running(&self) -> usize {
        self.running
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }

    /// How many runs this process finished.
    pub fn executed(&self) -> u64 {
        self.executed.load(Ordering::Relaxed)
    }

    fn wait(&self, timeout: Duration) {
        let (lock, cv) = &self.wake;
        let seen = lock.lock().unwrap_or_else(PoisonError::into_inner);
        let start = *seen;
        let _ = cv
            .wait_timeout_while(seen, timeout, |n| *n == start)
            .unwrap_or_else(PoisonError::into_inner);
    }
}

/// A running engine; dropping it does not stop it, [`Engine::shutdown`] does.
#[derive(Debug)]
pub struct Engine {
    stop: Arc<AtomicBool>,
    signals: Arc<Signals>,
    threads: Vec<JoinHandle<()>>,
}

impl Engine {
    /// Starts `config.concurrency` workers and a heartbeat on `store`.
    pub fn start(
        store: Arc<Store>,
        registry: &Arc<Registry>,
        signals: Arc<Signals>,
        config: &Config,
    ) -> std::io::Result<Engine> {
        let stop = Arc::new(AtomicBool::new(false));
        let mut threads = Vec::new();
        for i in 0..config.concurrency.max(1) {
            let worker = Worker {
                store: Arc::clone(&store),
                registry: Arc::clone(registry),
                signals: Arc::clone(&signals),
                stop: Arc::clone(&stop),
                config: config.clone(),
            };
            threads.push(
                std::thread::Builder::new()
                    .name(format!("vouch-worker-{i}"))
                    .spawn(move || worker.run())?,
            );
        }
        let heartbeat = Heartbeat {
            store,
            signals: Arc::clone(&signals),
            stop: Arc::clone(&stop),
            lease: config.lease,
        };
        threads.push(
            std::thread::Builder::new()
                .name("vouch-heartbeat".into())
                .spawn(move || heartbeat.run())?,
        );
        Ok(Engine {
            stop,
            signals,
            threads,
        })
    }

    /// Stops taking tasks, stops the running ones, and waits for the threads.
    pub fn shutdown(self) {
        self.stop.store(true, Ordering::SeqCst);
        for r in self
            .signals
            .running
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .values()
        {
            r.cancel.store(true, Ordering::SeqCst);
        }
        self.signals.wake();
        for t in self.threads {
            let _ = t.join();
        }
    }
}

fn lease_ms(lease: Duration) -> i64 {
    i64::try_from(lease.as_millis()).unwrap_or(i64::MAX)
}

struct Worker {
    store: Arc<Store>,
    registry: Arc<Registry>,
    signals: Arc<Signals>,
    stop: Arc<AtomicBool>,
    config: Config,
}

impl Worker {
    fn run(&self) {
        while !self.stop.load(Ordering::SeqCst) {
            match self
                .store
                .claim(&self.config.worker, 1, lease_ms(self.config.lease))
            {
                Ok(claimed) if claimed.is_empty() => self.signals.wait(self.config.poll),
                Ok(claimed) => {
                    for c in claimed {
                        self.execute(c);
                    }
                }
                Err(e) => {
                    warn!("claiming a task failed: {e}");
                    self.signals.wait(self.config.poll);
                }
            }
        }
    }

    fn execute(&self, claimed: Claimed) {
        let Claimed { task, attempt } = claimed;
        let cancel = Arc::new(AtomicBool::new(false));
        self.signals
            .running
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(
                task.id.clone(),
                Running {
                    attempt,
                    cancel: Arc::clone(&cancel),
                    renewed: Instant::now(),
                },
            );
        let outcome = self.outcome(&task, cancel);
        self.signals
            .running
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&task.id);
        if self.stop.load(Ordering::SeqCst) {
            // Shutting down: the run was stopped, not finished. The task stays claimed until
            // its lease runs out and is then run again (S1).
            return;
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

/// Checks `inputs` against a draft-07 `schema`; the first problem when they do not match.
pub(crate) fn check_inputs(
    schema: &Value,
    inputs: &serde_json::Map<String, Value>,
) -> Result<(), String> {
    let validator =
        jsonschema::draft7::new(schema).map_err(|e| format!("the schema is invalid: {e}"))?;
    let instance = Value::Object(inputs.clone());
    match validator.iter_errors(&instance).next() {
        None => Ok(()),
        Some(e) => Err(format!("{} at {}", e, e.instance_path())),
    }
}

struct Heartbeat {
    store: Arc<Store>,
    signals: Arc<Signals>,
    stop: Arc<AtomicBool>,
    lease: Duration,
}

impl Heartbeat {
    fn run(&self) {
        let every = (self.lease / 3).max(Duration::from_millis(50));
        while !self.stop.load(Ordering::SeqCst) {
            std::thread::sleep(every);
            let running: Vec<(String, Running)> = self
                .signals
                .running
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            for (id, r) in running {
                match self.store.renew(&id, r.attempt, lease_ms(self.lease)) {
                    Ok(true) => {
                        if let Some(x) = self
                            .signals
                            .running
                            .lock()
                            .unwrap_or_else(PoisonError::into_inner)
                            .get_mut(&id)
                        {
                            x.renewed = Instant::now();
                        }
                    }
                    Ok(false) => {
                        // Cancelled, or another worker holds it now: stop this copy (S3).
                        r.cancel.store(true, Ordering::SeqCst);
                    }
                    Err(e) => {
                        warn!("renewing the lease of task {id} failed: {e}");
                        // Stop before the lease runs out, so two copies never run (S4).
                        if r.renewed.elapsed() + every >= self.lease {
                            r.cancel.store(true, Ordering::SeqCst);
                        }
                    }
                }
            }
        }
    }
}

/// Returns the error value of a failed run, for tests and messages.
pub fn error_message(outcome: &Outcome) -> Option<&str> {
    match outcome {
        Outcome::Failed(Value::Object(m)) => m.get("message").and_then(Value::as_str),
        _ => None,
    }
}
