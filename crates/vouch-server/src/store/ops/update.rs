//! The caller's writes to one task: an update as a compare-and-swap on the fields it changes,
//! and a delete under the row's lock.
use serde_json::{Map, Value};
use vouch_tasks::{Status, Task};

use super::events::{event, kind_of};
use super::lifecycle::{Scope, recount, settle};
use super::rows::{COLUMNS, WRITTEN, dependents, get, insert_deps, task_of, written};
use crate::clock::Now;
use crate::store::sql::{Sql, Val};
use crate::store::{NotDeleted, StoreError};

/// What an update found.
#[derive(Debug, Clone, PartialEq)]
pub enum Updated {
    /// The task as stored after the update.
    Done(Box<Task>),
    /// The task is gone.
    Missing,
    /// Field `0` changed since the caller read the task: nothing was written.
    Conflict(String),
    /// Dependency `0` does not exist (any more): nothing was written.
    NoDependency(String),
}

/// The fields stored in a column of their own beside the body.
const COLUMN_FIELDS: &[&str] = &[
    "parent_id",
    "user_id",
    "priority",
    "status",
    "progress",
    "result",
    "error",
    "started_at",
    "completed_at",
];

/// Writes the fields in which `task` differs from `stored` (the task as the caller read it),
/// when each of them still holds the value the caller read: a compare-and-swap on exactly the
/// fields the update changes, so that what the engine wrote meanwhile to other fields (a
/// reclaim's attempt and start time) stays. A changed dependency list recomputes the task's
/// count of unsettled dependencies, with those dependencies kept from changing until the
/// transaction ends; a new status is an event and, terminal, settles the dependents; a changed
/// progress is an event.
pub(crate) fn update(
    sql: &mut dyn Sql,
    stored: &Task,
    task: &Task,
    now: &Now,
) -> Result<Updated, StoreError> {
    let lock = sql.for_update();
    let id = task.id.as_str();
    let q = format!("SELECT {COLUMNS} FROM tasks WHERE id = ? {lock}");
    let Some(row) = sql.query(&q, &[id.into()])?.pop() else {
        return Ok(Updated::Missing);
    };
    let current = task_of(&row)?;
    let (before, after, now_map) = (as_map(stored)?, as_map(task)?, as_map(&current)?);
    let mut changed: Vec<&str> = Vec::new();
    for key in before.keys().chain(after.keys()) {
        if key != "updated_at"
            && before.get(key) != after.get(key)
            && !changed.contains(&key.as_str())
        {
            changed.push(key);
        }
    }
    if let Some(field) = changed.iter().find(|k| now_map.get(**k) != before.get(**k)) {
        return Ok(Updated::Conflict((*field).to_owned()));
    }
    let deps_changed = changed.contains(&"dependencies");
    if deps_changed && let Some(missing) = lock_dependencies(sql, task)? {
        return Ok(Updated::NoDependency(missing));
    }
    // The body: what is stored now, with the changed fields written over it.
    let body_text = row.get(8).and_then(Val::text).unwrap_or("{}");
    let mut body: Map<String, Value> = serde_json::from_str(body_text)
        .map_err(|e| StoreError::Corrupt(format!("a stored task is not JSON: {e}")))?;
    for key in &changed {
        match after.get(*key) {
            Some(v) => body.insert((*key).to_owned(), v.clone()),
            None => body.remove(*key),
        };
    }
    body.insert("updated_at".into(), Value::String(now.text.clone()));
    let values = written(task)?;
    let mut sets = vec!["body = ?".to_owned(), "updated_at = ?".to_owned()];
    let mut params: Vec<Val> = vec![
        Value::Object(body).to_string().into(),
        now.text.as_str().into(),
    ];
    for (i, column) in WRITTEN.split(',').map(str::trim).enumerate() {
        // The next due time follows the schedule's fields the update changed.
        let schedule = column == "next_run_ms"
            && ["next_run_at", "schedule_enabled"]
                .iter()
                .any(|k| changed.contains(k));
        if schedule || COLUMN_FIELDS.contains(&column) && changed.contains(&column) {
            sets.push(format!("{column} = ?"));
            params.push(values[i].clone());
        }
    }
    if task.status != stored.status && task.status != Status::InProgress {
        sets.push("lease_until = NULL".into());
    }
    params.push(id.into());
    sql.exec(
        &format!("UPDATE tasks SET {} WHERE id = ?", sets.join(", ")),
        &params,
    )?;
    if deps_changed {
        sql.exec("DELETE FROM deps WHERE task_id = ?", &[id.into()])?;
        insert_deps(sql, std::slice::from_ref(task))?;
        recount(sql, Scope::Task, id)?;
    }
    if task.status != stored.status {
        event(sql, id, kind_of(task.status))?;
        if task.status.is_terminal() {
            sql.exec(
                "UPDATE tasks SET queued = 0, attempt = attempt + 1 WHERE id = ?",
                &[id.into()],
            )?;
            settle(sql, id, task.status, now)?;
        }
    } else if changed.contains(&"progress") {
        event(sql, id, "task_progress_update")?;
    }
    get(sql, id).map(|t| t.map_or(Updated::Missing, |t| Updated::Done(Box::new(t))))
}

/// Returns `task` as a JSON map.
fn as_map(task: &Task) -> Result<Map<String, Value>, StoreError> {
    match serde_json::to_value(task) {
        Ok(Value::Object(m)) => Ok(m),
        Ok(_) => Err(StoreError::Corrupt("a task is not an object".into())),
        Err(e) => Err(StoreError::Corrupt(e.to_string())),
    }
}

/// Keeps the dependencies of `task` from changing until the transaction ends; returns the
/// first that does not exist.
fn lock_dependencies(sql: &mut dyn Sql, task: &Task) -> Result<Option<String>, StoreError> {
    let share = sql.for_share();
    for dep in &task.dependencies {
        let dep = dep.id.to_ascii_lowercase();
        if sql
            .query(
                &format!("SELECT id FROM tasks WHERE id = ? {share}"),
                &[dep.as_str().into()],
            )?
            .is_empty()
        {
            return Ok(Some(dep));
        }
    }
    Ok(None)
}

/// Deletes task `id` — and its events — if it is pending, has no children and nothing depends
/// on it; returns why not otherwise. The row is locked while the conditions are checked, and
/// the delete repeats the status condition.
pub(crate) fn delete(sql: &mut dyn Sql, id: &str) -> Result<Result<(), NotDeleted>, StoreError> {
    let lock = sql.for_update();
    let Some(row) = sql
        .query(
            &format!("SELECT {COLUMNS} FROM tasks WHERE id = ? {lock}"),
            &[id.into()],
        )?
        .pop()
    else {
        return Ok(Err(NotDeleted::NoSuchTask));
    };
    let task = task_of(&row)?;
    if task.status != Status::Pending {
        return Ok(Err(NotDeleted::Refused(format!(
            "only pending tasks can be deleted; this one is {}",
            task.status
        ))));
    }
    if !sql
        .query(
            "SELECT id FROM tasks WHERE parent_id = ? LIMIT 1",
            &[id.into()],
        )?
        .is_empty()
    {
        return Ok(Err(NotDeleted::Refused(
            "it has children; delete them first".into(),
        )));
    }
    let dependents = dependents(sql, id)?;
    if !dependents.is_empty() {
        return Ok(Err(NotDeleted::Refused(format!(
            "other tasks depend on it: {}",
            dependents.join(", ")
        ))));
    }
    if sql.exec(
        "DELETE FROM tasks WHERE id = ? AND status = 'pending'",
        &[id.into()],
    )? != 1
    {
        return Ok(Err(NotDeleted::Refused(
            "it changed while it was being deleted; read it again".into(),
        )));
    }
    sql.exec("DELETE FROM deps WHERE task_id = ?", &[id.into()])?;
    sql.exec("DELETE FROM events WHERE task_id = ?", &[id.into()])?;
    Ok(Ok(()))
}
