//! The task logic of both stores, written once against [`Sql`]: inserting a tree, reading
//! tasks back, the lifecycle writes (claim, renew, progress, finish, cancel, re-execute), and
//! the bookkeeping of dependents every terminal status triggers (decision S6).

use serde_json::{Map, Value};
use vouch_tasks::{Status, Task};

use super::sql::{Row, Sql, Val};
use super::{Claimed, Event, ListQuery, Outcome, StoreError};
use crate::clock::Now;

/// The columns every task query selects, in the order [`task_of`] reads them.
pub(crate) const COLUMNS: &str = "id, status, progress, result, error, updated_at, started_at, \
     completed_at, body, attempt, root_id";

/// Builds a task from a row of [`COLUMNS`]: the stored body, with the columns written over it.
pub(crate) fn task_of(row: &Row) -> Result<Task, StoreError> {
    let body = row.get(8).and_then(Val::text).unwrap_or("{}");
    let mut map: Map<String, Value> = serde_json::from_str(body)
        .map_err(|e| StoreError::Corrupt(format!("a stored task is not JSON: {e}")))?;
    let text = |i: usize| row.get(i).and_then(Val::text).map(str::to_owned);
    let json = |i: usize| -> Result<Option<Value>, StoreError> {
        text(i)
            .map(|t| serde_json::from_str(&t))
            .transpose()
            .map_err(|e| StoreError::Corrupt(format!("a stored field is not JSON: {e}")))
    };
    let mut set = |key: &str, value: Option<Value>| match value {
        Some(v) => {
            map.insert(key.to_owned(), v);
        }
        None => {
            map.remove(key);
        }
    };
    set("status", text(1).map(Value::String));
    set(
        "progress",
        row.get(2)
            .and_then(Val::real)
            .and_then(serde_json::Number::from_f64)
            .map(Value::Number),
    );
    set("result", json(3)?);
    set("error", json(4)?);
    set("updated_at", text(5).map(Value::String));
    set("started_at", text(6).map(Value::String));
    set("completed_at", text(7).map(Value::String));
    serde_json::from_value(Value::Object(map))
        .map_err(|e| StoreError::Corrupt(format!("a stored task does not read back: {e}")))
}

/// Reads the tasks a query of [`COLUMNS`] returns.
pub(crate) fn tasks(
    sql: &mut dyn Sql,
    query: &str,
    params: &[Val],
) -> Result<Vec<Task>, StoreError> {
    sql.query(query, params)?.iter().map(task_of).collect()
}

/// Returns the row of [`COLUMNS`] of task `id`.
fn row(sql: &mut dyn Sql, id: &str) -> Result<Option<Row>, StoreError> {
    let q = format!("SELECT {COLUMNS} FROM tasks WHERE id = ?");
    Ok(sql.query(&q, &[id.into()])?.pop())
}

/// Returns the task `id`.
pub(crate) fn get(sql: &mut dyn Sql, id: &str) -> Result<Option<Task>, StoreError> {
    row(sql, id)?.as_ref().map(task_of).transpose()
}

/// Returns the root of the tree of task `id`.
pub(crate) fn root_of(sql: &mut dyn Sql, id: &str) -> Result<Option<String>, StoreError> {
    let rows = sql.query("SELECT root_id FROM tasks WHERE id = ?", &[id.into()])?;
    Ok(rows
        .first()
        .and_then(|r| r.first())
        .and_then(Val::text)
        .map(str::to_owned))
}

/// Returns every task of the tree rooted at `root`, in creation order.
pub(crate) fn tree(sql: &mut dyn Sql, root: &str) -> Result<Vec<Task>, StoreError> {
    let q = format!("SELECT {COLUMNS} FROM tasks WHERE root_id = ? ORDER BY seq");
    tasks(sql, &q, &[root.into()])
}

/// Returns the tasks whose parent is `id`, in creation order.
pub(crate) fn children(sql: &mut dyn Sql, id: &str) -> Result<Vec<Task>, StoreError> {
    let q = format!("SELECT {COLUMNS} FROM tasks WHERE parent_id = ? ORDER BY seq");
    tasks(sql, &q, &[id.into()])
}

/// Returns the ids of the tasks that depend on `id`.
pub(crate) fn dependents(sql: &mut dyn Sql, id: &str) -> Result<Vec<String>, StoreError> {
    Ok(sql
        .query(
            "SELECT task_id FROM deps WHERE dep_id = ? ORDER BY task_id",
            &[id.into()],
        )?
        .iter()
        .filter_map(|r| r.first().and_then(Val::text).map(str::to_owned))
        .collect())
}

/// Returns a page of tasks and how many match in all.
pub(crate) fn list(sql: &mut dyn Sql, q: &ListQuery) -> Result<(Vec<Task>, u64), StoreError> {
    let mut clauses = Vec::new();
    let mut params: Vec<Val> = Vec::new();
    if let Some(status) = q.status {
        clauses.push("status = ?");
        params.push(status.as_str().into());
    }
    if let Some(user) = &q.user_id {
        clauses.push("user_id = ?");
        params.push(user.as_str().into());
    }
    if q.roots_only {
        clauses.push("parent_id IS NULL");
    }
    let filter = if clauses.is_empty() {
        String::new()
    } else {
        format!(" WHERE {}", clauses.join(" AND "))
    };
    let total = sql
        .query(&format!("SELECT COUNT(*) FROM tasks{filter}"), &params)?
        .first()
        .and_then(|r| r.first())
        .and_then(Val::int)
        .unwrap_or(0);
    let page = format!("SELECT {COLUMNS} FROM tasks{filter} ORDER BY seq LIMIT ? OFFSET ?");
    params.push(i64::try_from(q.limit).unwrap_or(i64::MAX).into());
    params.push(i64::try_from(q.offset).unwrap_or(i64::MAX).into());
    let found = tasks(sql, &page, &params)?;
    Ok((found, u64::try_from(total).unwrap_or(0)))
}

/// Returns how many tasks each status has.
pub(crate) fn counts(sql: &mut dyn Sql) -> Result<Vec<(String, i64)>, StoreError> {
    Ok(sql
        .query(
            "SELECT status, COUNT(*) FROM tasks GROUP BY status ORDER BY status",
            &[],
        )?
        .iter()
        .filter_map(|r| Some((r.first()?.text()?.to_owned(), r.get(1)?.int()?)))
        .collect())
}

/// The body stored for `task`.
fn body(task: &Task) -> Result<String, StoreError> {
    serde_json::to_string(task).map_err(|e| StoreError::Corrupt(e.to_string()))
}

fn json_text(value: Option<&Value>) -> Val {
    Val::Text(value.map(Value::to_string))
}

/// Rows per multi-row `INSERT`: few round trips, well under both databases' parameter limits.
const INSERT_BATCH: usize = 200;

/// Inserts the tasks of one tree, whose root is `root`. Ids must be new.
pub(crate) fn insert(sql: &mut dyn Sql, tasks: &[Task], root: &str) -> Result<(), StoreError> {
    for chunk in tasks.chunks(INSERT_BATCH) {
        let mut params: Vec<Val> = Vec::with_capacity(chunk.len() * 14);
        for task in chunk {
            params.extend([
                task.id.as_str().into(),
                root.into(),
                task.created_at.clone().into(),
            ]);
            params.extend(written(task)?);
        }
        let rows = vec!["(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"; chunk.len()].join(", ");
        sql.exec(
            &format!("INSERT INTO tasks (id, root_id, created_at, {WRITTEN}) VALUES {rows}"),
            &params,
        )?;
    }
    insert_deps(sql, tasks)
}

/// The columns a caller's task sets, in the order [`written`] gives their values.
const WRITTEN: &str = "parent_id, user_id, priority, status, progress, result, error, \
     updated_at, started_at, completed_at, body";

/// The values of [`WRITTEN`] for `task`.
fn written(task: &Task) -> Result<[Val; 11], StoreError> {
    Ok([
        task.parent_id.clone().into(),
        task.user_id.clone().into(),
        i64::from(task.priority).into(),
        task.status.as_str().into(),
        task.progress.into(),
        json_text(task.result.as_ref()),
        json_text(task.error.as_ref()),
        task.updated_at.clone().into(),
        task.started_at.clone().into(),
        task.completed_at.clone().into(),
        body(task)?.into(),
    ])
}

/// Records the dependencies of `tasks`.
fn insert_deps(sql: &mut dyn Sql, tasks: &[Task]) -> Result<(), StoreError> {
    let deps: Vec<(&str, String, bool)> = tasks
        .iter()
        .flat_map(|t| {
            t.dependencies
                .iter()
                .map(|d| (t.id.as_str(), d.id.to_ascii_lowercase(), d.required))
        })
        .collect();
    for chunk in deps.chunks(INSERT_BATCH) {
        let mut params: Vec<Val> = Vec::with_capacity(chunk.len() * 3);
        for (task, dep, required) in chunk {
            params.extend([
                (*task).into(),
                dep.as_str().into(),
                i64::from(*required).into(),
            ]);
        }
        let rows = vec!["(?, ?, ?)"; chunk.len()].join(", ");
        sql.exec(
            &format!(
                "INSERT INTO deps (task_id, dep_id, required) VALUES {rows} \
                 ON CONFLICT (task_id, dep_id) DO NOTHING"
            ),
            &params,
        )?;
    }
    Ok(())
}

/// Appends an event of task `id` to its tree's stream, built from the task as stored now;
/// returns that task.
pub(crate) fn event(sql: &mut dyn Sql, id: &str, kind: &str) -> Result<Option<Task>, StoreError> {
    let Some(row) = row(sql, id)? else {
        return Ok(None);
    };
    let task = task_of(&row)?;
    let root = row.get(10).and_then(Val::text).unwrap_or(id).to_owned();
    let mut data = Map::new();
    data.insert("task_id".into(), Value::String(task.id.clone()));
    data.insert("status".into(), Value::String(task.status.as_str().into()));
    if let Some(p) = task.progress.and_then(serde_json::Number::from_f64) {
        data.insert("progress".into(), Value::Number(p));
    }
    for (key, value) in [("result", &task.result), ("error", &task.error)] {
        if let Some(v) = value {
            data.insert(key.into(), v.clone());
        }
    }
    let at = task
        .updated_at
        .clone()
        .unwrap_or_else(|| crate::clock::now().text);
    data.insert("timestamp".into(), Value::String(at));
    sql.exec(
        "INSERT INTO events (root_id, task_id, kind, data) VALUES (?, ?, ?, ?)",
        &[
            root.into(),
            id.into(),
            kind.into(),
            Value::Object(data).to_string().into(),
        ],
    )?;
    Ok(Some(task))
}

/// The event kind of a status.
fn kind_of(status: Status) -> &'static str {
    match status {
        Status::Completed => "task_completed",
        Status::Failed => "task_failed",
        Status::Cancelled => "task_cancelled",
        Status::Pending | Status::InProgress => "task_status_update",
    }
}

/// Brings the dependents of `id`, which just reached `status` (terminal), up to date: a
/// completed dependency is settled for all; a failed or cancelled one settles optional
/// dependents and cancels required ones, whose own dependents follow in turn (S6).
pub(crate) fn settle(
    sql: &mut dyn Sql,
    id: &str,
    status: Status,
    now: &Now,
) -> Result<Vec<String>, StoreError> {
    let mut cancelled = Vec::new();
    let mut queue = vec![(id.to_owned(), status)];
    while let Some((done, status)) = queue.pop() {
        // Found through the dependency index first, then updated by id: the plan never
        // depends on how many other tasks are pending.
        let dependents = sql.query(
            "SELECT task_id, required FROM deps WHERE dep_id = ?",
            &[done.as_str().into()],
        )?;
        let (required, optional): (Vec<&Row>, Vec<&Row>) = dependents
            .iter()
            .partition(|r| r.get(1).and_then(Val::int) == Some(1));
        let ids = |rows: &[&Row]| -> Vec<Val> {
            rows.iter().filter_map(|r| r.first().cloned()).collect()
        };
        let (settled, blocked) = if status == Status::Completed {
            (
                ids(&[required.as_slice(), optional.as_slice()].concat()),
                Vec::new(),
            )
        } else {
            (ids(&optional), ids(&required))
        };
        for chunk in settled.chunks(500) {
            let marks = vec!["?"; chunk.len()].join(", ");
            sql.exec(
                &format!(
                    "UPDATE tasks SET waiting = waiting - 1 \
                     WHERE id IN ({marks}) AND status = 'pending' AND waiting > 0"
                ),
                chunk,
            )?;
        }
        if blocked.is_empty() {
            continue;
        }
        let error = serde_json::json!({
            "message": format!("required dependency {done} is {status}"),
            "reason": "dependency_not_satisfied",
            "dependency": done,
        })
        .to_string();
        for chunk in blocked.chunks(500) {
            let marks = vec!["?"; chunk.len()].join(", ");
            let mut params: Vec<Val> = vec![
                error.as_str().into(),
                now.text.as_str().into(),
                now.text.as_str().into(),
            ];
            params.extend_from_slice(chunk);
            let hit = sql.query(
                &format!(
                    "UPDATE tasks SET status = 'cancelled', cascaded = 1, queued = 0, error = ?, \
                     completed_at = ?, updated_at = ? \
                     WHERE id IN ({marks}) AND status = 'pending' RETURNING id"
                ),
                &params,
            )?;
            for row in hit {
                if let Some(t) = row.first().and_then(Val::text) {
                    event(sql, t, "task_cancelled")?;
                    cancelled.push(t.to_owned());
                    queue.push((t.to_owned(), Status::Cancelled));
                }
            }
        }
    }
    Ok(cancelled)
}

/// Takes up to `n` tasks for `worker`: those whose lease ran out first, then ready ones by
/// priority and creation (S2). Each claim bumps the attempt, the fencing token.
pub(crate) fn claim(
    sql: &mut dyn Sql,
    worker: &str,
    n: usize,
    lease_ms: i64,
    now: &Now,
) -> Result<Vec<Claimed>, StoreError> {
    let mut claimed = Vec::new();
    let lock = sql.skip_locked();
    let until = now.ms.saturating_add(lease_ms);
    let pick = [
        format!(
            "SELECT seq FROM tasks WHERE status = 'in_progress' AND lease_until < ? \
             ORDER BY lease_until LIMIT ? {lock}"
        ),
        format!(
            "SELECT seq FROM tasks WHERE queued = 1 AND status = 'pending' AND waiting = 0 \
             ORDER BY priority, seq LIMIT ? {lock}"
        ),
    ];
    for (i, pick) in pick.iter().enumerate() {
        let want = n.saturating_sub(claimed.len());
        if want == 0 {
            break;
        }
        let want = i64::try_from(want).unwrap_or(1);
        let mut params: Vec<Val> = vec![
            until.into(),
            worker.into(),
            now.text.as_str().into(),
            now.text.as_str().into(),
        ];
        if i == 0 {
            params.push(now.ms.into());
        }
        params.push(want.into());
        let rows = sql.query(
            &format!(
                "UPDATE tasks SET status = 'in_progress', attempt = attempt + 1, lease_until = ?, \
                 worker = ?, started_at = ?, updated_at = ?, progress = 0, result = NULL, error = NULL \
                 WHERE seq IN ({pick}) RETURNING id, attempt"
            ),
            &params,
        )?;
        for row in rows {
            let (Some(id), Some(attempt)) = (
                row.first().and_then(Val::text),
                row.get(1).and_then(Val::int),
            ) else {
                continue;
            };
            if let Some(task) = event(sql, id, "task_status_update")? {
                claimed.push(Claimed { task, attempt });
            }
        }
    }
    Ok(claimed)
}

/// Extends the lease of task `id` while `attempt` holds it; false when it does not.
pub(crate) fn renew(
    sql: &mut dyn Sql,
    id: &str,
    attempt: i64,
    lease_ms: i64,
    now: &Now,
) -> Result<bool, StoreError> {
    let n = sql.exec(
        "UPDATE tasks SET lease_until = ? WHERE id = ? AND attempt = ? AND status = 'in_progress'",
        &[
            now.ms.saturating_add(lease_ms).into(),
            id.into(),
            attempt.into(),
        ],
    )?;
    Ok(n == 1)
}

/// Records the progress of task `id` (0 to 1) while `attempt` holds it.
pub(crate) fn progress(
    sql: &mut dyn Sql,
    id: &str,
    attempt: i64,
    value: f64,
    now: &Now,
) -> Result<bool, StoreError> {
    let n = sql.exec(
        "UPDATE tasks SET progress = ?, updated_at = ? WHERE id = ? AND attempt = ? AND status = 'in_progress'",
        &[
            Some(value.clamp(0.0, 1.0)).into(),
            now.text.as_str().into(),
            id.into(),
            attempt.into(),
        ],
    )?;
    if n == 1 {
        event(sql, id, "task_progress_update")?;
    }
    Ok(n == 1)
}

/// Records how task `id`'s run ended, while `attempt` holds it; false when the lease was lost
/// (nothing is recorded then, S3).
pub(crate) fn finish(
    sql: &mut dyn Sql,
    id: &str,
    attempt: i64,
    outcome: &Outcome,
    now: &Now,
) -> Result<bool, StoreError> {
    let (status, result, error, progress) = match outcome {
        Outcome::Completed(result) => (Status::Completed, Some(result), None, Some(1.0)),
        Outcome::Failed(error) => (Status::Failed, None, Some(error), None),
    };
    let mut params: Vec<Val> = vec![
        status.as_str().into(),
        json_text(result),
        json_text(error),
        now.text.as_str().into(),
        now.text.as_str().into(),
    ];
    let keep_progress = if progress.is_some() {
        params.push(progress.into());
        "?"
    } else {
        "progress"
    };
    params.extend([id.into(), attempt.into()]);
    let n = sql.exec(
        &format!(
            "UPDATE tasks SET status = ?, result = ?, error = ?, completed_at = ?, updated_at = ?, \
             progress = {keep_progress}, lease_until = NULL, queued = 0 \
             WHERE id = ? AND attempt = ? AND status = 'in_progress'"
        ),
        &params,
    )?;
    if n != 1 {
        return Ok(false);
    }
    event(sql, id, kind_of(status))?;
    settle(sql, id, status, now)?;
    Ok(true)
}

/// Cancels the pending or in-progress tasks among `ids`, with `reason`; returns those it
/// cancelled, dependents cancelled in turn included. A running task's attempt is bumped so
/// that its worker's next write fails and it stops the run (S3).
pub(crate) fn cancel(
    sql: &mut dyn Sql,
    ids: &[String],
    reason: &str,
    now: &Now,
) -> Result<Vec<String>, StoreError> {
    let error = serde_json::json!({"message": reason, "reason": "cancelled"}).to_string();
    let mut done = Vec::new();
    for id in ids {
        let n = sql.exec(
            "UPDATE tasks SET status = 'cancelled', attempt = attempt + 1, lease_until = NULL, \
             queued = 0, error = ?, completed_at = ?, updated_at = ? \
             WHERE id = ? AND status IN ('pending', 'in_progress')",
            &[
                error.as_str().into(),
                now.text.as_str().into(),
                now.text.as_str().into(),
                id.as_str().into(),
            ],
        )?;
        if n == 1 {
            event(sql, id, "task_cancelled")?;
            done.push(id.clone());
            done.extend(settle(sql, id, Status::Cancelled, now)?);
        }
    }
    Ok(done)
}

/// What starting a tree did.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct Started {
    /// Tasks queued to run.
    pub queued: u64,
    /// Failed tasks (and those cancelled because a dependency failed) set back to pending.
    pub reset: u64,
    /// Pending tasks cancelled because a required dependency had failed or was cancelled.
    pub cancelled: u64,
    /// Tasks already completed, kept with their results.
    pub completed: u64,
}

/// Starts the tree rooted at `root`: failed tasks, and those cancelled because a dependency
/// failed, go back to pending with their run's fields reset (a re-execution); completed tasks
/// keep their results; what can never run is cancelled with its reason; the rest is queued.
pub(crate) fn start(sql: &mut dyn Sql, root: &str, now: &Now) -> Result<Started, StoreError> {
    let mut started = Started::default();
    let reset = sql.query(
        "UPDATE tasks SET status = 'pending', cascaded = 0, progress = NULL, result = NULL, \
         error = NULL, started_at = NULL, completed_at = NULL, updated_at = ? \
         WHERE root_id = ? AND (status = 'failed' OR (status = 'cancelled' AND cascaded = 1)) \
         RETURNING id",
        &[now.text.as_str().into(), root.into()],
    )?;
    for row in &reset {
        if let Some(id) = row.first().and_then(Val::text) {
            event(sql, id, "task_status_update")?;
        }
    }
    started.reset = reset.len() as u64;
    // Whatever a failed or cancelled task blocks is cancelled now, never left waiting.
    let ended = sql.query(
        "SELECT id, status FROM tasks WHERE root_id = ? AND status IN ('failed', 'cancelled')",
        &[root.into()],
    )?;
    for row in ended {
        let (Some(id), Some(status)) = (
            row.first().and_then(Val::text),
            row.get(1)
                .and_then(Val::text)
                .and_then(|s| s.parse::<Status>().ok()),
        ) else {
            continue;
        };
        started.cancelled += settle(sql, id, status, now)?.len() as u64;
    }
    // Then every pending task's count of unsettled dependencies, from scratch.
    sql.exec(
        "UPDATE tasks SET waiting = (SELECT COUNT(*) FROM deps d JOIN tasks u ON u.id = d.dep_id \
         WHERE d.task_id = tasks.id AND ((d.required = 1 AND u.status <> 'completed') OR \
         (d.required = 0 AND u.status NOT IN ('completed', 'failed', 'cancelled')))) \
         WHERE root_id = ? AND status = 'pending'",
        &[root.into()],
    )?;
    started.queued = sql.exec(
        "UPDATE tasks SET queued = 1 WHERE root_id = ? AND status = 'pending'",
        &[root.into()],
    )?;
    started.completed = sql
        .query(
            "SELECT COUNT(*) FROM tasks WHERE root_id = ? AND status = 'completed'",
            &[root.into()],
        )?
        .first()
        .and_then(|r| r.first())
        .and_then(Val::int)
        .and_then(|n| u64::try_from(n).ok())
        .unwrap_or(0);
    Ok(started)
}

/// Returns the events of the tree rooted at `root` after event `after`, at most `limit`.
pub(crate) fn events(
    sql: &mut dyn Sql,
    root: &str,
    after: i64,
    limit: i64,
) -> Result<Vec<Event>, StoreError> {
    let rows = sql.query(
        "SELECT seq, task_id, kind, data FROM events WHERE root_id = ? AND seq > ? ORDER BY seq LIMIT ?",
        &[root.into(), after.into(), limit.into()],
    )?;
    Ok(rows
        .iter()
        .filter_map(|r| {
            Some(Event {
                id: r.first()?.int()?,
                task_id: r.get(1)?.text()?.to_owned(),
                kind: r.get(2)?.text()?.to_owned(),
                data: r.get(3)?.text()?.to_owned(),
            })
        })
        .collect())
}

/// Returns how many tasks of the tree rooted at `root` are not terminal.
pub(crate) fn open(sql: &mut dyn Sql, root: &str) -> Result<i64, StoreError> {
    Ok(sql
        .query(
            "SELECT COUNT(*) FROM tasks WHERE root_id = ? AND status IN ('pending', 'in_progress')",
            &[root.into()],
        )?
        .first()
        .and_then(|r| r.first())
        .and_then(Val::int)
        .unwrap_or(0))
}

/// Writes `task` over the stored one if its status is still `expected` (compare-and-swap);
/// a new terminal status settles its dependents, and a status change is an event.
pub(crate) fn replace(
    sql: &mut dyn Sql,
    task: &Task,
    expected: Status,
    now: &Now,
) -> Result<bool, StoreError> {
    let sets = WRITTEN
        .split(',')
        .map(|c| format!("{} = ?", c.trim()))
        .collect::<Vec<_>>()
        .join(", ");
    let mut params: Vec<Val> = written(task)?.into();
    params.extend([
        task.status.as_str().into(),
        task.id.as_str().into(),
        expected.as_str().into(),
    ]);
    let n = sql.exec(
        &format!(
            "UPDATE tasks SET {sets}, \
             lease_until = CASE WHEN ? = 'in_progress' THEN lease_until ELSE NULL END \
             WHERE id = ? AND status = ?"
        ),
        &params,
    )?;
    if n != 1 {
        return Ok(false);
    }
    sql.exec(
        "DELETE FROM deps WHERE task_id = ?",
        &[task.id.as_str().into()],
    )?;
    insert_deps(sql, std::slice::from_ref(task))?;
    if task.status != expected {
        event(sql, &task.id, kind_of(task.status))?;
        if task.status.is_terminal() {
            sql.exec(
                "UPDATE tasks SET queued = 0, attempt = attempt + 1 WHERE id = ?",
                &[task.id.as_str().into()],
            )?;
            settle(sql, &task.id, task.status, now)?;
        }
    }
    Ok(true)
}

/// Deletes task `id` if it is pending, has no children and nothing depends on it; returns
/// why not otherwise.
pub(crate) fn delete(sql: &mut dyn Sql, id: &str) -> Result<Result<(), String>, StoreError> {
    let Some(task) = get(sql, id)? else {
        return Ok(Err("no such task".into()));
    };
    if task.status != Status::Pending {
        return Ok(Err(format!(
            "only pending tasks can be deleted; this one is {}",
            task.status
        )));
    }
    if !children(sql, id)?.is_empty() {
        return Ok(Err("it has children; delete them first".into()));
    }
    let dependents = dependents(sql, id)?;
    if !dependents.is_empty() {
        return Ok(Err(format!(
            "other tasks depend on it: {}",
            dependents.join(", ")
        )));
    }
    sql.exec("DELETE FROM deps WHERE task_id = ?", &[id.into()])?;
    sql.exec("DELETE FROM tasks WHERE id = ?", &[id.into()])?;
    Ok(Ok(()))
}

/// Returns the results of the dependencies of `task`, by id, for executors that use them.
pub(crate) fn dependency_results(
    sql: &mut dyn Sql,
    task: &Task,
) -> Result<Vec<(String, Status, Option<Value>)>, StoreError> {
    let mut out = Vec::with_capacity(task.dependencies.len());
    for dep in &task.dependencies {
        if let Some(t) = get(sql, &dep.id.to_ascii_lowercase())? {
            out.push((t.id, t.status, t.result));
        }
    }
    Ok(out)
}
