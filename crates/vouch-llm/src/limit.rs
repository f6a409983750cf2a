//! Limits of simultaneous requests, one per provider, shared by every client of it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use tokio::sync::Semaphore;

/// Requests at once to one provider, unless configured otherwise.
pub const DEFAULT_CONCURRENCY: usize = 8;

/// The limits of a process: one semaphore per provider key (`openai https://api.openai.com/v1`,
/// `anthropic …`, `claude`, …), created by the first client of that provider.
#[derive(Debug, Clone, Default)]
pub struct Limits {
    by_provider: Arc<Mutex<HashMap<String, Arc<Semaphore>>>>,
}

impl Limits {
    /// Returns the limit of `provider`, making it with `permits` (at least 1) when it is new.
    pub fn of(&self, provider: &str, permits: usize) -> Arc<Semaphore> {
        let mut map = self
            .by_provider
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        Arc::clone(
            map.entry(provider.to_owned())
                .or_insert_with(|| Arc::new(Semaphore::new(permits.max(1)))),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clients_of_one_provider_share_its_limit() {
        let limits = Limits::default();
        let a = limits.of("openai http://x", 2);
        let b = limits.of("openai http://x", 5);
        assert!(Arc::ptr_eq(&a, &b));
        assert_eq!(b.available_permits(), 2);
        assert!(!Arc::ptr_eq(&a, &limits.of("anthropic", 2)));
    }
}
