//! The methods that add tasks: `tasks.create`, `tasks.copy`, `tasks.execute`.
//!
//! A created document is completed before it is validated: a task without `id` gets a new
//! UUID, ids are lowercased (D33), a tree node's child without `parent_id` gets its node's,
//! `status` defaults to `pending` and `created_at` to now. Then every rule of vouch-tasks runs,
//! with the service's own checks beside them (each task's executor exists, its inputs suit
//! the executor, its id is new); all problems come back in one error.

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value, json};
use vouch_tasks::{Issue, OriginType, Status, Task};

use super::a2a::Delivery;
use super::{Params, Service, internal, refused};
use crate::clock::now;
use crate::rpc::{Failure, code};

/// Tasks ready to store: the tree's root, its tasks, and the warnings validation had.
#[derive(Debug)]
pub(super) struct Checked {
    root: String,
    tasks: Vec<Task>,
    warnings: Vec<Issue>,
}

impl Service {
    pub(super) fn create(&self, params: Option<&Value>, p: &Params<'_>) -> Result<Value, Failure> {
        let checked = self.check_new(&document(params, p)?)?;
        self.store
            .insert(&checked.tasks, &checked.root)
            .map_err(|e| internal(&e))?;
        Ok(created(&checked))
    }

    pub(super) fn execute(
        &self,
        params: Option<&Value>,
        p: &Params<'_>,
        delivery: &Delivery,
    ) -> Result<Value, Failure> {
        // `task_id` (or a bare `id`) names a stored tree; a task with a name is a new one.
        let stored =
            p.get("task_id").is_some() || (p.get("id").is_some() && p.get("name").is_none());
        let (root, mut answer) = if stored {
            let root = self.root_of(&p.task_id()?)?;
            (root.clone(), json!({"root_id": root}))
        } else {
            let checked = self.check_new(&document(params, p)?)?;
            self.store
                .insert(&checked.tasks, &checked.root)
                .map_err(|e| internal(&e))?;
            (checked.root.clone(), created(&checked))
        };
        // Registered before the start, so the callback gets every event of this run; the
        // stream starts after the tree's last event so far.
        if let Some(target) = &delivery.push {
            let mut target = target.clone();
            target.protocol = delivery.a2a.then(|| "a2a".to_owned());
            self.store
                .push_register(&root, &target)
                .map_err(|e| internal(&e))?;
        }
        let events_after = if delivery.stream {
            self.store.last_event(&root).map_err(|e| internal(&e))?
        } else {
            0
        };
        // Refused and started in one transaction: no task can start between the two.
        let started = match self.store.start(&root).map_err(|e| internal(&e))? {
            Ok(started) => started,
            Err(running) => {
                return Err(refused(
                    code::ALREADY_EXECUTING,
                    "the tree is executing; wait for it to end or cancel it",
                    json!({"root_id": root, "running": running}),
                ));
            }
        };
        self.signals.wake();
        if let (Value::Object(a), Ok(Value::Object(s))) =
            (&mut answer, serde_json::to_value(&started))
        {
            a.extend(s);
            // The page's `{root_task_id, status: "started"}`.
            a.insert("root_task_id".into(), Value::String(root.clone()));
            a.insert("status".into(), Value::String("started".into()));
            if delivery.stream {
                // The transport answers with the event stream from here.
                a.insert("streaming".into(), Value::Bool(true));
                a.insert("events_after".into(), Value::from(events_after));
            }
            if delivery.push.is_some() {
                a.insert("push_notifications".into(), Value::Bool(true));
            }
            if delivery.a2a {
                a.insert(
                    "metadata".into(),
                    json!({"protocol": "a2a", "root_task_id": root}),
                );
            }
        }
        Ok(answer)
    }

    pub(super) fn copy(&self, p: &Params<'_>) -> Result<Value, Failure> {
        let id = p.task_id()?;
        let with_children = p.flag("copy_children", false)?;
        let (checked, tasks, dropped) = self.copy_checked(&id, with_children)?;
        self.store
            .insert(&checked.tasks, &checked.root)
            .map_err(|e| internal(&e))?;
        let mapping: Map<String, Value> = tasks
            .iter()
            .filter_map(|t| Some((t.original_task_id.clone()?, Value::String(t.id.clone()))))
            .collect();
        let mut answer = created(&checked);
        if let Value::Object(a) = &mut answer {
            // The page's `{original_task_id, copied_task_id, status}`.
            a.insert("original_task_id".into(), Value::String(id.clone()));
            a.insert("copied_task_id".into(), Value::String(checked.root.clone()));
            a.insert("mapping".into(), Value::Object(mapping));
            a.insert("dropped_dependencies".into(), json!(dropped));
        }
        Ok(answer)
    }

    /// Copies task `id` (with its subtree when `with_children`), stored when `save`; returns
    /// the copy's tasks, its root first.
    pub(super) fn copy_tree(
        &self,
        id: &str,
        with_children: bool,
        save: bool,
    ) -> Result<Vec<Task>, Failure> {
        let (checked, _, _) = self.copy_checked(id, with_children)?;
        if save {
            self.store
                .insert(&checked.tasks, &checked.root)
                .map_err(|e| internal(&e))?;
        }
        let mut tasks = checked.tasks;
        tasks.sort_by_key(|t| t.id != checked.root);
        Ok(tasks)
    }

    /// The copy of task `id` (and its subtree when `with_children`), checked: the checked
    /// document, the copied tasks, and the dependencies the copy had to drop.
    fn copy_checked(&self, id: &str, with_children: bool) -> Result<Copied, Failure> {
        let tree = self.tree_of(id)?;
        let (tasks, dropped) = copy_of(&tree, id, with_children);
        let text = serde_json::to_string(&tasks).map_err(|e| Failure::internal(e.to_string()))?;
        let checked = self.check_text(&text)?;
        Ok((checked, tasks, dropped))
    }

    /// Validates a completed document (text) with every rule and the service's checks.
    fn check_new(&self, doc: &Value) -> Result<Checked, Failure> {
        let text = serde_json::to_string(&doc).map_err(|e| Failure::internal(e.to_string()))?;
        self.check_text(&text)
    }

    fn check_text(&self, text: &str) -> Result<Checked, Failure> {
        let (doc, mut report) = vouch_tasks::validate_text(text).map_err(|e| {
            Failure::new(
                code::INVALID_PARAMS,
                Some(json!({"reason": format!("the tasks do not read as a task document: {e}")})),
            )
        })?;
        let raw: Value = serde_json::from_str(text).unwrap_or(Value::Null);
        let maps = task_maps(&raw);
        let ids: Vec<String> = (0..doc.len())
            .filter_map(|i| doc.id(i).map(|s| s.to_ascii_lowercase()))
            .collect();
        let taken: HashSet<String> = self
            .store
            .existing(&ids)
            .map_err(|e| internal(&e))?
            .into_iter()
            .collect();
        for i in 0..doc.len() {
            let id = doc.id(i);
            let Some(map) = id.as_deref().and_then(|id| maps.get(id)) else {
                continue;
            };
            let path = doc.path(i);
            let mut add = |code: i32, field: &str, reason: String| {
                let mut issue = Issue::error(code, Some(i), field, reason);
                issue.path = format!("{path}.{field}");
                report.errors.push(issue);
            };
            if id.as_deref().is_some_and(|id| taken.contains(id)) {
                add(
                    code::INVALID_SCHEMA,
                    "id",
                    "a task with this id exists already".into(),
                );
            }
            if map.get("status").and_then(Value::as_str) == Some("in_progress") {
                add(
                    code::INVALID_SCHEMA,
                    "status",
                    "tasks are not created in_progress: the engine, or tasks.update, starts them"
                        .into(),
                );
            }
            let method = map
                .get("schemas")
                .and_then(|s| s.get("method"))
                .and_then(Value::as_str);
            if let Some(method) = method {
                match self.registry.get(method) {
                    None => add(
                        code::EXECUTOR_NOT_FOUND,
                        "schemas.method",
                        format!(
                            "no executor `{method}`; this service runs {}",
                            self.registry.methods().join(", ")
                        ),
                    ),
                    Some(executor) => {
                        let empty = Map::new();
                        let inputs = map
                            .get("inputs")
                            .and_then(Value::as_object)
                            .unwrap_or(&empty);
                        for (field, reason) in executor.check(inputs) {
                            add(code::INVALID_SCHEMA, &field, reason);
                        }
                    }
                }
            }
        }
        if let Some(failure) = failure_of(&report.errors, &report.warnings) {
            return Err(failure);
        }
        let mut tasks = doc.typed_tasks().map_err(|(i, e)| {
            Failure::invalid_params(format!("task {} does not read: {e}", doc.path(i)))
        })?;
        // Each enabled schedule gets its first due time (the service computes it).
        let now = jiff::Timestamp::now();
        for task in &mut tasks {
            super::schedule::plan(task, now);
        }
        let root = tasks
            .iter()
            .find(|t| t.parent_id.is_none())
            .map(|t| t.id.clone())
            .ok_or_else(|| Failure::internal("a validated tree has no root"))?;
        Ok(Checked {
            root,
            tasks,
            warnings: report.warnings,
        })
    }
}

/// The JSON-RPC error of `errors`: one error's own code, `-32602` for two or more (decision
/// T3); every error and warning in `data`. `None` without errors.
pub(super) fn failure_of(errors: &[Issue], warnings: &[Issue]) -> Option<Failure> {
    let code = vouch_tasks::rpc_code(errors)?;
    let mut data = json!({"errors": errors});
    if !warnings.is_empty() {
        data["warnings"] = json!(warnings);
    }
    if let Some(cycle) = errors.iter().find_map(|e| e.cycle.clone()) {
        data["cycle"] = json!(cycle);
    }
    Some(Failure::new(code, Some(data)))
}

/// A checked copy: the document, the copied tasks, and the dependencies it had to drop.
type Copied = (Checked, Vec<Task>, Vec<(String, String)>);

/// The answer of a creation.
fn created(checked: &Checked) -> Value {
    // The page's `{id, status}`; the rest is vouch's.
    let mut answer = json!({
        "id": checked.root,
        "status": "pending",
        "root_id": checked.root,
        "count": checked.tasks.len(),
        "ids": checked.tasks.iter().map(|t| t.id.as_str()).collect::<Vec<_>>(),
    });
    if !checked.warnings.is_empty() {
        answer["warnings"] = json!(checked.warnings);
    }
    answer
}

/// Returns the tasks document of `params`, completed (ids, parents, status, creation time).
fn document(params: Option<&Value>, p: &Params<'_>) -> Result<Value, Failure> {
    let now = now().text;
    let mut doc = match (params, p.map()) {
        (Some(Value::Array(items)), _) if items.len() > 1 || p.map().is_none() => {
            Value::Array(items.clone())
        }
        (_, Some(map)) if map.contains_key("tasks") => json!({"tasks": map["tasks"].clone()}),
        (_, Some(map)) if map.contains_key("task") => Value::Object(map.clone()),
        (_, Some(map)) if map.contains_key("name") => Value::Object(map.clone()),
        _ => {
            return Err(Failure::invalid_params(
                "give the tasks: {\"tasks\": [...]}, a {\"task\", \"children\"} tree, or one task",
            ));
        }
    };
    complete(&mut doc, None, &now);
    Ok(doc)
}

/// Completes every task of `value` in place. Recursion is bounded: JSON from the wire nests at
/// most 128 levels (serde_json's limit).
fn complete(value: &mut Value, parent: Option<&str>, now: &str) {
    match value {
        Value::Array(items) => {
            for item in items {
                complete(item, parent, now);
            }
        }
        Value::Object(map) if map.contains_key("tasks") && !map.contains_key("id") => {
            if let Some(tasks) = map.get_mut("tasks") {
                complete(tasks, parent, now);
            }
        }
        Value::Object(map) if map.contains_key("task") && !map.contains_key("id") => {
            let mut id = None;
            if let Some(Value::Object(task)) = map.get_mut("task") {
                fill(task, parent, now);
                id = task.get("id").and_then(Value::as_str).map(str::to_owned);
            }
            if let Some(children) = map.get_mut("children") {
                complete(children, id.as_deref(), now);
            }
        }
        Value::Object(task) => fill(task, parent, now),
        _ => {}
    }
}

/// Completes one task.
fn fill(task: &mut Map<String, Value>, parent: Option<&str>, now: &str) {
    match task.get("id") {
        None | Some(Value::Null) => {
            task.insert("id".into(), Value::String(uuid::Uuid::new_v4().to_string()));
        }
        Some(Value::String(s)) => {
            let lower = s.to_ascii_lowercase();
            task.insert("id".into(), Value::String(lower));
        }
        Some(_) => {}
    }
    match (task.get("parent_id"), parent) {
        (None | Some(Value::Null), Some(parent)) => {
            task.insert("parent_id".into(), Value::String(parent.to_owned()));
        }
        (Some(Value::String(s)), _) => {
            let lower = s.to_ascii_lowercase();
            task.insert("parent_id".into(), Value::String(lower));
        }
        _ => {}
    }
    if let Some(Value::Array(deps)) = task.get_mut("dependencies") {
        for dep in deps {
            match dep {
                Value::String(s) => *s = s.to_ascii_lowercase(),
                Value::Object(d) => {
                    if let Some(Value::String(s)) = d.get_mut("id") {
                        *s = s.to_ascii_lowercase();
                    }
                }
                _ => {}
            }
        }
    }
    task.entry("status")
        .or_insert_with(|| Value::String("pending".into()));
    task.entry("created_at")
        .or_insert_with(|| Value::String(now.to_owned()));
}

/// Returns every task object of a completed document, by id.
fn task_maps(value: &Value) -> HashMap<String, &Map<String, Value>> {
    let mut out = HashMap::new();
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        match v {
            Value::Array(items) => stack.extend(items),
            Value::Object(m)
                if (m.contains_key("tasks") || m.contains_key("task")) && !m.contains_key("id") =>
            {
                stack.extend(m.get("tasks"));
                stack.extend(m.get("task"));
                stack.extend(m.get("children"));
            }
            Value::Object(m) => {
                if let Some(id) = m.get("id").and_then(Value::as_str) {
                    out.entry(id.to_owned()).or_insert(m);
                }
            }
            _ => {}
        }
    }
    out
}

/// Returns a copy of task `top` (and its descendants when `with_children`): new ids, parents
/// and dependencies inside the copy remapped, dependencies on tasks outside it dropped (and
/// returned as `(task, dependency)`), run fields reset, `origin_type: copy`.
fn copy_of(tree: &[Task], top: &str, with_children: bool) -> (Vec<Task>, Vec<(String, String)>) {
    let mut chosen = vec![top.to_owned()];
    if with_children {
        let mut kids: HashMap<&str, Vec<&str>> = HashMap::new();
        for t in tree {
            if let Some(p) = &t.parent_id {
                kids.entry(p.as_str()).or_default().push(&t.id);
            }
        }
        let mut i = 0;
        while i < chosen.len() {
            let next: Vec<String> = kids
                .get(chosen[i].as_str())
                .into_iter()
                .flatten()
                .map(|s| (*s).to_owned())
                .collect();
            chosen.extend(next);
            i += 1;
        }
    }
    let map: HashMap<String, String> = chosen
        .iter()
        .map(|id| (id.clone(), uuid::Uuid::new_v4().to_string()))
        .collect();
    let index: HashMap<&str, &Task> = tree.iter().map(|t| (t.id.as_str(), t)).collect();
    let now = now().text;
    let mut dropped = Vec::new();
    let mut out = Vec::with_capacity(chosen.len());
    for id in &chosen {
        let Some(source) = index.get(id.as_str()) else {
            continue;
        };
        let mut t = (*source).clone();
        t.id.clone_from(&map[id]);
        t.parent_id = if id == top {
            None
        } else {
            t.parent_id.as_ref().and_then(|p| map.get(p).cloned())
        };
        t.dependencies
            .retain_mut(|d| match map.get(&d.id.to_ascii_lowercase()) {
                Some(new) => {
                    d.id.clone_from(new);
                    true
                }
                None => {
                    dropped.push((source.id.clone(), d.id.clone()));
                    false
                }
            });
        t.status = Status::Pending;
        t.result = None;
        t.error = None;
        t.progress = None;
        t.started_at = None;
        t.completed_at = None;
        t.updated_at = None;
        t.created_at = Some(now.clone());
        t.origin_type = Some(OriginType::Copy);
        t.original_task_id = Some(source.id.clone());
        out.push(t);
    }
    (out, dropped)
}
