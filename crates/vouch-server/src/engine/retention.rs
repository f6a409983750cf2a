//! The events sweep: every minute (and once at start), deletes the events written longer ago
//! than the retention, oldest first, in batches through the index on their time, so the
//! events table stops growing without bound. A stream that resumes from an event swept away
//! goes on from the oldest one left.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::store::Store;

/// How often the sweep runs.
const EVERY: Duration = Duration::from_secs(60);

/// Events deleted per statement.
const BATCH: i64 = 10_000;

pub(super) struct Sweeper {
    pub(super) store: Arc<Store>,
    pub(super) stop: Arc<AtomicBool>,
    pub(super) retention: Duration,
}

impl Sweeper {
    /// Sweeps until the engine stops.
    pub(super) fn run(&self) {
        let mut last: Option<Instant> = None;
        while !self.stop.load(Ordering::SeqCst) {
            if last.is_none_or(|l| l.elapsed() >= EVERY) {
                self.sweep();
                last = Some(Instant::now());
            }
            std::thread::sleep(Duration::from_millis(250));
        }
    }

    fn sweep(&self) {
        let retention = i64::try_from(self.retention.as_millis()).unwrap_or(i64::MAX);
        let before = jiff::Timestamp::now()
            .as_millisecond()
            .saturating_sub(retention);
        let mut total = 0;
        while !self.stop.load(Ordering::SeqCst) {
            match self.store.sweep_events(before, BATCH) {
                Ok(n) => {
                    total += n;
                    if n < BATCH.unsigned_abs() {
                        break;
                    }
                }
                Err(e) => {
                    tracing::warn!(error = %e, "old events could not be swept");
                    break;
                }
            }
        }
        if total > 0 {
            tracing::info!(deleted = total, "events older than the retention swept");
        }
    }
}
