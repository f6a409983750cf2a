//! The dispatcher: one thread per engine that talks to the store for all of its executors. In
//! one transaction per round it records how the runs that ended since the last round ended and
//! claims as many ready tasks as there are free executors (one `SKIP LOCKED` query), then
//! hands them out. An idle dispatcher sleeps until an executor finishes, the service queues
//! work, another process announces work (`LISTEN`), or the poll interval passes.
//!
//! Shutting down, it stops claiming, keeps recording what ends for up to the shutdown
//! timeout, then stops what is still running and — once those runs have stopped — gives their
//! tasks back to the store (pending, lease cleared, attempt kept), so another worker claims
//! them at once instead of after their lease.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Sender;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use tracing::{debug, error, info, warn};

use super::{Config, Running, Signals, Stop, held, lease_ms};
use crate::store::{Claimed, Outcome, Round, Store};

/// A claimed task handed to an executor, with its run's flags.
pub(super) struct Assigned {
    pub(super) claimed: Claimed,
    pub(super) run: Running,
}

/// How a run ended: its outcome, or nothing when it was stopped for its lease's sake or the
/// shutdown (then nothing is recorded, S1/S3).
pub(super) struct Ended {
    pub(super) id: String,
    pub(super) attempt: i64,
    pub(super) outcome: Option<Outcome>,
}

/// The runs that ended, waiting for the next round.
pub(super) type Inbox = Arc<Mutex<Vec<Ended>>>;

/// How soon completions staged for a high fan-in dependent are counted.
const APPLY_EVERY: Duration = Duration::from_millis(20);

/// Failed rounds an end alone may take before it is given up (its task runs again after its
/// lease).
const STRIKES: u32 = 3;

/// How long stopped runs may take to return before their tasks are given back anyway — never:
/// what has not stopped by then is left to its lease.
const STOPPING: Duration = Duration::from_secs(5);

pub(super) struct Dispatcher {
    pub(super) store: Arc<Store>,
    pub(super) signals: Arc<Signals>,
    /// True while the engine takes new tasks.
    pub(super) claiming: Arc<AtomicBool>,
    pub(super) config: Config,
    pub(super) jobs: Sender<Assigned>,
    pub(super) inbox: Inbox,
}

impl Dispatcher {
    /// Dispatches until shut down and drained.
    pub(super) fn run(self) {
        let mut running = 0usize;
        // Ends recorded by no round yet (a round that failed keeps them for the next).
        let mut unrecorded: Vec<(String, i64, Outcome)> = Vec::new();
        let mut draining: Option<Instant> = None;
        // Completions staged for a high fan-in dependent, and when this process last counted them.
        let mut staged = false;
        let mut applied = Instant::now();
        // Record ends one at a time (after a failed round), and how often the first failed.
        let mut isolate = false;
        let mut strikes = 0u32;
        loop {
            if (staged && applied.elapsed() >= APPLY_EVERY) || applied.elapsed() >= self.config.poll
            {
                staged = self.apply_settles();
                applied = Instant::now();
            }
            let seen = self.signals.generation();
            let ended =
                std::mem::take(&mut *self.inbox.lock().unwrap_or_else(PoisonError::into_inner));
            running = running.saturating_sub(ended.len());
            unrecorded.extend(
                ended
                    .into_iter()
                    .filter_map(|e| Some((e.id, e.attempt, e.outcome?))),
            );
            let claiming = self.claiming.load(Ordering::SeqCst);
            if !claiming && draining.is_none() {
                draining = Some(Instant::now());
                if running > 0 {
                    info!(
                        "shutting down: {running} running tasks may finish within {:?}",
                        self.config.shutdown_timeout
                    );
                }
            }
            let free = if claiming {
                self.config.concurrency.saturating_sub(running)
            } else {
                0
            };
            if !unrecorded.is_empty() || free > 0 {
                let asked = Instant::now();
                // After a failed round, ends go one at a time, so one that cannot be recorded
                // does not hold back the others.
                let batch = if isolate {
                    unrecorded.len().min(1)
                } else {
                    unrecorded.len()
                };
                match self.store.round(
                    &self.config.worker,
                    &unrecorded[..batch],
                    free,
                    lease_ms(self.config.lease),
                ) {
                    Ok(Round {
                        recorded,
                        claimed,
                        staged: more,
                        ..
                    }) => {
                        staged |= more;
                        strikes = 0;
                        let lost = recorded.iter().filter(|r| !**r).count();
                        if lost > 0 {
                            debug!(
                                "{lost} runs ended after their lease was lost: nothing recorded"
                            );
                        }
                        self.signals
                            .executed
                            .fetch_add((recorded.len() - lost) as u64, Ordering::Relaxed);
                        unrecorded.drain(..batch);
                        isolate &= !unrecorded.is_empty();
                        let full = claimed.len() == free && free > 0;
                        for c in claimed {
                            running += 1;
                            self.hand_out(c, asked);
                        }
                        if full || isolate {
                            // There may be more ready, or more ends to record: go on at once.
                            continue;
                        }
                    }
                    Err(e) => {
                        warn!("a round with the store failed ({batch} ends to record): {e}");
                        if batch > 1 {
                            isolate = true;
                        } else if batch == 1 {
                            strikes += 1;
                            if strikes >= STRIKES {
                                let (id, attempt, _) = unrecorded.remove(0);
                                error!(
                                    "task {id} attempt {attempt}: its end cannot be recorded ({e}); it runs again after its lease"
                                );
                                strikes = 0;
                                isolate &= !unrecorded.is_empty();
                            }
                        }
                    }
                }
            }
            if let Some(since) = draining {
                if running == 0 && unrecorded.is_empty() {
                    return;
                }
                if since.elapsed() >= self.config.shutdown_timeout {
                    self.give_back(running);
                    return;
                }
            }
            let wait = if staged {
                APPLY_EVERY.min(self.config.poll)
            } else {
                self.config.poll
            };
            self.signals.wait_since(seen, wait);
        }
    }

    /// Counts staged completions into their dependents (any process's: one that died leaves
    /// them for the others); returns true when some may be left.
    fn apply_settles(&self) -> bool {
        match self.store.apply_settles() {
            Ok((ready, counted)) => {
                if ready {
                    self.signals.wake();
                }
                counted > 0
            }
            Err(e) => {
                warn!("counting staged completions failed: {e}");
                true
            }
        }
    }

    /// Registers the run of `claimed` (its lease confirmed from `asked`) and hands it to an
    /// executor.
    fn hand_out(&self, claimed: Claimed, asked: Instant) {
        let run = Running {
            cancel: Arc::new(AtomicBool::new(false)),
            stop: Arc::new(std::sync::atomic::AtomicU8::new(Stop::No as u8)),
            confirmed_until: asked + held(self.config.lease),
            group: Arc::default(),
            kill_at: None,
            keeper_lapsed: false,
        };
        self.signals
            .runs()
            .insert((claimed.task.id.clone(), claimed.attempt), run.clone());
        if self
            .jobs
            .send(Assigned {
                claimed,
                run: run.clone(),
            })
            .is_err()
        {
            // No executor is left (the engine is going down): the lease brings it back.
            run.stop(Stop::Shutdown);
        }
    }

    /// The shutdown timeout passed with `running` runs left: stops them, waits for them to
    /// return, and gives their tasks back.
    fn give_back(&self, mut running: usize) {
        let keys: Vec<(String, i64)> = {
            let runs = self.signals.runs();
            for r in runs.values() {
                r.stop(Stop::Shutdown);
            }
            runs.keys().cloned().collect()
        };
        let until = Instant::now() + STOPPING;
        while running > 0 && Instant::now() < until {
            let seen = self.signals.generation();
            let ended =
                std::mem::take(&mut *self.inbox.lock().unwrap_or_else(PoisonError::into_inner));
            running = running.saturating_sub(ended.len());
            if running > 0 {
                self.signals.wait_since(seen, Duration::from_millis(50));
            }
        }
        // Only runs that have stopped are given back: one still going keeps its lease.
        let still: Vec<(String, i64)> = self.signals.runs().keys().cloned().collect();
        let stopped: Vec<(String, i64)> = keys.into_iter().filter(|k| !still.contains(k)).collect();
        match self.store.release(&stopped) {
            Ok(released) => info!(
                "shutting down: {} tasks given back for other workers",
                released.len()
            ),
            Err(e) => warn!(
                "giving back {} tasks failed; their leases will bring them back: {e}",
                stopped.len()
            ),
        }
    }
}
