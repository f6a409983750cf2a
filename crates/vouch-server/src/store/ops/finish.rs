//! The ends of runs, many in one transaction: each recorded while its attempt still holds the
//! task (S3), its event appended, and its dependents brought up to date — the completions of a
//! batch in one statement per hundred dependents, so a root that waits for thousands of tasks
//! is written once per batch, not once per task. And the release of runs a worker gives back
//! when it shuts down.

use std::collections::BTreeMap;

use vouch_tasks::Status;

use super::events::{New, append, kind_of};
use super::lifecycle::settle;
use super::rows::{COLUMNS, json_text, task_of};
use crate::clock::Now;
use crate::store::sql::{Sql, Val};
use crate::store::{Outcome, StoreError};

/// Runs per statement.
const CHUNK: usize = 100;

/// Records how each run of `done` (task id, attempt, outcome) ended; returns, in order, whether
/// each was recorded (false: its attempt no longer held the task — nothing is written for it).
pub(crate) fn finish_many(
    sql: &mut dyn Sql,
    done: &[(String, i64, Outcome)],
    now: &Now,
) -> Result<Vec<bool>, StoreError> {
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
            let task = task_of(row)?;
            let root = row
                .get(10)
                .and_then(Val::text)
                .unwrap_or(&task.id)
                .to_owned();
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
    let mut ready = settle_completed(sql, &completed)?;
    for (id, status) in &recorded {
        if *status != Status::Completed {
            settle(sql, id, *status, now)?;
            ready = true;
        }
    }
    if ready {
        sql.notify_ready()?;
    }
    Ok(done
        .iter()
        .map(|(id, _, _)| recorded.contains_key(id.as_str()))
        .collect())
}

/// [`COLUMNS`] of the updated table, for a `RETURNING` beside a `FROM`.
fn qualified() -> String {
    COLUMNS
        .split(',')
        .map(|c| format!("tasks.{}", c.trim()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Settles the dependents of the `completed` tasks: each pending dependent's count of unsettled
/// dependencies goes down by how many of its dependencies are among them. Returns true when a
/// queued task became ready.
fn settle_completed(sql: &mut dyn Sql, completed: &[&str]) -> Result<bool, StoreError> {
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
    let counts: Vec<(String, i64)> = counts.into_iter().collect();
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
            let task = task_of(row)?;
            let root = row
                .get(10)
                .and_then(Val::text)
                .unwrap_or(&task.id)
                .to_owned();
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
