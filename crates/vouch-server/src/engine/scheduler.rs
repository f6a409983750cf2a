//! The scheduler: every few hundred milliseconds, fires the schedules that are due (the store
//! makes each due time fire once, however many workers' schedulers look) and wakes the workers
//! for what it queued. A due schedule starts within [`TICK`] plus a claim.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use crate::engine::Signals;
use crate::store::Store;

/// How often the scheduler looks for due schedules.
pub(crate) const TICK: Duration = Duration::from_millis(200);

/// The most due schedules fired in one look.
const BATCH: i64 = 100;

/// The scheduler thread's state.
pub(crate) struct Scheduler {
    pub(crate) store: Arc<Store>,
    pub(crate) signals: Arc<Signals>,
    pub(crate) stop: Arc<AtomicBool>,
}

impl Scheduler {
    /// Fires due schedules until the engine stops.
    pub(crate) fn run(self) {
        while !self.stop.load(Ordering::SeqCst) {
            let now_ms = jiff::Timestamp::now().as_millisecond();
            match self.store.due(now_ms, BATCH) {
                Ok(due) => {
                    let mut fired = false;
                    for (id, due_ms) in due {
                        match self.store.fire(&id, due_ms) {
                            Ok(Some(_)) => fired = true,
                            Ok(None) => {}
                            Err(e) => {
                                tracing::warn!(task = %id, error = %e, "a due schedule could not fire");
                            }
                        }
                    }
                    if fired {
                        self.signals.wake();
                    }
                }
                Err(e) => {
                    tracing::warn!(error = %e, "the scheduler could not read what is due");
                }
            }
            std::thread::sleep(TICK);
        }
    }
}
