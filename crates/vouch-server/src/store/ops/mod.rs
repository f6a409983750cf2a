//! The task logic of both stores, written once against [`Sql`](super::sql::Sql): tasks as rows
//! (`rows`), the event stream (`events`), the engine's lifecycle writes (`lifecycle`), and the
//! caller's updates and deletes (`update`).

mod events;
mod finish;
mod lifecycle;
pub(crate) mod push;
mod rows;
mod schedule;
mod update;

pub(crate) use events::{events, last_event, sweep};
pub(crate) use finish::{apply_settles, finish_many, release};
pub use lifecycle::{Openness, Started};
pub(crate) use lifecycle::{cancel, claim, open, progress, renew, start};
pub(crate) use rows::{
    children, counts, dependency_results, dependents, descendants, get, insert, list, root_of,
    subtree, tree,
};
pub use schedule::Fired;
pub(crate) use schedule::{due, fire, scheduled};
pub use update::Updated;
pub(crate) use update::{delete, update};
