//! Where tasks live: SQLite (one file, the default) or PostgreSQL (several worker processes).
//! The task logic is written once ([`ops`]) over a small SQL surface both speak; each backend
//! opens connections, runs transactions and applies the versioned migrations of
//! `store/migrations/`.

mod ops;
mod postgres;
mod sql;
mod sqlite;

use std::path::Path;

use serde::Serialize;
use serde_json::Value;
use vouch_tasks::{Status, Task};

use crate::clock::{Now, now};
pub use ops::Started;
use sql::Sql;

/// Why the store could not answer.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// The database failed (connection lost, disk full, constraint violated, …).
    #[error("database: {0}")]
    Database(String),
    /// A stored row does not read back as a task.
    #[error("stored data is damaged: {0}")]
    Corrupt(String),
    /// The database URL or file cannot be used.
    #[error("cannot open the task store: {0}")]
    Open(String),
}

/// A task a worker took, and the attempt (fencing token) its writes must carry.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Claimed {
    /// The task as stored when claimed.
    pub task: Task,
    /// The attempt number.
    pub attempt: i64,
}

/// How a run ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// With this result.
    Completed(Value),
    /// With this error.
    Failed(Value),
}

/// One event of a tree's stream.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Event {
    /// Its id, increasing within the store.
    pub id: i64,
    /// The task it is about.
    pub task_id: String,
    /// `task_status_update`, `task_progress_update`, `task_completed`, `task_failed` or
    /// `task_cancelled`.
    pub kind: String,
    /// The task's status, progress, result or error and the time, as JSON text.
    pub data: String,
}

/// Which tasks `tasks.list` returns.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct ListQuery {
    /// Only tasks with this status.
    pub status: Option<Status>,
    /// Only tasks of this user.
    pub user_id: Option<String>,
    /// Only roots.
    pub roots_only: bool,
    /// At most this many.
    pub limit: u64,
    /// After skipping this many.
    pub offset: u64,
}

/// A backend: something that runs a transaction of [`Sql`] statements.
trait Backend: Send + Sync + std::fmt::Debug {
    /// `sqlite` or `postgres`.
    fn kind(&self) -> &'static str;
    /// Runs `body` in one transaction, committed when it returns `Ok`.
    fn transaction(
        &self,
        body: &mut dyn FnMut(&mut dyn Sql) -> Result<(), StoreError>,
    ) -> Result<(), StoreError>;
}

/// The task store.
#[derive(Debug)]
pub struct Store {
    backend: Box<dyn Backend>,
    /// Where it is, for messages (a path, or the URL without its password).
    location: String,
}

/// The migrations of a backend: version, name, statements.
type Migration = (i64, &'static str, &'static str);

impl Store {
    /// Opens the store at `url`: `postgres://…` / `postgresql://…` for PostgreSQL, otherwise
    /// an SQLite file (`sqlite://` prefix optional), created with its folder when missing.
    /// Migrations not yet applied are applied.
    pub fn open(url: &str) -> Result<Store, StoreError> {
        if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            let backend = postgres::Postgres::connect(url)?;
            return Ok(Store {
                backend: Box::new(backend),
                location: redact(url),
            });
        }
        let path = url.strip_prefix("sqlite://").unwrap_or(url);
        let backend = sqlite::Sqlite::open(Path::new(path))?;
        Ok(Store {
            backend: Box::new(backend),
            location: path.to_owned(),
        })
    }

    /// `sqlite` or `postgres`.
    pub fn kind(&self) -> &'static str {
        self.backend.kind()
    }

    /// Where the store is (a PostgreSQL URL without its password).
    pub fn location(&self) -> &str {
        &self.location
    }

    fn tx<T>(
        &self,
        mut body: impl FnMut(&mut dyn Sql) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let mut out = None;
        self.backend.transaction(&mut |sql| {
            out = Some(body(sql)?);
            Ok(())
        })?;
        out.ok_or_else(|| StoreError::Database("the transaction returned nothing".into()))
    }

    /// Stores the tasks of one tree rooted at `root` (ids lowercase and new).
    pub fn insert(&self, tasks: &[Task], root: &str) -> Result<(), StoreError> {
        self.tx(|sql| ops::insert(sql, tasks, root))
    }

    /// Returns the task `id`.
    pub fn get(&self, id: &str) -> Result<Option<Task>, StoreError> {
        self.tx(|sql| ops::get(sql, id))
    }

    /// Returns which of `ids` are stored already.
    pub fn existing(&self, ids: &[String]) -> Result<Vec<String>, StoreError> {
        self.tx(|sql| {
            let mut found = Vec::new();
            for chunk in ids.chunks(500) {
                let marks = vec!["?"; chunk.len()].join(", ");
                let params: Vec<sql::Val> = chunk.iter().map(|s| s.as_str().into()).collect();
                for row in sql.query(
                    &format!("SELECT id FROM tasks WHERE id IN ({marks})"),
                    &params,
                )? {
                    if let Some(id) = row.first().and_then(sql::Val::text) {
                        found.push(id.to_owned());
                    }
                }
            }
            Ok(found)
        })
    }

    /// Returns the root of the tree task `id` belongs to.
    pub fn root_of(&self, id: &str) -> Result<Option<String>, StoreError> {
        self.tx(|sql| ops::root_of(sql, id))
    }

    /// Returns every task of the tree rooted at `root`, in creation order.
    pub fn tree(&self, root: &str) -> Result<Vec<Task>, StoreError> {
        self.tx(|sql| ops::tree(sql, root))
    }

    /// Returns the children of task `id`, in creation order.
    pub fn children(&self, id: &str) -> Result<Vec<Task>, StoreError> {
        self.tx(|sql| ops::children(sql, id))
    }

    /// Returns a page of tasks and how many match.
    pub fn list(&self, query: &ListQuery) -> Result<(Vec<Task>, u64), StoreError> {
        self.tx(|sql| ops::list(sql, query))
    }

    /// Returns how many tasks each status has.
    pub fn counts(&self) -> Result<Vec<(String, i64)>, StoreError> {
        self.tx(ops::counts)
    }

    /// Writes `task` if its stored status is still `expected`; false when it changed meanwhile.
    pub fn replace(&self, task: &Task, expected: Status) -> Result<bool, StoreError> {
        let now = now();
        self.tx(|sql| ops::replace(sql, task, expected, &now))
    }

    /// Deletes task `id` when allowed; the inner error says why not.
    pub fn delete(&self, id: &str) -> Result<Result<(), String>, StoreError> {
        self.tx(|sql| ops::delete(sql, id))
    }

    /// Starts (or re-executes) the tree rooted at `root`.
    pub fn start(&self, root: &str) -> Result<Started, StoreError> {
        let now = now();
        self.tx(|sql| ops::start(sql, root, &now))
    }

    /// Cancels the tasks `ids` that are pending or running, and what required them.
    pub fn cancel(&self, ids: &[String], reason: &str) -> Result<Vec<String>, StoreError> {
        let now = now();
        self.tx(|sql| ops::cancel(sql, ids, reason, &now))
    }

    /// Claims up to `n` tasks for `worker` with a lease of `lease_ms`.
    pub fn claim(&self, worker: &str, n: usize, lease_ms: i64) -> Result<Vec<Claimed>, StoreError> {
        let now = now();
        self.tx(|sql| ops::claim(sql, worker, n, lease_ms, &now))
    }

    /// Renews the lease of task `id` for `attempt`; false when the lease was lost.
    pub fn renew(&self, id: &str, attempt: i64, lease_ms: i64) -> Result<bool, StoreError> {
        let now = now();
        self.tx(|sql| ops::renew(sql, id, attempt, lease_ms, &now))
    }

    /// Records progress for `attempt` of task `id`.
    pub fn progress(&self, id: &str, attempt: i64, value: f64) -> Result<bool, StoreError> {
        let now = now();
        self.tx(|sql| ops::progress(sql, id, attempt, value, &now))
    }

    /// Records how `attempt` of task `id` ended; false when the lease was lost.
    pub fn finish(&self, id: &str, attempt: i64, outcome: &Outcome) -> Result<bool, StoreError> {
        let now: Now = now();
        self.tx(|sql| ops::finish(sql, id, attempt, outcome, &now))
    }

    /// Returns the events of tree `root` after event `after`, at most `limit`.
    pub fn events(&self, root: &str, after: i64, limit: i64) -> Result<Vec<Event>, StoreError> {
        self.tx(|sql| ops::events(sql, root, after, limit))
    }

    /// Returns how many tasks of tree `root` are pending or running.
    pub fn open_tasks(&self, root: &str) -> Result<i64, StoreError> {
        self.tx(|sql| ops::open(sql, root))
    }

    /// Returns the dependencies of `task` with their status and result.
    pub fn dependency_results(
        &self,
        task: &Task,
    ) -> Result<Vec<(String, Status, Option<Value>)>, StoreError> {
        self.tx(|sql| ops::dependency_results(sql, task))
    }

    /// Returns the ids of the tasks that depend on `id`.
    pub fn dependents(&self, id: &str) -> Result<Vec<String>, StoreError> {
        self.tx(|sql| ops::dependents(sql, id))
    }
}

/// Returns `url` without its password.
fn redact(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_owned();
    };
    match rest.split_once('@') {
        Some((user, host)) => {
            let user = user.split_once(':').map_or(user, |(u, _)| u);
            format!("{scheme}://{user}:***@{host}")
        }
        None => url.to_owned(),
    }
}

#[cfg(test)]
mod tests;
