//! The methods that change stored tasks: `tasks.update`, `tasks.delete`, `tasks.cancel`.

use serde_json::{Map, Value, json};
use vouch_tasks::{Status, Task, check_transition};

use super::create::failure_of;
use super::{Params, Service, internal, not_found, refused, to_json};
use crate::clock::now;
use crate::rpc::{Failure, code};
use crate::store::{NotDeleted, Updated};

/// Fields a caller may not write: the id is the task's key; the engine keeps the rest.
const FIXED: &[&str] = &["id", "created_at", "updated_at"];

/// Fields that may not change while the task executes.
const FIXED_WHILE_EXECUTING: &[&str] = &["parent_id", "user_id"];

impl Service {
    pub(super) fn update(&self, p: &Params<'_>) -> Result<Value, Failure> {
        let id = p.task_id()?;
        let stored = self
            .store
            .get(&id)
            .map_err(|e| internal(&e))?
            .ok_or_else(|| not_found(&id))?;
        let mut fields = update_fields(p)?;
        if let Some(failure) = super::fields::type_errors(&fields) {
            return Err(failure);
        }
        if fields
            .get("id")
            .and_then(Value::as_str)
            .is_some_and(|s| s.eq_ignore_ascii_case(&id))
        {
            fields.remove("id");
        }
        if let Some(key) = FIXED.iter().find(|k| fields.contains_key(**k)) {
            return Err(refused(
                code::INVALID_SCHEMA,
                format!("`{key}` cannot be changed"),
                json!({"field": key}),
            ));
        }
        if stored.status == Status::InProgress
            && let Some(key) = FIXED_WHILE_EXECUTING.iter().find(|k| {
                fields
                    .get(**k)
                    .is_some_and(|v| Some(v) != to_json(&stored).get(**k))
            })
        {
            return Err(refused(
                code::ALREADY_EXECUTING,
                format!("`{key}` cannot change while the task executes"),
                json!({"field": key, "task_id": id}),
            ));
        }
        if fields.contains_key("next_run_at") {
            return Err(Failure::invalid_params(
                "`next_run_at` is computed by the scheduler; change the schedule's fields instead",
            ));
        }
        let mut task = patched(&stored, &fields)?;
        if super::schedule::SCHEDULE_FIELDS
            .iter()
            .any(|k| fields.contains_key(*k))
        {
            super::schedule::plan(&mut task, jiff::Timestamp::now());
        }
        if task.status != stored.status {
            check_transition(stored.status, task.status).map_err(|issue| {
                Failure::new(
                    code::INVALID_TRANSITION,
                    Some(json!({"errors": [issue], "from": stored.status, "to": task.status})),
                )
            })?;
            if task.status == Status::InProgress {
                self.dependencies_met(&task)?;
            }
            lifecycle(&mut task, stored.status, &fields);
        }
        task.updated_at = Some(now().text);
        if let Some(method) = task.schemas.as_ref().map(|s| s.method.clone())
            && self.registry.get(&method).is_none()
        {
            return Err(refused(
                code::EXECUTOR_NOT_FOUND,
                format!("no executor `{method}`"),
                json!({"field": "schemas.method"}),
            ));
        }
        self.check_update(&stored, &task)?;
        match self
            .store
            .update(&stored, &task)
            .map_err(|e| internal(&e))?
        {
            Updated::Done(saved) => {
                if saved.status.is_terminal() {
                    self.signals.stop(&id);
                }
                self.signals.wake();
                Ok(to_json(&saved))
            }
            Updated::Missing => Err(not_found(&id)),
            Updated::Conflict(field) => Err(refused(
                code::INVALID_TRANSITION,
                format!("`{field}` changed while this update was made; read the task again"),
                json!({"field": field, "task_id": id}),
            )),
            Updated::NoDependency(dep) => Err(refused(
                code::INVALID_DEPENDENCY,
                format!("dependency {dep} does not exist"),
                json!({"field": "dependencies", "task_id": id, "dependency": dep}),
            )),
        }
    }

    /// Checks the updated task with every rule that its change can break: the task's own rules
    /// alone when its parent and dependencies stay — an update of one task's progress reads
    /// nothing else — and the whole tree's when either changed (a new parent or dependency can
    /// break the tree or close a cycle).
    fn check_update(&self, stored: &Task, task: &Task) -> Result<(), Failure> {
        let structural =
            stored.parent_id != task.parent_id || stored.dependencies != task.dependencies;
        let (errors, warnings) = if structural {
            let mut tree = self.tree_of(&task.id)?;
            if let Some(slot) = tree.iter_mut().find(|t| t.id == task.id) {
                *slot = task.clone();
            }
            let report = validated(&tree)?;
            (report.errors, report.warnings)
        } else {
            // The task alone, without what ties it to others (checked when it was stored).
            let mut alone = task.clone();
            alone.parent_id = None;
            alone.dependencies.clear();
            let report = validated(std::slice::from_ref(&alone))?;
            (report.errors, report.warnings)
        };
        match failure_of(&errors, &warnings) {
            Some(failure) => Err(failure),
            None => Ok(()),
        }
    }

    /// Refuses to start `task` before its required dependencies completed and its optional
    /// ones ended.
    fn dependencies_met(&self, task: &Task) -> Result<(), Failure> {
        let found = self
            .store
            .dependency_results(task)
            .map_err(|e| internal(&e))?;
        let unmet: Vec<&str> = task
            .dependencies
            .iter()
            .filter(|d| {
                let status = found
                    .iter()
                    .find(|(id, _, _)| id.eq_ignore_ascii_case(&d.id))
                    .map(|(_, s, _)| *s);
                match status {
                    Some(Status::Completed) => false,
                    Some(s) if !d.required => !s.is_terminal(),
                    _ => true,
                }
            })
            .map(|d| d.id.as_str())
            .collect();
        if unmet.is_empty() {
            return Ok(());
        }
        Err(refused(
            code::DEPENDENCY_NOT_SATISFIED,
            "a task starts only when its required dependencies completed and its optional ones ended",
            json!({"task_id": task.id, "dependencies": unmet}),
        ))
    }

    pub(super) fn delete(&self, p: &Params<'_>) -> Result<Value, Failure> {
        let id = p.task_id()?;
        match self.store.delete(&id).map_err(|e| internal(&e))? {
            Ok(()) => Ok(json!({"success": true, "deleted": id})),
            Err(NotDeleted::NoSuchTask) => Err(not_found(&id)),
            Err(NotDeleted::Refused(why)) => {
                Err(refused(code::CANNOT_DELETE, why, json!({"task_id": id})))
            }
        }
    }

    pub(super) fn cancel(&self, p: &Params<'_>) -> Result<Value, Failure> {
        let id = p.task_id()?;
        let with_children = p.flag("children", true)?;
        let reason = p
            .string("reason")?
            .unwrap_or("cancelled by request")
            .to_owned();
        let task = self
            .store
            .get(&id)
            .map_err(|e| internal(&e))?
            .ok_or_else(|| not_found(&id))?;
        if task.status.is_terminal() {
            return Err(check_transition(task.status, Status::Cancelled)
                .err()
                .map_or_else(
                    || Failure::new(code::INVALID_TRANSITION, None),
                    |issue| {
                        Failure::new(code::INVALID_TRANSITION, Some(json!({"errors": [issue]})))
                    },
                ));
        }
        let mut ids = vec![id.clone()];
        if with_children {
            // Only what has not ended is cancelled; the store skips the rest.
            ids.extend(
                self.store
                    .descendants(&id, u64::MAX)
                    .map_err(|e| internal(&e))?,
            );
        }
        let cancelled = self.store.cancel(&ids, &reason).map_err(|e| internal(&e))?;
        for c in &cancelled {
            self.signals.stop(c);
        }
        self.signals.wake();
        // The page's `{task_id, status}`; `cancelled` lists every task this call cancelled.
        Ok(json!({"task_id": id, "status": "cancelled", "cancelled": cancelled}))
    }
}

/// Returns the fields an update writes: the interface page's `updates` object; or, as vouch's
/// extension, the fields beside `task_id` when there is no `updates` (both at once is refused).
fn update_fields(p: &Params<'_>) -> Result<Map<String, Value>, Failure> {
    let mut flat: Map<String, Value> = p.map().cloned().unwrap_or_default();
    flat.remove("task_id");
    match flat.remove("updates") {
        None | Some(Value::Null) => Ok(flat),
        Some(Value::Object(updates)) => {
            flat.remove("id");
            if let Some(key) = flat.keys().next() {
                return Err(Failure::invalid_params(format!(
                    "`{key}` goes inside `updates` (the fields to change), not beside it"
                )));
            }
            Ok(updates)
        }
        Some(_) => Err(Failure::invalid_params(
            "`updates` must be an object: the fields to change",
        )),
    }
}

/// The stored task with `fields` written over it (`null` removes a field).
fn patched(stored: &Task, fields: &Map<String, Value>) -> Result<Task, Failure> {
    let mut map = super::wire::stored(stored);
    for (k, v) in fields {
        if v.is_null() {
            map.remove(k);
        } else {
            map.insert(k.clone(), v.clone());
        }
    }
    serde_json::from_value(Value::Object(map)).map_err(|e| {
        Failure::new(
            code::INVALID_SCHEMA,
            Some(json!({"reason": format!("the updated task does not read: {e}")})),
        )
    })
}

/// Sets the fields the lifecycle ties to a status change the caller made.
fn lifecycle(task: &mut Task, from: Status, fields: &Map<String, Value>) {
    let now = now().text;
    match task.status {
        Status::Pending if from == Status::Failed => {
            // A re-execution: the failed run's fields go.
            task.result = None;
            task.error = None;
            task.progress = None;
            task.started_at = None;
            task.completed_at = None;
        }
        Status::InProgress => {
            if !fields.contains_key("started_at") {
                task.started_at = Some(now);
            }
            task.progress.get_or_insert(0.0);
        }
        Status::Completed | Status::Failed | Status::Cancelled => {
            if !fields.contains_key("completed_at") {
                task.completed_at = Some(now);
            }
            if task.status == Status::Completed {
                task.progress = Some(1.0);
            }
        }
        Status::Pending => {}
    }
}

/// Validates `tasks` as one document with every rule of the protocol.
fn validated(tasks: &[Task]) -> Result<vouch_tasks::ValidationReport, Failure> {
    let text = serde_json::to_string(tasks).map_err(|e| Failure::internal(e.to_string()))?;
    vouch_tasks::validate_text(text.as_str())
        .map(|(_, report)| report)
        .map_err(|e| Failure::internal(format!("the tasks do not read back: {e}")))
}
