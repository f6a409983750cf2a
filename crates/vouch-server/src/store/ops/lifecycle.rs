//! The engine's writes: claims under leases by the database's clock, renewals, progress, the
//! end of a run, cancellations, starting a tree, and the bookkeeping of dependents every
//! terminal status triggers (decision S6); and how a tree stands.
use vouch_tasks::Status;

use super::events::{New, append, event};
use super::rows::{COLUMNS, task_of};
use crate::clock::Now;
use crate::store::sql::{Row, Sql, Val};
use crate::store::{Claimed, StoreError};

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
/// priority and creation (S2). Each claim bumps the attempt, the fencing token. Leases are
/// measured by the database's clock, which every worker shares.
pub(crate) fn claim(
    sql: &mut dyn Sql,
    worker: &str,
    n: usize,
    lease_ms: i64,
    now: &Now,
) -> Result<Vec<Claimed>, StoreError> {
    let mut claimed = Vec::new();
    let lock = sql.skip_locked();
    let clock = sql.now_ms();
    let pick = [
        format!(
            "SELECT seq FROM tasks WHERE status = 'in_progress' AND lease_until < {clock} \
             ORDER BY lease_until LIMIT ? {lock}"
        ),
        format!(
            "SELECT seq FROM tasks WHERE queued = 1 AND status = 'pending' AND waiting = 0 \
             ORDER BY priority, seq LIMIT ? {lock}"
        ),
    ];
    for pick in &pick {
        let want = n.saturating_sub(claimed.len());
        if want == 0 {
            break;
        }
        let want = i64::try_from(want).unwrap_or(1);
        let params: Vec<Val> = vec![
            lease_ms.into(),
            worker.into(),
            now.text.as_str().into(),
            now.text.as_str().into(),
            want.into(),
        ];
        let rows = sql.query(
            &format!(
                "UPDATE tasks SET status = 'in_progress', attempt = attempt + 1, \
                 lease_until = {clock} + ?, worker = ?, started_at = ?, updated_at = ?, \
                 progress = 0, result = NULL, error = NULL \
                 WHERE seq IN ({pick}) RETURNING {COLUMNS}"
            ),
            &params,
        )?;
        let mut events = Vec::with_capacity(rows.len());
        for row in &rows {
            let (task, attempt, root) = (
                task_of(row)?,
                row.get(9).and_then(Val::int),
                row.get(10).and_then(Val::text),
            );
            let (Some(attempt), Some(root)) = (attempt, root) else {
                continue;
            };
            events.push(New::of(&task, root, "task_status_update"));
            claimed.push(Claimed { task, attempt });
        }
        append(sql, &events)?;
    }
    Ok(claimed)
}

/// Extends the leases of `leases` (task id and attempt) that their attempts still hold, by the
/// database's clock; returns those it extended.
pub(crate) fn renew(
    sql: &mut dyn Sql,
    leases: &[(String, i64)],
    lease_ms: i64,
) -> Result<Vec<(String, i64)>, StoreError> {
    let clock = sql.now_ms();
    let mut renewed = Vec::with_capacity(leases.len());
    for chunk in leases.chunks(200) {
        let pairs = vec!["(id = ? AND attempt = ?)"; chunk.len()].join(" OR ");
        let mut params: Vec<Val> = vec![lease_ms.into()];
        for (id, attempt) in chunk {
            params.push(id.as_str().into());
            params.push((*attempt).into());
        }
        for row in sql.query(
            &format!(
                "UPDATE tasks SET lease_until = {clock} + ? \
                 WHERE status = 'in_progress' AND ({pairs}) RETURNING id, attempt"
            ),
            &params,
        )? {
            if let (Some(id), Some(attempt)) = (
                row.first().and_then(Val::text),
                row.get(1).and_then(Val::int),
            ) {
                renewed.push((id.to_owned(), attempt));
            }
        }
    }
    Ok(renewed)
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
/// The tree's rows are locked first, so that the refusal of a tree that is executing and the
/// start are one decision, and no task of it ends while its dependents' counts are rebuilt.
/// The error holds the ids of the tasks executing.
pub(crate) fn start(
    sql: &mut dyn Sql,
    root: &str,
    now: &Now,
) -> Result<Result<Started, Vec<String>>, StoreError> {
    let lock = sql.for_update();
    sql.query(
        &format!("SELECT seq FROM tasks WHERE root_id = ? ORDER BY seq {lock}"),
        &[root.into()],
    )?;
    let running: Vec<String> = sql
        .query(
            "SELECT id FROM tasks WHERE root_id = ? AND status = 'in_progress' ORDER BY seq",
            &[root.into()],
        )?
        .iter()
        .filter_map(|r| r.first().and_then(Val::text).map(str::to_owned))
        .collect();
    if !running.is_empty() {
        return Ok(Err(running));
    }
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
    recount(sql, Scope::Tree, root)?;
    started.queued = sql.exec(
        "UPDATE tasks SET queued = 1 WHERE root_id = ? AND status = 'pending'",
        &[root.into()],
    )?;
    if started.queued > 0 {
        sql.notify_ready()?;
    }
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
    Ok(Ok(started))
}

/// How a tree stands: how many of its tasks have not ended, and how many of those can move
/// without a new `tasks.execute` (queued to run, or running).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Openness {
    /// Tasks pending or running.
    pub open: i64,
    /// Tasks queued to run or running.
    pub active: i64,
}

/// Returns how the tree rooted at `root` stands.
pub(crate) fn open(sql: &mut dyn Sql, root: &str) -> Result<Openness, StoreError> {
    let row = sql
        .query(
            "SELECT COUNT(*), COALESCE(SUM(CASE WHEN status = 'in_progress' OR queued = 1 \
             THEN 1 ELSE 0 END), 0) FROM tasks \
             WHERE root_id = ? AND status IN ('pending', 'in_progress')",
            &[root.into()],
        )?
        .pop()
        .unwrap_or_default();
    Ok(Openness {
        open: row.first().and_then(Val::int).unwrap_or(0),
        active: row.get(1).and_then(Val::int).unwrap_or(0),
    })
}

/// Which pending tasks [`recount`] counts for.
#[derive(Debug, Clone, Copy)]
pub(super) enum Scope {
    /// Every task of the tree rooted at the key.
    Tree,
    /// The task whose id is the key.
    Task,
}

/// Recounts the unsettled dependencies of the pending tasks of `scope` `key`: a required one
/// until it completed, an optional one until it ended.
pub(super) fn recount(sql: &mut dyn Sql, scope: Scope, key: &str) -> Result<(), StoreError> {
    let column = match scope {
        Scope::Tree => "root_id",
        Scope::Task => "id",
    };
    // What is staged for these tasks is counted again below, from the truth.
    sql.exec(
        &format!(
            "DELETE FROM settles WHERE task_id IN \
             (SELECT id FROM tasks WHERE {column} = ? AND status = 'pending')"
        ),
        &[key.into()],
    )?;
    // Set-based, not a count per task: one pass over the tree's dependencies whatever plan the
    // database picks (a per-task count planned on stale statistics can scan every dependency
    // of the store for each task).
    sql.exec(
        &format!(
            "UPDATE tasks SET waiting = 0 WHERE {column} = ? AND status = 'pending' AND waiting <> 0"
        ),
        &[key.into()],
    )?;
    sql.exec(
        &format!(
            "UPDATE tasks SET waiting = c.n FROM (\
             SELECT d.task_id AS id, COUNT(*) AS n FROM tasks t \
             JOIN deps d ON d.task_id = t.id JOIN tasks u ON u.id = d.dep_id \
             WHERE t.{column} = ? AND t.status = 'pending' AND \
             ((d.required = 1 AND u.status <> 'completed') OR \
              (d.required = 0 AND u.status NOT IN ('completed', 'failed', 'cancelled'))) \
             GROUP BY d.task_id) AS c \
             WHERE tasks.id = c.id"
        ),
        &[key.into()],
    )?;
    Ok(())
}
