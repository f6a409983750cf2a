//! Firing schedules: what is due (through the `tasks_due` index), and one due time fired —
//! exactly once however many workers look: the row is taken only while it still holds the due
//! time seen (a compare-and-swap on `next_run_ms`), its schedule moves on (`run_count`,
//! `last_run_at`, the next time or the end), and its scope runs again: a root's whole tree, a
//! child with the tasks it depends on (the data model's scheduling scope).

use vouch_tasks::{ScheduleType, Task};

use super::events::event;
use super::lifecycle::{Started, start};
use super::rows::{COLUMNS, next_run_ms, task_and_root};
use crate::clock::Now;
use crate::store::StoreError;
use crate::store::sql::{Sql, Val};

/// A due time fired.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Fired {
    /// The scheduled task.
    pub task_id: String,
    /// Its tree.
    pub root_id: String,
    /// How the tree started; `None` when it was executing and this run was skipped.
    pub started: Option<Started>,
    /// When it is due next; `None` when its schedule ended.
    pub next_run_at: Option<String>,
}

/// Returns the tasks due at `now_ms` (milliseconds since the epoch) and their due times,
/// earliest first, at most `limit`.
pub(crate) fn due(
    sql: &mut dyn Sql,
    now_ms: i64,
    limit: i64,
) -> Result<Vec<(String, i64)>, StoreError> {
    Ok(sql
        .query(
            "SELECT id, next_run_ms FROM tasks WHERE next_run_ms IS NOT NULL AND next_run_ms <= ? \
             ORDER BY next_run_ms LIMIT ?",
            &[now_ms.into(), limit.into()],
        )?
        .iter()
        .filter_map(|r| Some((r.first()?.text()?.to_owned(), r.get(1)?.int()?)))
        .collect())
}

/// Returns the tasks with a schedule, earliest next time first: with `enabled_only`, those whose
/// schedule is on (and, with `before_ms`, due by then); otherwise also those whose schedule is
/// configured but off. At most `limit`.
pub(crate) fn scheduled(
    sql: &mut dyn Sql,
    enabled_only: bool,
    before_ms: Option<i64>,
    limit: i64,
) -> Result<Vec<Task>, StoreError> {
    let (filter, mut params): (&str, Vec<Val>) = match (enabled_only, before_ms) {
        (_, Some(before)) => (
            "next_run_ms IS NOT NULL AND next_run_ms <= ?",
            vec![before.into()],
        ),
        (true, None) => ("next_run_ms IS NOT NULL", vec![]),
        // A configured schedule keeps its type in the stored body (null fields are left out).
        (false, None) => (
            "(next_run_ms IS NOT NULL OR body LIKE '%\"schedule_type\":\"%')",
            vec![],
        ),
    };
    params.push(limit.into());
    super::rows::tasks(
        sql,
        &format!(
            "SELECT {COLUMNS} FROM tasks WHERE {filter} ORDER BY next_run_ms IS NULL, next_run_ms, seq LIMIT ?"
        ),
        &params,
    )
}

/// Fires the due time `due_ms` of task `id`, unless another worker did (then `None`).
pub(crate) fn fire(
    sql: &mut dyn Sql,
    id: &str,
    due_ms: i64,
    now: &Now,
) -> Result<Option<Fired>, StoreError> {
    let lock = sql.for_update();
    let q = format!("SELECT {COLUMNS} FROM tasks WHERE id = ? AND next_run_ms = ? {lock}");
    let Some(row) = sql.query(&q, &[id.into(), due_ms.into()])?.pop() else {
        return Ok(None);
    };
    let (mut task, root) = task_and_root(&row)?;
    advance(&mut task, due_ms, now);
    let body = serde_json::to_string(&task).map_err(|e| StoreError::Corrupt(e.to_string()))?;
    sql.exec(
        "UPDATE tasks SET body = ?, next_run_ms = ?, updated_at = ? WHERE id = ?",
        &[
            body.into(),
            next_run_ms(&task).into(),
            now.text.as_str().into(),
            id.into(),
        ],
    )?;
    let busy = !sql
        .query(
            "SELECT id FROM tasks WHERE root_id = ? AND status = 'in_progress' LIMIT 1",
            &[root.as_str().into()],
        )?
        .is_empty();
    let started = if busy {
        // The tree is still running its last run: this due time is skipped, not queued.
        event(sql, id, "schedule_skipped")?;
        None
    } else {
        let scope = scope(sql, &task, &root)?;
        for member in &scope {
            let reset = sql.exec(
                "UPDATE tasks SET status = 'pending', cascaded = 0, progress = NULL, \
                 result = NULL, error = NULL, started_at = NULL, completed_at = NULL, \
                 updated_at = ? WHERE id = ? AND status IN ('completed', 'failed', 'cancelled')",
                &[now.text.as_str().into(), member.as_str().into()],
            )?;
            if reset > 0 {
                event(sql, member, "task_status_update")?;
            }
        }
        event(sql, id, "schedule_fired")?;
        start(sql, &root, now)?.ok()
    };
    Ok(Some(Fired {
        task_id: id.to_owned(),
        root_id: root,
        started,
        next_run_at: task.next_run_at.clone(),
    }))
}

/// Moves `task`'s schedule past the due time `due_ms` fired at `now`: one more run, the next
/// time (an interval counts from the due time, skipping the times already past), or the end.
fn advance(task: &mut Task, due_ms: i64, now: &Now) {
    task.run_count = Some(task.run_count.unwrap_or(0) + 1);
    task.last_run_at = Some(now.text.clone());
    let now_at = jiff::Timestamp::now();
    let next = match (task.schedule_type, task.schedule_expression.as_deref()) {
        (Some(ScheduleType::Interval), Some(expr)) => {
            let step: i64 = expr.trim().parse().unwrap_or(0).max(1) * 1000;
            let now_ms = now_at.as_millisecond();
            let mut next = due_ms + step;
            if next <= now_ms {
                next += (now_ms - next) / step * step + step;
            }
            jiff::Timestamp::from_millisecond(next).ok()
        }
        (Some(kind), Some(expr)) => vouch_tasks::next_run(kind, expr, now_at),
        _ => None,
    };
    let ended = task
        .max_runs
        .is_some_and(|max| task.run_count.unwrap_or(0) >= max);
    let end = task
        .schedule_end_at
        .as_deref()
        .and_then(vouch_tasks::timestamp_micros);
    match next {
        Some(at) if !ended && end.is_none_or(|end| at.as_microsecond() <= end) => {
            task.next_run_at = Some(at.to_string());
        }
        _ => {
            task.next_run_at = None;
            task.schedule_enabled = Some(false);
        }
    }
}

/// The tasks a fired schedule runs again: the whole tree for a root; for a child, itself and
/// every task it depends on, directly or not.
fn scope(sql: &mut dyn Sql, task: &Task, root: &str) -> Result<Vec<String>, StoreError> {
    if task.parent_id.is_none() {
        return Ok(sql
            .query("SELECT id FROM tasks WHERE root_id = ?", &[root.into()])?
            .iter()
            .filter_map(|r| r.first().and_then(Val::text).map(str::to_owned))
            .collect());
    }
    let mut scope = vec![task.id.clone()];
    let mut i = 0;
    while i < scope.len() {
        let deps: Vec<String> = sql
            .query(
                "SELECT dep_id FROM deps WHERE task_id = ?",
                &[scope[i].as_str().into()],
            )?
            .iter()
            .filter_map(|r| r.first().and_then(Val::text).map(str::to_owned))
            .collect();
        for d in deps {
            if !scope.contains(&d) {
                scope.push(d);
            }
        }
        i += 1;
    }
    Ok(scope)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_interval_counts_from_its_due_time_and_skips_what_passed() {
        let mut task: Task = serde_json::from_value(serde_json::json!({
            "id": "3f2b8c1e-9d4a-4f6b-8a2c-1e5d7f9b0a3c", "name": "s", "status": "completed",
            "schedule_enabled": true, "schedule_type": "interval", "schedule_expression": "10",
            "max_runs": 3, "run_count": 1
        }))
        .expect("a task");
        let now = crate::clock::now();
        let due = jiff::Timestamp::now().as_millisecond() - 25_000;
        advance(&mut task, due, &now);
        assert_eq!(task.run_count, Some(2));
        let next = vouch_tasks::timestamp_micros(task.next_run_at.as_deref().expect("a next time"))
            .expect("a time")
            / 1000;
        // Due 25 s ago every 10 s: the next time is the first one still ahead, on the grid.
        assert_eq!((next - due) % 10_000, 0);
        assert!(next > jiff::Timestamp::now().as_millisecond() - 1000);
        advance(&mut task, next, &now);
        assert_eq!(
            (
                task.run_count,
                task.next_run_at.clone(),
                task.schedule_enabled
            ),
            (Some(3), None, Some(false))
        );
    }
}
