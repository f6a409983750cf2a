//! The ends of runs, many in one transaction: each recorded while its attempt still holds the
//! task (S3), its event appended, and its dependents brought up to date — the completions of a
//! batch in one statement per hundred dependents, so a root that waits for thousands of tasks
//! is written once per batch, not once per task. And the release of runs a worker gives back
//! when it shuts down.

use std::collections::BTreeMap;

use vouch_tasks::Status;

use super::events::{New, append, kind_of};
use super::lifecycle::settle;
use super::rows::{COLUMNS, json_text, task_and_root};
use crate::clock::Now;
use crate::store::sql::{Sql, Val};
use crate::store::{Outcome, StoreError};

/// Runs per statement.
const CHUNK: usize = 100;

/// Records how each run of `done` (task id, attempt, outcome) ended; returns, in order, whether
/// each was recorded (false: its attempt no longer held the task — nothing is written for it),
/// and whether completions were staged for a high fan-in dependent ([`apply_settles`]).
pub(crate) fn finish_many(
    sql: &mut dyn Sql,
    done: &[(String, i64, Outcome)],
    now: &Now,
) -> Result<(Vec<bool>, bool), StoreError> {
    let mut recorded: BTreeMap<&str, Status> = BTreeMap::new();
    let mut events = Vec::with_capacity(done.len());
    for chunk in done.chunks(CHUNK) {
        let rows = vec![
            "(CAST(? AS TEXT), CAST(? AS BIGINT), CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS DOUBLE PRECISION))";
            chunk.len()
        ]
        .join(", ");
        let mut params: Vec<Val> = vec![now.text.as_str().into(), now.text.as_str().into()];
        for (id, attempt, outcome) in chunk {
            let (status, result, error, progress) = match outcome {
                Outcome::Completed(r) => (Status::Completed, Some(r), None, Some(1.0)),
                Outcome::Failed(e) => (Status::Failed, None, Some(e), None),
            };
            params.extend([
                id.as_str().into(),
                (*attempt).into(),
                status.as_str().into(),
                json_text(result),
                json_text(error),
                progress.into(),
            ]);
        }
        let returned = sql.query(
            &format!(
                "UPDATE tasks SET status = v.column3, result = v.column4, error = v.column5, \
                 completed_at = ?, updated_at = ?, progress = COALESCE(v.column6, tasks.progress), \
                 lease_until = NULL, queued = 0 \
                 FROM (VALUES {rows}) AS v \
                 WHERE tasks.id = v.column1 AND tasks.attempt = v.column2 AND tasks.status = 'in_progress' \
                 RETURNING {}",
                qualified()
            ),
            &params,
        )?;
        for row in &returned {
            let (task, root) = task_and_root(row)?;
            events.push(New::of(&task, &root, kind_of(task.status)));
            if let Some((id, _, _)) = chunk.iter().find(|(id, _, _)| *id == task.id) {
                recorded.insert(id.as_str(), task.status);
            }
        }
    }
    append(sql, &events)?;
    // Dependents: completions settle them all, counted per dependent, in few statements; a
    // failure settles optional ones and cancels required ones in turn (rare: one by one).
    let completed: Vec<&str> = recorded
        .iter()
        .filter(|(_, s)| **s == Status::Completed)
        .map(|(id, _)| *id)
        .collect();
    let settled = settle_completed(sql, &completed)?;
    let mut ready = settled.ready;
    for (id, status) in &recorded {
        if *status != Status::Completed {
            settle(sql, id, *status, now)?;
            ready = true;
        }
    }
    if ready {
        sql.notify_ready()?;
    }
    let recorded = done
        .iter()
        .map(|(id, _, _)| recorded.contains_key(id.as_str()))
        .collect();
    Ok((recorded, settled.staged))
}

/// [`COLUMNS`] of the updated table, for a `RETURNING` beside a `FROM`.
fn qualified() -> String {
    COLUMNS
        .split(',')
        .map(|c| format!("tasks.{}", c.trim()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A dependent waiting for more than this many tasks gets its completions staged (`settles`)
/// and counted in batches, instead of one write of its row per batch of every worker.
const FAN_IN: i64 = 32;

/// How a batch of completions settled its dependents.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Settled {
    /// A queued task became ready.
    pub(crate) ready: bool,
    /// Some completions were staged for a high fan-in dependent.
    pub(crate) staged: bool,
}

/// Settles the dependents of the `completed` tasks: each pending dependent's count of unsettled
/// dependencies goes down by how many of its dependencies are among them — at once for most,
/// staged for those that wait for many tasks.
fn settle_completed(sql: &mut dyn Sql, completed: &[&str]) -> Result<Settled, StoreError> {
    let mut counts: BTreeMap<String, i64> = BTreeMap::new();
    for chunk in completed.chunks(CHUNK * 5) {
        let marks = vec!["?"; chunk.len()].join(", ");
        let params: Vec<Val> = chunk.iter().map(|id| (*id).into()).collect();
        for row in sql.query(
            &format!("SELECT task_id FROM deps WHERE dep_id IN ({marks})"),
            &params,
        )? {
            if let Some(id) = row.first().and_then(Val::text) {
                *counts.entry(id.to_owned()).or_default() += 1;
            }
        }
    }
    if counts.is_empty() {
        return Ok(Settled::default());
    }
    // Which dependents wait for many (read without a lock: a stale count only chooses the path).
    let mut many = Vec::new();
    let ids: Vec<&String> = counts.keys().collect();
    for chunk in ids.chunks(CHUNK * 5) {
        let marks = vec!["?"; chunk.len()].join(", ");
        let params: Vec<Val> = chunk.iter().map(|id| id.as_str().into()).collect();
        for row in sql.query(
            &format!("SELECT id FROM tasks WHERE id IN ({marks}) AND waiting > {FAN_IN}"),
            &params,
        )? {
            if let Some(id) = row.first().and_then(Val::text) {
                many.push(id.to_owned());
            }
        }
    }
    let mut staged = Vec::new();
    for id in &many {
        if let Some(n) = counts.remove(id) {
            staged.push((id.clone(), n));
        }
    }
    for chunk in staged.chunks(CHUNK * 2) {
        let rows = vec!["(?, ?)"; chunk.len()].join(", ");
        let mut params: Vec<Val> = Vec::with_capacity(chunk.len() * 2);
        for (id, n) in chunk {
            params.extend([id.as_str().into(), (*n).into()]);
        }
        sql.exec(
            &format!("INSERT INTO settles (task_id, n) VALUES {rows}"),
            &params,
        )?;
    }
    let counts: Vec<(String, i64)> = counts.into_iter().collect();
    Ok(Settled {
        ready: decrement(sql, &counts)?,
        staged: !staged.is_empty(),
    })
}

/// Lowers each pending task's count of unsettled dependencies by its number; returns true when
/// a queued task became ready.
fn decrement(sql: &mut dyn Sql, counts: &[(String, i64)]) -> Result<bool, StoreError> {
    let mut ready = false;
    for chunk in counts.chunks(CHUNK) {
        let rows = vec!["(CAST(? AS TEXT), CAST(? AS BIGINT))"; chunk.len()].join(", ");
        let mut params: Vec<Val> = Vec::with_capacity(chunk.len() * 2);
        for (id, n) in chunk {
            params.extend([id.as_str().into(), (*n).into()]);
        }
        for row in sql.query(
            &format!(
                "UPDATE tasks SET waiting = CASE WHEN tasks.waiting > v.column2 \
                 THEN tasks.waiting - v.column2 ELSE 0 END \
                 FROM (VALUES {rows}) AS v \
                 WHERE tasks.id = v.column1 AND tasks.status = 'pending' AND tasks.waiting > 0 \
                 RETURNING tasks.waiting, tasks.queued"
            ),
            &params,
        )? {
            ready |= row.first().and_then(Val::int) == Some(0)
                && row.get(1).and_then(Val::int) == Some(1);
        }
    }
    Ok(ready)
}

/// The most staged completions one call counts.
const APPLY: i64 = 5000;

/// Counts staged completions into their dependents: the dependents' rows are locked first, so
/// a tree being started (which recounts from scratch and drops what is staged for it) and this
/// never both count one completion. Returns (a queued task became ready, rows counted).
pub(crate) fn apply_settles(sql: &mut dyn Sql) -> Result<(bool, usize), StoreError> {
    let skip = sql.skip_locked();
    let waiting: Vec<String> = sql
        .query(
            &format!("SELECT DISTINCT task_id FROM settles ORDER BY task_id LIMIT {APPLY}"),
            &[],
        )?
        .iter()
        .filter_map(|r| r.first().and_then(Val::text).map(str::to_owned))
        .collect();
    if waiting.is_empty() {
        return Ok((false, 0));
    }
    let mut counts: BTreeMap<String, i64> = BTreeMap::new();
    let mut rows_counted = 0;
    for chunk in waiting.chunks(CHUNK) {
        let marks = vec!["?"; chunk.len()].join(", ");
        let params: Vec<Val> = chunk.iter().map(|id| id.as_str().into()).collect();
        let locked: Vec<Val> = sql
            .query(
                &format!("SELECT id FROM tasks WHERE id IN ({marks}) ORDER BY id {skip}"),
                &params,
            )?
            .into_iter()
            .filter_map(|r| r.into_iter().next())
            .collect();
        if locked.is_empty() {
            continue;
        }
        let marks = vec!["?"; locked.len()].join(", ");
        for row in sql.query(
            &format!("DELETE FROM settles WHERE task_id IN ({marks}) RETURNING task_id, n"),
            &locked,
        )? {
            if let (Some(id), Some(n)) = (
                row.first().and_then(Val::text),
                row.get(1).and_then(Val::int),
            ) {
                *counts.entry(id.to_owned()).or_default() += n;
                rows_counted += 1;
            }
        }
    }
    let counts: Vec<(String, i64)> = counts.into_iter().collect();
    let ready = decrement(sql, &counts)?;
    if ready {
        sql.notify_ready()?;
    }
    Ok((ready, rows_counted))
}

/// Gives back the runs `runs` (task id, attempt) still hold: each goes back to pending and
/// queued, its lease cleared and its attempt kept, so another worker claims it at once (the
/// next claim's attempt fences out any write of this one). Returns the ids released.
pub(crate) fn release(
    sql: &mut dyn Sql,
    runs: &[(String, i64)],
    now: &Now,
) -> Result<Vec<String>, StoreError> {
    let mut released = Vec::new();
    let mut events = Vec::new();
    for (id, attempt) in runs {
        let rows = sql.query(
            &format!(
                "UPDATE tasks SET status = 'pending', lease_until = NULL, worker = NULL, \
                 started_at = NULL, progress = 0, updated_at = ? \
                 WHERE id = ? AND attempt = ? AND status = 'in_progress' RETURNING {COLUMNS}"
            ),
            &[
                now.text.as_str().into(),
                id.as_str().into(),
                (*attempt).into(),
            ],
        )?;
        for row in &rows {
            let (task, root) = task_and_root(row)?;
            events.push(New::of(&task, &root, "task_status_update"));
            released.push(task.id);
        }
    }
    append(sql, &events)?;
    if !released.is_empty() {
        sql.notify_ready()?;
    }
    Ok(released)
}
