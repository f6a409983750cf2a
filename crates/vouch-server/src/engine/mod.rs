//! The engine: workers that claim ready tasks from the store, run each with its executor
//! under a lease, and record how the run ended (decisions S1–S8).
//!
//! - `dispatch`: one thread talks to the store for the engine: each round, one transaction
//!   records the runs that ended and claims as many ready tasks as executors are free; at
//!   shutdown it drains, then gives back what is still running.
//! - `worker`: executor threads run the tasks handed to them and pass back how each ended —
//!   or that nothing is to be recorded, when its lease was lost or could not be confirmed (S3).
//! - `listen`: on PostgreSQL, wakes the dispatcher when another process announces ready work.
//! - `retention`: sweeps the events older than the retention (7 days by default).
//! - `lease`: the heartbeat renews every running lease in one statement, every third of the
//!   lease; the watchdog, which never touches the database, stops a run whose lease was not
//!   confirmed in time (S4), so a worker cut off from the database stops before another can
//!   claim its task.
//!
//! - `scheduler`: fires the schedules that are due, each due time once across workers.
//! - `pusher`: sends trees' events to their push notification callbacks, each target by the
//!   worker holding its lease, with bounded retries, every delivery recorded.
//!
//! No transaction stays open while a task runs (S5).

mod dispatch;
pub mod executors;
mod lease;
mod listen;
mod pusher;
mod retention;
mod scheduler;
mod worker;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::store::{Outcome, Store};
pub use executors::{CommandSandbox, Executor, HttpPolicy, Job, Registry};

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
    /// How long running tasks may take to finish when the engine shuts down; then they are
    /// stopped and given back.
    pub shutdown_timeout: Duration,
    /// How long events are kept (`None`: for ever).
    pub events_retention: Option<Duration>,
    /// The command that starts this process's keeper ([`vouch_process::Keeper`]): the
    /// process, apart from this one, that kills a task's child when its lease runs out while
    /// this process is stalled, or when this process dies. `None`: no keeper (the watchdog
    /// alone stops runs).
    pub keeper: Option<Vec<std::ffi::OsString>>,
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
            shutdown_timeout: Duration::from_secs(30),
            events_retention: Some(Duration::from_secs(7 * 24 * 3600)),
            keeper: None,
        }
    }
}

/// Why a run was stopped before it ended on its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum Stop {
    /// Not stopped.
    No = 0,
    /// Cancelled by a request (the store has recorded the cancellation).
    Cancelled = 1,
    /// The lease was lost or could not be confirmed in time: record nothing (S3, S4).
    LeaseLost = 2,
    /// The process is shutting down: record nothing; the lease runs out and the task runs
    /// again (S1).
    Shutdown = 3,
}

impl Stop {
    fn of(n: u8) -> Stop {
        match n {
            1 => Stop::Cancelled,
            2 => Stop::LeaseLost,
            3 => Stop::Shutdown,
            _ => Stop::No,
        }
    }
}

/// A run in this process: its cancel flag (which the executor watches), why it was stopped,
/// and until when its lease is confirmed by this process's clock.
#[derive(Debug, Clone)]
pub(crate) struct Running {
    cancel: Arc<AtomicBool>,
    stop: Arc<AtomicU8>,
    /// The lease is surely held until this moment: the time the last renewal that succeeded
    /// was sent, plus the lease, less a margin.
    confirmed_until: Instant,
    /// The process group of the child the run started (0: none yet, or it ended), which the
    /// keeper is told about.
    group: Arc<AtomicU32>,
    /// When the keeper was last told to kill the run's child, if it was.
    kill_at: Option<Instant>,
    /// True once a deadline the keeper held may have passed before it heard of a later one:
    /// the child may have been killed by the keeper, so the run records nothing.
    keeper_lapsed: bool,
}

impl Running {
    /// Notes that the keeper is being told `next`, sent now: when the deadline it held before
    /// is (nearly) past, the keeper may already have acted on it.
    fn keeper_told(&mut self, next: Instant) {
        if self.keeper_may_act(Instant::now()) {
            self.keeper_lapsed = true;
        }
        self.kill_at = Some(next);
    }

    /// True when the keeper may act, at `now`, on the deadline it was last told (allowing for
    /// how late an order reaches it: a pipe, a 10 ms look).
    fn keeper_may_act(&self, now: Instant) -> bool {
        const SLACK: Duration = Duration::from_millis(50);
        self.kill_at.is_some_and(|k| now + SLACK >= k)
    }
}

impl Running {
    /// Stops the run for `why` (the first reason stays).
    fn stop(&self, why: Stop) {
        let _ = self.stop.compare_exchange(
            Stop::No as u8,
            why as u8,
            Ordering::SeqCst,
            Ordering::SeqCst,
        );
        self.cancel.store(true, Ordering::SeqCst);
    }

    /// Why the run was stopped.
    fn stopped(&self) -> Stop {
        Stop::of(self.stop.load(Ordering::SeqCst))
    }
}

/// The runs of this process, by task id and attempt: a process that re-claims its own task
/// (its lease ran out) holds two attempts of it, each stoppable and renewed on its own.
type Runs = HashMap<(String, i64), Running>;

/// What the engine shares with the service: a way to wake idle workers and to stop a task
/// this process is running.
#[derive(Debug, Default)]
pub struct Signals {
    wake: (Mutex<u64>, Condvar),
    running: Mutex<Runs>,
    executed: AtomicU64,
}

impl Signals {
    /// Wakes the idle workers: there may be work.
    pub fn wake(&self) {
        let (lock, cv) = &self.wake;
        *lock.lock().unwrap_or_else(PoisonError::into_inner) += 1;
        cv.notify_all();
    }

    /// Stops every run of task `id` in this process: it was cancelled (or ended by a request).
    pub fn stop(&self, id: &str) {
        for ((task, _), r) in self.runs().iter() {
            if task == id {
                r.stop(Stop::Cancelled);
            }
        }
    }

    /// How many tasks this process is running.
    pub fn running(&self) -> usize {
        self.runs().len()
    }

    /// How many runs this process finished.
    pub fn executed(&self) -> u64 {
        self.executed.load(Ordering::Relaxed)
    }

    fn runs(&self) -> std::sync::MutexGuard<'_, Runs> {
        self.running.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The number of wakes so far: waiting "since" it misses none that come after.
    fn generation(&self) -> u64 {
        *self.wake.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Waits until a wake after generation `seen`, or `timeout`.
    fn wait_since(&self, seen: u64, timeout: Duration) {
        let (lock, cv) = &self.wake;
        let guard = lock.lock().unwrap_or_else(PoisonError::into_inner);
        let _ = cv
            .wait_timeout_while(guard, timeout, |n| *n == seen)
            .unwrap_or_else(PoisonError::into_inner);
    }
}

/// A running engine; dropping it does not stop it, [`Engine::shutdown`] does.
#[derive(Debug)]
pub struct Engine {
    /// Ends every thread.
    stop: Arc<AtomicBool>,
    /// True while new tasks are taken.
    claiming: Arc<AtomicBool>,
    signals: Arc<Signals>,
    dispatcher: Option<JoinHandle<()>>,
    threads: Vec<JoinHandle<()>>,
}

impl Engine {
    /// Starts the dispatcher and `config.concurrency` executors, a heartbeat, the scheduler,
    /// the pusher, the listener and a watchdog on `store`.
    pub fn start(
        store: Arc<Store>,
        registry: &Arc<Registry>,
        signals: Arc<Signals>,
        config: &Config,
    ) -> std::io::Result<Engine> {
        let stop = Arc::new(AtomicBool::new(false));
        let claiming = Arc::new(AtomicBool::new(true));
        let mut threads = Vec::new();
        let (jobs, queue) = std::sync::mpsc::channel();
        let queue = Arc::new(Mutex::new(queue));
        let inbox: dispatch::Inbox = Arc::default();
        let config = Config {
            concurrency: config.concurrency.max(1),
            ..config.clone()
        };
        let keeper = config.keeper.as_deref().and_then(|argv| {
            vouch_process::Keeper::spawn(argv)
                .map_err(|e| {
                    tracing::warn!("the keeper did not start ({e}); the watchdog alone stops runs whose lease runs out");
                })
                .ok()
                .map(Arc::new)
        });
        for i in 0..config.concurrency {
            let worker = worker::Worker {
                store: Arc::clone(&store),
                registry: Arc::clone(registry),
                signals: Arc::clone(&signals),
                jobs: Arc::clone(&queue),
                inbox: Arc::clone(&inbox),
                keeper: keeper.clone(),
                lease: config.lease,
            };
            threads.push(
                std::thread::Builder::new()
                    .name(format!("vouch-worker-{i}"))
                    .spawn(move || worker.run())?,
            );
        }
        let dispatcher = dispatch::Dispatcher {
            store: Arc::clone(&store),
            signals: Arc::clone(&signals),
            claiming: Arc::clone(&claiming),
            config: config.clone(),
            jobs,
            inbox,
        };
        let dispatcher = std::thread::Builder::new()
            .name("vouch-dispatcher".into())
            .spawn(move || dispatcher.run())?;
        let heartbeat = lease::Heartbeat {
            store: Arc::clone(&store),
            signals: Arc::clone(&signals),
            stop: Arc::clone(&stop),
            lease: config.lease,
            keeper,
        };
        threads.push(
            std::thread::Builder::new()
                .name("vouch-heartbeat".into())
                .spawn(move || heartbeat.run())?,
        );
        let scheduler = scheduler::Scheduler {
            store: Arc::clone(&store),
            signals: Arc::clone(&signals),
            stop: Arc::clone(&stop),
        };
        threads.push(
            std::thread::Builder::new()
                .name("vouch-scheduler".into())
                .spawn(move || scheduler.run())?,
        );
        if let Some(retention) = config.events_retention {
            let sweeper = retention::Sweeper {
                store: Arc::clone(&store),
                stop: Arc::clone(&stop),
                retention,
            };
            threads.push(
                std::thread::Builder::new()
                    .name("vouch-sweeper".into())
                    .spawn(move || sweeper.run())?,
            );
        }
        let listener = listen::Listener {
            store: Arc::clone(&store),
            signals: Arc::clone(&signals),
            stop: Arc::clone(&stop),
        };
        threads.push(
            std::thread::Builder::new()
                .name("vouch-listener".into())
                .spawn(move || listener.run())?,
        );
        let pusher = pusher::Pusher {
            store,
            policy: registry.http_policy(),
            owner: config.worker.clone(),
            stop: Arc::clone(&stop),
        };
        threads.push(
            std::thread::Builder::new()
                .name("vouch-pusher".into())
                .spawn(move || pusher.run())?,
        );
        let watchdog = lease::Watchdog {
            signals: Arc::clone(&signals),
            stop: Arc::clone(&stop),
            lease: config.lease,
        };
        threads.push(
            std::thread::Builder::new()
                .name("vouch-watchdog".into())
                .spawn(move || watchdog.run())?,
        );
        Ok(Engine {
            stop,
            claiming,
            signals,
            dispatcher: Some(dispatcher),
            threads,
        })
    }

    /// Stops taking tasks; the running ones go on, for up to the shutdown timeout, until
    /// [`Engine::shutdown`] waits for them.
    pub fn stop_claiming(&self) {
        self.claiming.store(false, Ordering::SeqCst);
        self.signals.wake();
    }

    /// Shuts down gracefully: no new task is taken, the running ones finish and are recorded
    /// within the shutdown timeout, the rest are stopped and given back to the store for
    /// another worker; then every thread ends.
    pub fn shutdown(mut self) {
        self.stop_claiming();
        if let Some(d) = self.dispatcher.take() {
            let _ = d.join();
        }
        self.stop.store(true, Ordering::SeqCst);
        self.signals.wake();
        for t in self.threads {
            let _ = t.join();
        }
    }
}

/// Returns `lease` in milliseconds.
fn lease_ms(lease: Duration) -> i64 {
    i64::try_from(lease.as_millis()).unwrap_or(i64::MAX)
}

/// How long a lease is surely held after the request that took or renewed it was sent: the
/// lease less a margin — a fifth of it, at least a second (half of a lease shorter than two) —
/// so that a run is stopped well before another worker may claim its task, even on a busy
/// machine.
fn held(lease: Duration) -> Duration {
    let margin = (lease / 5).max(Duration::from_secs(1).min(lease / 2));
    lease.saturating_sub(margin)
}

/// When the keeper kills a run's child whose lease was confirmed until `confirmed`: half-way
/// through the margin [`held`] leaves — after this process's watchdog has stopped the run
/// (so the run records nothing), before another worker may claim the task.
fn kill_at(confirmed: Instant, lease: Duration) -> Instant {
    confirmed + lease.saturating_sub(held(lease)) / 2
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

/// Returns the error value of a failed run, for tests and messages.
pub fn error_message(outcome: &Outcome) -> Option<&str> {
    match outcome {
        Outcome::Failed(Value::Object(m)) => m.get("message").and_then(Value::as_str),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run() -> Running {
        Running {
            cancel: Arc::new(AtomicBool::new(false)),
            stop: Arc::new(AtomicU8::new(0)),
            confirmed_until: Instant::now(),
            group: Arc::default(),
            kill_at: None,
            keeper_lapsed: false,
        }
    }

    #[test]
    fn two_attempts_of_one_task_are_two_runs() {
        let signals = Signals::default();
        let (first, second) = (run(), run());
        signals.runs().insert(("t".into(), 1), first.clone());
        signals.runs().insert(("t".into(), 2), second.clone());
        // The first attempt ends and leaves; the second is still known, renewed and stoppable.
        signals.runs().remove(&("t".to_owned(), 1));
        assert_eq!(signals.running(), 1);
        signals.stop("t");
        assert!(second.cancel.load(Ordering::SeqCst));
        assert_eq!(second.stopped(), Stop::Cancelled);
        assert!(!first.cancel.load(Ordering::SeqCst));
    }

    #[test]
    fn a_lease_is_given_up_with_a_margin() {
        assert_eq!(held(Duration::from_secs(10)), Duration::from_secs(8));
        assert_eq!(held(Duration::from_secs(2)), Duration::from_secs(1));
        assert_eq!(held(Duration::from_millis(600)), Duration::from_millis(300));
    }

    #[test]
    fn the_first_reason_to_stop_stays() {
        let r = run();
        r.stop(Stop::LeaseLost);
        r.stop(Stop::Cancelled);
        assert_eq!(r.stopped(), Stop::LeaseLost);
    }
}
