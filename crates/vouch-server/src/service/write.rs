//! The methods that change stored tasks: `tasks.update`, `tasks.delete`, `tasks.cancel`.

use serde_json::{Map, Value, json};
use vouch_tasks::{Status, Task, check_transition};

use super::create::failure_of;
use super::{Params, Service, internal, not_found, refused, to_json};
use crate::clock::now;
use crate::rpc::{Failure, code};

/// Fields a caller may not write: the id is the task's key; the engine keeps the rest.
const FIXED: &[&str] = &["id", "created_at", "updated_at"];

/// Fields that may not change while the task executes.
const FIXED_WHILE_EXECUTING: &[&str] = &["parent_id", "user_id"];

impl Service {
    pub(super) fn update(&self, p: &Params<'_>) -> Result<Value, Failure> {
        let id = p.task_id()?;
        let mut tree = self.tree_of(&id)?;
        let at = tree
            .iter()
            .position(|t| t.id == id)
            .ok_or_else(|| not_found(&id))?;
        let stored = tree[at].clone();
        let mut fields: Map<String, Value> = p.map().cloned().unwrap_or_default();
        fields.remove("task_id");
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
        let mut task = patched(&stored, &fields)?;
        if task.status != stored.status {
            check_transition(stored.status, task.status).map_err(|issue| {
                Failure::new(
                    code::INVALID_TRANSITION,
                    Some(json!({"errors": [issue], "from": stored.status, "to": task.status})),
                )
            })?;
            if task.status == Status::InProgress {
                let unmet: Vec<&str> = task
                    .dependencies
                    .iter()
                    .filter(|d| !vouch_tasks::satisfied(&only(&task, d), &tree))
                    .map(|d| d.id.as_str())
                    .collect();
                if !unmet.is_empty() {
                    return Err(refused(
                        code::DEPENDENCY_NOT_SATISFIED,
                        "a task starts only when its required dependencies completed and its optional ones ended",
                        json!({"task_id": id, "dependencies": unmet}),
                    ));
                }
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
        tree[at] = task.clone();
        let text = serde_json::to_string(&tree).map_err(|e| Failure::internal(e.to_string()))?;
        let (_, report) = vouch_tasks::validate_text(&text)
            .map_err(|e| Failure::internal(format!("the tree does not read back: {e}")))?;
        if let Some(failure) = failure_of(&report.errors, &report.warnings) {
            return Err(failure);
        }
        if !self
            .store
            .replace(&task, stored.status)
            .map_err(|e| internal(&e))?
        {
            let now_status = self
                .store
                .get(&id)
                .map_err(|e| internal(&e))?
                .map(|t| t.status);
            return Err(refused(
                code::INVALID_TRANSITION,
                "the task's status changed while this update was made; read it again",
                json!({"expected": stored.status, "actual": now_status}),
            ));
        }
        if task.status.is_terminal() {
            self.signals.stop(&id);
        }
        self.signals.wake();
        Ok(to_json(&task))
    }

    pub(super) fn delete(&self, p: &Params<'_>) -> Result<Value, Failure> {
        let id = p.task_id()?;
        match self.store.delete(&id).map_err(|e| internal(&e))? {
            Ok(()) => Ok(json!({"deleted": id})),
            Err(why) if why == "no such task" => Err(not_found(&id)),
            Err(why) => Err(refused(code::CANNOT_DELETE, why, json!({"task_id": id}))),
        }
    }

    pub(super) fn cancel(&self, p: &Params<'_>) -> Result<Value, Failure> {
        let id = p.task_id()?;
        let with_children = p.flag("children", true)?;
        let reason = p
            .string("reason")?
            .unwrap_or("cancelled by request")
            .to_owned();
        let tree = self.tree_of(&id)?;
        let Some(task) = tree.iter().find(|t| t.id == id) else {
            return Err(not_found(&id));
        };
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
            ids.extend(descendants(&tree, &id));
        }
        let cancelled = self.store.cancel(&ids, &reason).map_err(|e| internal(&e))?;
        for c in &cancelled {
            self.signals.stop(c);
        }
        self.signals.wake();
        Ok(json!({"cancelled": cancelled}))
    }
}

/// `task` with only dependency `dep`, to ask whether that one is satisfied.
fn only(task: &Task, dep: &vouch_tasks::Dependency) -> Task {
    let mut probe = task.clone();
    probe.dependencies = vec![dep.clone()];
    probe
}

/// The stored task with `fields` written over it (`null` removes a field).
fn patched(stored: &Task, fields: &Map<String, Value>) -> Result<Task, Failure> {
    let Value::Object(mut map) = to_json(stored) else {
        return Err(Failure::internal("a task is not an object"));
    };
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

/// Returns the ids of the tasks under `id` that have not ended.
fn descendants(tree: &[Task], id: &str) -> Vec<String> {
    let mut kids: std::collections::HashMap<&str, Vec<&Task>> = std::collections::HashMap::new();
    for t in tree {
        if let Some(p) = &t.parent_id {
            kids.entry(p.as_str()).or_default().push(t);
        }
    }
    let mut out = Vec::new();
    let mut frontier = vec![id];
    while let Some(parent) = frontier.pop() {
        for t in kids.get(parent).into_iter().flatten() {
            if !t.status.is_terminal() {
                out.push(t.id.clone());
            }
            frontier.push(&t.id);
        }
    }
    out
}
