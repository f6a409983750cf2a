//! Tasks as rows: the columns every query reads and how a row becomes a task, reading tasks
//! back (one, a tree, a page, children, descendants), and inserting a tree with its
//! dependencies.
use serde_json::{Map, Value};
use vouch_tasks::{Status, Task};

use crate::store::sql::{Row, Sql, Val};
use crate::store::{ListQuery, StoreError};

/// The columns every task query selects, in the order [`task_of`] reads them.
pub(crate) const COLUMNS: &str = "id, status, progress, result, error, updated_at, started_at, \
     completed_at, body, attempt, root_id";

/// Builds a task and the id of its tree's root from a row of [`COLUMNS`].
pub(crate) fn task_and_root(row: &Row) -> Result<(Task, String), StoreError> {
    let task = task_of(row)?;
    let root = row
        .get(10)
        .and_then(Val::text)
        .unwrap_or(&task.id)
        .to_owned();
    Ok((task, root))
}

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
pub(super) fn row(sql: &mut dyn Sql, id: &str) -> Result<Option<Row>, StoreError> {
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

/// Returns a page of the tasks whose parent is `id`, in creation order, and how many there
/// are in all.
pub(crate) fn children(
    sql: &mut dyn Sql,
    id: &str,
    limit: i64,
    offset: i64,
) -> Result<(Vec<Task>, i64), StoreError> {
    let total = sql
        .query(
            "SELECT COUNT(*) FROM tasks WHERE parent_id = ?",
            &[id.into()],
        )?
        .first()
        .and_then(|r| r.first())
        .and_then(Val::int)
        .unwrap_or(0);
    let q =
        format!("SELECT {COLUMNS} FROM tasks WHERE parent_id = ? ORDER BY seq LIMIT ? OFFSET ?");
    Ok((
        tasks(sql, &q, &[id.into(), limit.into(), offset.into()])?,
        total,
    ))
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
        // The key of the `tasks_status` index (see its migration): the status itself.
        clauses.push("status || '' = ?");
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
            "SELECT status || '', COUNT(*) FROM tasks GROUP BY status || '' ORDER BY 1",
            &[],
        )?
        .iter()
        .filter_map(|r| Some((r.first()?.text()?.to_owned(), r.get(1)?.int()?)))
        .collect())
}

/// When `task`'s enabled schedule is next due, in milliseconds since the epoch; `None` when it
/// has no enabled schedule with a next time.
pub(crate) fn next_run_ms(task: &Task) -> Option<i64> {
    if task.schedule_enabled != Some(true) {
        return None;
    }
    let at = vouch_tasks::timestamp_micros(task.next_run_at.as_deref()?)?;
    Some(at.div_euclid(1000))
}

/// The body stored for `task`.
fn body(task: &Task) -> Result<String, StoreError> {
    serde_json::to_string(task).map_err(|e| StoreError::Corrupt(e.to_string()))
}

pub(super) fn json_text(value: Option<&Value>) -> Val {
    Val::Text(value.map(Value::to_string))
}

/// Rows per multi-row `INSERT`: few round trips, well under both databases' parameter limits.
const INSERT_BATCH: usize = 200;

/// Inserts the tasks of one tree, whose root is `root`. Ids must be new.
pub(crate) fn insert(sql: &mut dyn Sql, tasks: &[Task], root: &str) -> Result<(), StoreError> {
    for chunk in tasks.chunks(INSERT_BATCH) {
        let mut params: Vec<Val> = Vec::with_capacity(chunk.len() * 15);
        for task in chunk {
            params.extend([
                task.id.as_str().into(),
                root.into(),
                task.created_at.clone().into(),
            ]);
            params.extend(written(task)?);
        }
        let rows = vec!["(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"; chunk.len()].join(", ");
        sql.exec(
            &format!("INSERT INTO tasks (id, root_id, created_at, {WRITTEN}) VALUES {rows}"),
            &params,
        )?;
    }
    insert_deps(sql, tasks)
}

/// The columns a caller's task sets, in the order [`written`] gives their values.
pub(super) const WRITTEN: &str = "parent_id, user_id, priority, status, progress, result, error, \
     updated_at, started_at, completed_at, body, next_run_ms";

/// The values of [`WRITTEN`] for `task`.
pub(super) fn written(task: &Task) -> Result<[Val; 12], StoreError> {
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
        next_run_ms(task).into(),
    ])
}

/// Records the dependencies of `tasks`.
pub(super) fn insert_deps(sql: &mut dyn Sql, tasks: &[Task]) -> Result<(), StoreError> {
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

/// Returns the ids of the tasks under `id` (children, theirs, …), at most `limit`.
pub(crate) fn descendants(
    sql: &mut dyn Sql,
    id: &str,
    limit: i64,
) -> Result<Vec<String>, StoreError> {
    Ok(sql
        .query(
            "WITH RECURSIVE sub(id, seq) AS (\
               SELECT id, seq FROM tasks WHERE parent_id = ? \
               UNION ALL SELECT t.id, t.seq FROM tasks t JOIN sub ON t.parent_id = sub.id) \
             SELECT id FROM sub ORDER BY seq LIMIT ?",
            &[id.into(), limit.into()],
        )?
        .iter()
        .filter_map(|r| r.first().and_then(Val::text).map(str::to_owned))
        .collect())
}

/// Returns task `id` and the tasks under it, in creation order, at most `limit`.
pub(crate) fn subtree(sql: &mut dyn Sql, id: &str, limit: i64) -> Result<Vec<Task>, StoreError> {
    let q = format!(
        "WITH RECURSIVE sub(id) AS (\
           SELECT id FROM tasks WHERE id = ? \
           UNION ALL SELECT t.id FROM tasks t JOIN sub ON t.parent_id = sub.id) \
         SELECT {COLUMNS} FROM tasks WHERE id IN (SELECT id FROM sub) ORDER BY seq LIMIT ?"
    );
    tasks(sql, &q, &[id.into(), limit.into()])
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
