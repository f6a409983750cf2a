//! Where tasks live: SQLite (one file, the default) or PostgreSQL (several worker processes).
//! The task logic is written once ([`ops`]) over a small SQL surface both speak; each backend
//! opens connections, runs transactions and applies the versioned migrations of
//! `store/migrations/`.

mod faults;
mod ops;
mod postgres;
mod sql;
mod sqlite;

use std::path::Path;

use serde::Serialize;
use serde_json::Value;
use vouch_tasks::{Status, Task};

use crate::clock::{Now, now};
pub use faults::Faults;
pub use ops::{Fired, Openness, Started, Updated};
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

/// What one worker's round with the store did ([`Store::round`]).
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct Round {
    /// For each run given, in order, whether its end was recorded (false: its attempt no
    /// longer held the task).
    pub recorded: Vec<bool>,
    /// The tasks claimed.
    pub claimed: Vec<Claimed>,
    /// Completions were staged for a dependent that waits for many tasks: count them soon
    /// ([`Store::apply_settles`]).
    pub staged: bool,
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

/// Where a tree's events are pushed (`configuration.push_notification_config`).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct PushTarget {
    /// The callback URL.
    pub url: String,
    /// The HTTP method (`POST`).
    pub method: String,
    /// Headers sent with every callback.
    pub headers: Vec<(String, String)>,
    /// `a2a` when the request came in the A2A shape: the callbacks carry `protocol: "a2a"`.
    pub protocol: Option<String>,
}

impl PushTarget {
    /// Returns a `POST` target of `url` with `headers`.
    pub fn new(
        url: String,
        headers: Vec<(String, String)>,
        protocol: Option<String>,
    ) -> PushTarget {
        PushTarget {
            url,
            method: "POST".to_owned(),
            headers,
            protocol,
        }
    }
}

/// How one event's callback went.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct PushDelivery {
    /// The event.
    pub event_id: i64,
    /// The task it is about.
    pub task_id: String,
    /// Its kind.
    pub kind: String,
    /// Requests made.
    pub attempts: u32,
    /// The last answer's HTTP status, when one came.
    pub status: Option<u16>,
    /// Why the last attempt failed.
    pub error: Option<String>,
    /// True when a 2xx answer came.
    pub ok: bool,
    /// When it was settled.
    pub at: String,
}

impl PushDelivery {
    /// Returns the record of `event`'s delivery.
    pub fn of(
        event: &Event,
        attempts: u32,
        status: Option<u16>,
        error: Option<String>,
    ) -> PushDelivery {
        PushDelivery {
            event_id: event.id,
            task_id: event.task_id.clone(),
            kind: event.kind.clone(),
            attempts,
            ok: error.is_none(),
            status,
            error,
            at: now().text,
        }
    }
}

/// A tree's push target and how delivery stands.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct PushState {
    /// The target.
    pub target: PushTarget,
    /// The last event settled.
    pub after: i64,
    /// Events delivered.
    pub delivered: i64,
    /// Events given up on.
    pub failed: i64,
    /// True when the tree ended and every event was settled.
    pub finished: bool,
    /// The deliveries, oldest first.
    pub deliveries: Vec<PushDelivery>,
}

/// Why [`Store::delete`] did not delete a task.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotDeleted {
    /// There is no task with that id.
    NoSuchTask,
    /// The protocol does not allow it (not pending, has children or dependents, changed).
    Refused(String),
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
    /// Waits for news that tasks became ready until `stop` (see [`Store::listen`]); nothing by
    /// default.
    fn listen(&self, _stop: &std::sync::atomic::AtomicBool, _ready: &dyn Fn()) {}
    /// Runs `body`, which only reads, in one transaction that never waits for a writer (on
    /// SQLite, a connection of its own reading the last committed state).
    fn read(
        &self,
        body: &mut dyn FnMut(&mut dyn Sql) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        self.transaction(body)
    }
}

/// The task store.
#[derive(Debug)]
pub struct Store {
    backend: Box<dyn Backend>,
    /// Where it is, for messages (a path, or the URL without its password).
    location: String,
    /// Counts the writes of this process that added events: event streams wait on it instead
    /// of polling (and poll seldom, for other processes' writes).
    written: tokio::sync::watch::Sender<u64>,
    /// Faults the tests inject into lease renewals.
    faults: Faults,
}

/// The migrations of a backend: version, name, statements.
type Migration = (i64, &'static str, &'static str);

impl Store {
    /// Opens the store at `url`: `postgres://…` / `postgresql://…` for PostgreSQL, otherwise
    /// an SQLite file (`sqlite://` prefix optional), created with its folder when missing.
    /// Migrations not yet applied are applied.
    pub fn open(url: &str) -> Result<Store, StoreError> {
        let (backend, location): (Box<dyn Backend>, String) =
            if url.starts_with("postgres://") || url.starts_with("postgresql://") {
                (Box::new(postgres::Postgres::connect(url)?), redact(url))
            } else {
                let path = url.strip_prefix("sqlite://").unwrap_or(url);
                (
                    Box::new(sqlite::Sqlite::open(Path::new(path))?),
                    path.to_owned(),
                )
            };
        Ok(Store {
            backend,
            location,
            written: tokio::sync::watch::Sender::new(0),
            faults: Faults::default(),
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

    /// Returns a receiver that changes whenever this process writes events.
    pub fn written(&self) -> tokio::sync::watch::Receiver<u64> {
        self.written.subscribe()
    }

    /// Returns the faults injected into this store (tests).
    #[doc(hidden)]
    pub fn faults(&self) -> &Faults {
        &self.faults
    }

    /// Runs a transaction that only reads.
    fn read<T>(
        &self,
        mut body: impl FnMut(&mut dyn Sql) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let mut out = None;
        self.backend.read(&mut |sql| {
            out = Some(body(sql)?);
            Ok(())
        })?;
        out.ok_or_else(|| StoreError::Database("the transaction returned nothing".into()))
    }

    /// Runs a transaction that writes events, then tells the streams.
    fn tx_events<T>(
        &self,
        body: impl FnMut(&mut dyn Sql) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let out = self.tx(body)?;
        self.written.send_modify(|n| *n = n.wrapping_add(1));
        Ok(out)
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
        self.read(|sql| ops::get(sql, id))
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
        self.read(|sql| ops::root_of(sql, id))
    }

    /// Returns every task of the tree rooted at `root`, in creation order.
    pub fn tree(&self, root: &str) -> Result<Vec<Task>, StoreError> {
        self.read(|sql| ops::tree(sql, root))
    }

    /// Returns up to `limit` children of task `id` after the first `offset`, in creation
    /// order, and how many it has.
    pub fn children(
        &self,
        id: &str,
        limit: u64,
        offset: u64,
    ) -> Result<(Vec<Task>, u64), StoreError> {
        let (limit, offset) = (clamp(limit), clamp(offset));
        self.read(|sql| ops::children(sql, id, limit, offset))
            .map(|(tasks, total)| (tasks, u64::try_from(total).unwrap_or(0)))
    }

    /// Returns the ids of the tasks under task `id`, at most `limit`.
    pub fn descendants(&self, id: &str, limit: u64) -> Result<Vec<String>, StoreError> {
        self.read(|sql| ops::descendants(sql, id, clamp(limit)))
    }

    /// Returns task `id` and the tasks under it, in creation order, at most `limit`.
    pub fn subtree(&self, id: &str, limit: u64) -> Result<Vec<Task>, StoreError> {
        self.read(|sql| ops::subtree(sql, id, clamp(limit)))
    }

    /// Returns a page of tasks and how many match.
    pub fn list(&self, query: &ListQuery) -> Result<(Vec<Task>, u64), StoreError> {
        self.read(|sql| ops::list(sql, query))
    }

    /// Returns how many tasks each status has.
    pub fn counts(&self) -> Result<Vec<(String, i64)>, StoreError> {
        self.read(ops::counts)
    }

    /// Writes the fields in which `task` differs from `stored`, the task as the caller read
    /// it, if each still holds the value read (a compare-and-swap on the fields changed).
    pub fn update(&self, stored: &Task, task: &Task) -> Result<Updated, StoreError> {
        let now = now();
        self.tx_events(|sql| ops::update(sql, stored, task, &now))
    }

    /// Deletes task `id` when allowed; the inner error says why not.
    pub fn delete(&self, id: &str) -> Result<Result<(), NotDeleted>, StoreError> {
        self.tx(|sql| ops::delete(sql, id))
    }

    /// Starts (or re-executes) the tree rooted at `root`; the inner error holds the ids of the
    /// tasks executing when the tree is (then nothing changed).
    pub fn start(&self, root: &str) -> Result<Result<Started, Vec<String>>, StoreError> {
        let now = now();
        self.tx_events(|sql| ops::start(sql, root, &now))
    }

    /// Returns the tasks whose schedule is due at `now_ms` (milliseconds since the epoch), with
    /// their due times, earliest first, at most `limit`.
    pub fn due(&self, now_ms: i64, limit: i64) -> Result<Vec<(String, i64)>, StoreError> {
        self.read(|sql| ops::due(sql, now_ms, limit))
    }

    /// Returns the tasks with a schedule (only enabled ones with `enabled_only`; only those due
    /// by `before_ms` when given), earliest next time first, at most `limit`.
    pub fn scheduled(
        &self,
        enabled_only: bool,
        before_ms: Option<i64>,
        limit: i64,
    ) -> Result<Vec<Task>, StoreError> {
        self.read(|sql| ops::scheduled(sql, enabled_only, before_ms, limit))
    }

    /// Fires the due time `due_ms` of task `id`'s schedule, unless another worker did first
    /// (`None`): the schedule moves on and its scope runs again.
    pub fn fire(&self, id: &str, due_ms: i64) -> Result<Option<Fired>, StoreError> {
        let now = now();
        self.tx_events(|sql| ops::fire(sql, id, due_ms, &now))
    }

    /// Cancels the tasks `ids` that are pending or running, and what required them.
    pub fn cancel(&self, ids: &[String], reason: &str) -> Result<Vec<String>, StoreError> {
        let now = now();
        self.tx_events(|sql| ops::cancel(sql, ids, reason, &now))
    }

    /// Claims up to `n` tasks for `worker` with a lease of `lease_ms`, by the database's clock.
    pub fn claim(&self, worker: &str, n: usize, lease_ms: i64) -> Result<Vec<Claimed>, StoreError> {
        let now = now();
        self.tx_events(|sql| ops::claim(sql, worker, n, lease_ms, &now))
    }

    /// Renews the leases of `leases` (task id, attempt) for `lease_ms` from the database's
    /// clock; returns those whose attempt still held them.
    pub fn renew(
        &self,
        leases: &[(String, i64)],
        lease_ms: i64,
    ) -> Result<Vec<(String, i64)>, StoreError> {
        self.faults.before_renewal()?;
        self.tx(|sql| ops::renew(sql, leases, lease_ms))
    }

    /// Records progress for `attempt` of task `id`.
    pub fn progress(&self, id: &str, attempt: i64, value: f64) -> Result<bool, StoreError> {
        let now = now();
        self.tx_events(|sql| ops::progress(sql, id, attempt, value, &now))
    }

    /// Records how `attempt` of task `id` ended; false when the lease was lost.
    pub fn finish(&self, id: &str, attempt: i64, outcome: &Outcome) -> Result<bool, StoreError> {
        let done = [(id.to_owned(), attempt, outcome.clone())];
        let round = self.round("", &done, 0, 0)?;
        if round.staged {
            self.apply_settles()?;
        }
        Ok(round.recorded.first() == Some(&true))
    }

    /// One worker's round trip, one transaction: records how the runs of `done` (task id,
    /// attempt, outcome) ended, then claims up to `want` tasks for `worker` with a lease of
    /// `lease_ms`.
    pub fn round(
        &self,
        worker: &str,
        done: &[(String, i64, Outcome)],
        want: usize,
        lease_ms: i64,
    ) -> Result<Round, StoreError> {
        let now: Now = now();
        self.tx_events(|sql| {
            let (recorded, staged) = if done.is_empty() {
                (Vec::new(), false)
            } else {
                ops::finish_many(sql, done, &now)?
            };
            let claimed = if want == 0 {
                Vec::new()
            } else {
                ops::claim(sql, worker, want, lease_ms, &now)?
            };
            Ok(Round {
                recorded,
                claimed,
                staged,
            })
        })
    }

    /// Counts staged completions into the dependents that wait for many tasks; returns whether
    /// a queued task became ready and how many staged rows were counted.
    pub fn apply_settles(&self) -> Result<(bool, usize), StoreError> {
        self.tx(ops::apply_settles)
    }

    /// Gives back the runs `runs` (task id, attempt) still hold: pending and queued again, the
    /// lease cleared, the attempt kept; returns the ids released.
    pub fn release(&self, runs: &[(String, i64)]) -> Result<Vec<String>, StoreError> {
        let now = now();
        self.tx_events(|sql| ops::release(sql, runs, &now))
    }

    /// Waits for other processes' news that tasks became ready (PostgreSQL's `LISTEN`), calling
    /// `ready` for each, until `stop`; a lost connection is reported once and made again. On
    /// SQLite, whose writers all live in one process, it returns at once.
    pub fn listen(&self, stop: &std::sync::atomic::AtomicBool, ready: &dyn Fn()) {
        self.backend.listen(stop, ready);
    }

    /// Returns the events of tree `root` after event `after`, at most `limit`.
    pub fn events(&self, root: &str, after: i64, limit: i64) -> Result<Vec<Event>, StoreError> {
        self.read(|sql| ops::events(sql, root, after, limit))
    }

    /// Returns the id of tree `root`'s last event so far (0 when it has none).
    pub fn last_event(&self, root: &str) -> Result<i64, StoreError> {
        self.read(|sql| ops::last_event(sql, root))
    }

    /// Deletes up to `limit` events written before `before_ms`, oldest first; returns how
    /// many.
    pub fn sweep_events(&self, before_ms: i64, limit: i64) -> Result<u64, StoreError> {
        self.tx(|sql| ops::sweep(sql, before_ms, limit))
    }

    /// Returns how the tree `root` stands: how many tasks are open, and how many can move.
    pub fn openness(&self, root: &str) -> Result<Openness, StoreError> {
        self.read(|sql| ops::open(sql, root))
    }

    /// Registers `target` for tree `root` (replacing an earlier one); delivery starts after
    /// the tree's events so far.
    pub fn push_register(&self, root: &str, target: &PushTarget) -> Result<(), StoreError> {
        let now = now();
        self.tx(|sql| ops::push::register(sql, root, target, &now))
    }

    /// Takes the lease of up to `limit` undelivered push targets for `owner`: (root, target,
    /// the last event settled).
    pub fn push_claim(
        &self,
        owner: &str,
        lease_ms: i64,
        limit: i64,
    ) -> Result<Vec<(String, PushTarget, i64)>, StoreError> {
        self.tx(|sql| ops::push::claim(sql, owner, lease_ms, limit))
    }

    /// Records a delivery of tree `root` and moves its cursor, if `owner` still holds it.
    pub fn push_record(
        &self,
        owner: &str,
        lease_ms: i64,
        root: &str,
        delivery: &PushDelivery,
    ) -> Result<bool, StoreError> {
        self.tx(|sql| ops::push::record(sql, owner, lease_ms, root, delivery))
    }

    /// Marks tree `root`'s target done, if `owner` holds it and its cursor is still `after`.
    pub fn push_finish(&self, owner: &str, root: &str, after: i64) -> Result<bool, StoreError> {
        self.tx(|sql| ops::push::finish(sql, owner, root, after))
    }

    /// Gives back the push leases `owner` holds.
    pub fn push_release(&self, owner: &str) -> Result<u64, StoreError> {
        self.tx(|sql| ops::push::release(sql, owner))
    }

    /// Returns tree `root`'s push target and deliveries.
    pub fn push_state(&self, root: &str) -> Result<Option<PushState>, StoreError> {
        self.read(|sql| ops::push::state(sql, root))
    }

    /// Returns the dependencies of `task` with their status and result.
    pub fn dependency_results(
        &self,
        task: &Task,
    ) -> Result<Vec<(String, Status, Option<Value>)>, StoreError> {
        self.read(|sql| ops::dependency_results(sql, task))
    }

    /// Returns the ids of the tasks that depend on `id`.
    pub fn dependents(&self, id: &str) -> Result<Vec<String>, StoreError> {
        self.read(|sql| ops::dependents(sql, id))
    }
}

/// Returns a count as the databases take it.
fn clamp(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
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
