//! The listener: on PostgreSQL, a connection of its own that `LISTEN`s for other processes'
//! news that tasks became ready (a tree started, a dependency completed, a task given back)
//! and wakes this engine's dispatcher at once. The dispatcher's poll stays as the fallback: a
//! lost connection is reported, the poll carries on, and the connection is made again.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use super::Signals;
use crate::store::Store;

pub(super) struct Listener {
    pub(super) store: Arc<Store>,
    pub(super) signals: Arc<Signals>,
    pub(super) stop: Arc<AtomicBool>,
}

impl Listener {
    /// Listens until the engine stops (at once on SQLite).
    pub(super) fn run(&self) {
        let signals = Arc::clone(&self.signals);
        self.store.listen(&self.stop, &move || signals.wake());
    }
}
