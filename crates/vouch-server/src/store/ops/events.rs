//! A tree's event stream: appending an event built from the task as stored, and reading the
//! events after a cursor — only those no transaction still in flight can precede.
use serde_json::{Map, Value};
use vouch_tasks::{Status, Task};

use super::rows::{row, task_and_root};
use crate::store::sql::{Sql, Val};
use crate::store::{Event, StoreError};

/// Appends an event of task `id` to its tree's stream, built from the task as stored now;
/// returns that task.
pub(crate) fn event(sql: &mut dyn Sql, id: &str, kind: &str) -> Result<Option<Task>, StoreError> {
    let Some(row) = row(sql, id)? else {
        return Ok(None);
    };
    let (task, root) = task_and_root(&row)?;
    append(sql, &[New::of(&task, &root, kind)])?;
    Ok(Some(task))
}

/// An event to append.
pub(crate) struct New {
    root: String,
    task_id: String,
    kind: &'static str,
    data: String,
}

impl New {
    /// The event `kind` of `task` (as it stands now) in tree `root`: its status, progress,
    /// result or error, the time and the root.
    pub(crate) fn of(task: &Task, root: &str, kind: &str) -> New {
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
        data.insert("root_task_id".into(), Value::String(root.to_owned()));
        New {
            root: root.to_owned(),
            task_id: task.id.clone(),
            kind: KINDS
                .iter()
                .find(|k| **k == kind)
                .copied()
                .unwrap_or("task_status_update"),
            data: Value::Object(data).to_string(),
        }
    }
}

/// Every event kind.
const KINDS: [&str; 5] = [
    "task_status_update",
    "task_progress_update",
    "task_completed",
    "task_failed",
    "task_cancelled",
];

/// Appends `events`, in order, a few statements for all.
pub(crate) fn append(sql: &mut dyn Sql, events: &[New]) -> Result<(), StoreError> {
    for chunk in events.chunks(200) {
        let now = sql.now_ms();
        let rows = vec![format!("(?, ?, ?, ?, {now})"); chunk.len()].join(", ");
        let mut params: Vec<Val> = Vec::with_capacity(chunk.len() * 4);
        for e in chunk {
            params.extend([
                e.root.as_str().into(),
                e.task_id.as_str().into(),
                e.kind.into(),
                e.data.as_str().into(),
            ]);
        }
        sql.exec(
            &format!("INSERT INTO events (root_id, task_id, kind, data, at_ms) VALUES {rows}"),
            &params,
        )?;
    }
    Ok(())
}

/// The event kind of a status.
pub(super) fn kind_of(status: Status) -> &'static str {
    match status {
        Status::Completed => "task_completed",
        Status::Failed => "task_failed",
        Status::Cancelled => "task_cancelled",
        Status::Pending | Status::InProgress => "task_status_update",
    }
}

/// Returns the events of the tree rooted at `root` after event `after`, at most `limit`.
pub(crate) fn events(
    sql: &mut dyn Sql,
    root: &str,
    after: i64,
    limit: i64,
) -> Result<Vec<Event>, StoreError> {
    let settled = sql.settled_events();
    let rows = sql.query(
        &format!(
            "SELECT seq, task_id, kind, data FROM events \
             WHERE root_id = ? AND seq > ? AND {settled} ORDER BY seq LIMIT ?"
        ),
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

/// Returns the id of tree `root`'s last event (0 when it has none).
pub(crate) fn last_event(sql: &mut dyn Sql, root: &str) -> Result<i64, StoreError> {
    Ok(sql
        .query(
            "SELECT COALESCE(MAX(seq), 0) FROM events WHERE root_id = ?",
            &[root.into()],
        )?
        .first()
        .and_then(|r| r.first()?.int())
        .unwrap_or(0))
}

/// Deletes up to `limit` events written before `before_ms` (milliseconds since the epoch),
/// oldest first; returns how many it deleted.
pub(crate) fn sweep(sql: &mut dyn Sql, before_ms: i64, limit: i64) -> Result<u64, StoreError> {
    sql.exec(
        "DELETE FROM events WHERE seq IN \
         (SELECT seq FROM events WHERE at_ms < ? ORDER BY at_ms LIMIT ?)",
        &[before_ms.into(), limit.into()],
    )
}
