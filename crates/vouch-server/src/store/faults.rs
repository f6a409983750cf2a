//! Faults the tests inject into a store, to see the engine keep its promises when the database
//! does not: lease renewals that fail, or hang, until a given moment. Production code never
//! sets them; an unset fault costs one lock a renewal.

use std::sync::Mutex;
use std::time::Instant;

use super::StoreError;

/// The faults of a store.
#[derive(Debug, Default)]
pub struct Faults {
    renewals: Mutex<Option<(Instant, bool)>>,
}

impl Faults {
    /// Makes renewals fail until `until`.
    pub fn fail_renewals_until(&self, until: Instant) {
        *self.lock() = Some((until, false));
    }

    /// Makes renewals hang until `until`, then fail (a database that stopped answering).
    pub fn hang_renewals_until(&self, until: Instant) {
        *self.lock() = Some((until, true));
    }

    /// Applies the renewal fault, if one is set and not over.
    pub(super) fn before_renewal(&self) -> Result<(), StoreError> {
        let fault = *self.lock();
        match fault {
            Some((until, hang)) if Instant::now() < until => {
                if hang {
                    std::thread::sleep(until.saturating_duration_since(Instant::now()));
                }
                Err(StoreError::Database(
                    "the database did not answer (an injected fault)".into(),
                ))
            }
            _ => Ok(()),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<(Instant, bool)>> {
        self.renewals
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}
