//! Keeping leases: the heartbeat renews every running lease of this process in one statement,
//! every third of the lease, and moves each run's confirmed deadline to the moment its renewal
//! was sent plus the lease (less a margin); a run whose lease the store no longer holds for
//! its attempt is stopped. The watchdog never touches the database: it stops every run whose
//! confirmed deadline passed — a renewal that failed, hung, or never got its turn — so a worker
//! cut off from the database stops its runs before another worker may claim them (S4).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use tracing::warn;

use super::{Signals, Stop, held, kill_at, lease_ms};
use crate::store::Store;

pub(super) struct Heartbeat {
    pub(super) store: Arc<Store>,
    pub(super) signals: Arc<Signals>,
    pub(super) stop: Arc<AtomicBool>,
    pub(super) lease: Duration,
    pub(super) keeper: Option<Arc<vouch_process::Keeper>>,
}

impl Heartbeat {
    pub(super) fn run(&self) {
        let every = (self.lease / 3).max(Duration::from_millis(50));
        let mut last = Instant::now();
        while !self.stop.load(Ordering::SeqCst) {
            // Short naps, so a shutdown is not held up by a third of a lease.
            std::thread::sleep(every.min(Duration::from_millis(100)));
            if last.elapsed() < every {
                continue;
            }
            last = Instant::now();
            let leases: Vec<(String, i64)> = self.signals.runs().keys().cloned().collect();
            if leases.is_empty() {
                continue;
            }
            let sent = Instant::now();
            match self.store.renew(&leases, lease_ms(self.lease)) {
                Ok(renewed) => {
                    let until = sent + held(self.lease);
                    for (key, run) in self.signals.runs().iter_mut() {
                        if renewed.contains(key) {
                            run.confirmed_until = run.confirmed_until.max(until);
                            let group = run.group.load(Ordering::SeqCst);
                            if let (Some(keeper), true) = (&self.keeper, group != 0) {
                                // Not told: the keeper kills the group at its old deadline,
                                // which this run's watchdog keeps too.
                                let next = kill_at(run.confirmed_until, self.lease);
                                run.keeper_told(next);
                                if let Err(e) = keeper.keep(group, next) {
                                    warn!("the keeper was not told of a renewed lease: {e}");
                                }
                            }
                        } else if leases.contains(key) {
                            // Cancelled, or another worker holds it now: stop this copy (S3).
                            run.stop(Stop::LeaseLost);
                        }
                    }
                }
                // The watchdog stops what this leaves unconfirmed.
                Err(e) => warn!("renewing {} leases failed: {e}", leases.len()),
            }
        }
    }
}

pub(super) struct Watchdog {
    pub(super) signals: Arc<Signals>,
    pub(super) stop: Arc<AtomicBool>,
    pub(super) lease: Duration,
}

impl Watchdog {
    pub(super) fn run(&self) {
        let every = (self.lease / 20).clamp(Duration::from_millis(10), Duration::from_millis(250));
        while !self.stop.load(Ordering::SeqCst) {
            std::thread::sleep(every);
            let now = Instant::now();
            for ((id, attempt), run) in self.signals.runs().iter() {
                if now >= run.confirmed_until && run.stopped() == Stop::No {
                    warn!(
                        "task {id} attempt {attempt}: its lease was not confirmed in time; stopping it"
                    );
                    run.stop(Stop::LeaseLost);
                }
            }
        }
    }
}
