//! The methods that read: `tasks.get`, `tasks.list`, `tasks.tree`, `tasks.children`,
//! `system.health`.

use std::collections::HashMap;

use serde_json::{Map, Value, json};
use vouch_tasks::{Status, Task};

use super::{LIST_LIMIT, Params, Service, internal, not_found, to_json};
use crate::rpc::Failure;
use crate::store::ListQuery;

/// Trees deeper than this are refused by `tasks.tree` (their nesting would exhaust the
/// encoder); `tasks.children` walks them level by level.
const TREE_DEPTH: usize = 1024;

/// Trees larger than this are refused by `tasks.tree` (an answer of tens of megabytes);
/// `tasks.children` pages through them.
pub(super) const TREE_LIMIT: u64 = 10_000;

impl Service {
    pub(super) fn get(&self, p: &Params<'_>) -> Result<Value, Failure> {
        let id = p.task_id()?;
        match self.store.get(&id).map_err(|e| internal(&e))? {
            Some(task) => Ok(to_json(&task)),
            None => Err(not_found(&id)),
        }
    }

    pub(super) fn list(&self, p: &Params<'_>) -> Result<Value, Failure> {
        let limit = p.count("limit", 100)?;
        if limit > LIST_LIMIT {
            return Err(Failure::invalid_params(format!(
                "`limit` is at most {LIST_LIMIT} (got {limit}); page with `offset`"
            )));
        }
        let status = p
            .string("status")?
            .map(|s| {
                s.parse::<Status>().map_err(|()| {
                    Failure::invalid_params(format!(
                        "`status` must be one of {} (got `{s}`)",
                        Status::names()
                    ))
                })
            })
            .transpose()?;
        let query = ListQuery {
            status,
            user_id: p.string("user_id")?.map(str::to_owned),
            roots_only: p.flag("root_only", false)?,
            limit,
            offset: p.count("offset", 0)?,
        };
        let (tasks, total) = self.store.list(&query).map_err(|e| internal(&e))?;
        Ok(json!({
            "tasks": tasks.iter().map(to_json).collect::<Vec<_>>(),
            "total": total,
            "limit": query.limit,
            "offset": query.offset,
        }))
    }

    pub(super) fn children(&self, p: &Params<'_>) -> Result<Value, Failure> {
        // The page names the parent `parent_id`; `task_id` stays accepted.
        let id = match p.string("parent_id")? {
            Some(parent) if !parent.is_empty() => parent.to_ascii_lowercase(),
            _ => p.task_id().map_err(|_| {
                Failure::invalid_params("`parent_id` is required: the task whose children to list")
            })?,
        };
        let limit = p.count("limit", LIST_LIMIT)?;
        if limit > LIST_LIMIT {
            return Err(Failure::invalid_params(format!(
                "`limit` is at most {LIST_LIMIT} (got {limit}); page with `offset`"
            )));
        }
        let offset = p.count("offset", 0)?;
        if self.store.get(&id).map_err(|e| internal(&e))?.is_none() {
            return Err(not_found(&id));
        }
        let (children, total) = self
            .store
            .children(&id, limit, offset)
            .map_err(|e| internal(&e))?;
        let children: Vec<Value> = children.iter().map(to_json).collect();
        Ok(json!({
            "children": children,
            "tasks": children,
            "total": total,
            "limit": limit,
            "offset": offset,
        }))
    }

    pub(super) fn tree(&self, p: &Params<'_>) -> Result<Value, Failure> {
        let id = p.task_id()?;
        let tasks = self
            .store
            .subtree(&id, TREE_LIMIT + 1)
            .map_err(|e| internal(&e))?;
        if tasks.is_empty() {
            return Err(not_found(&id));
        }
        if tasks.len() as u64 > TREE_LIMIT {
            return Err(Failure::invalid_params(format!(
                "the tree under {id} holds more than {TREE_LIMIT} tasks; read it level by level with tasks.children (`limit`, `offset`)"
            )));
        }
        nest(&tasks, &id).ok_or_else(|| {
            Failure::invalid_params(format!(
                "the tree under {id} is deeper than {TREE_DEPTH} levels; read it with tasks.children"
            ))
        })
    }

    pub(super) fn health(&self) -> Result<Value, Failure> {
        let counts = self.store.counts().map_err(|e| internal(&e))?;
        let tasks: Map<String, Value> = counts
            .into_iter()
            .map(|(status, n)| (status, Value::from(n)))
            .collect();
        Ok(json!({
            "status": "ok",
            "protocol_version": "1.0",
            "server": "vouch",
            "version": env!("CARGO_PKG_VERSION"),
            "storage": {"kind": self.store.kind(), "location": self.store.location(), "tasks": tasks},
            "workers": {
                "concurrency": self.concurrency,
                "running": self.signals.running(),
                "executed": self.signals.executed(),
            },
            "executors": self.registry.methods(),
        }))
    }
}

/// Builds the `{task, children}` tree under `top` from the tasks of its tree, without
/// recursion; `None` when it is deeper than [`TREE_DEPTH`].
pub(super) fn nest(tasks: &[Task], top: &str) -> Option<Value> {
    let mut kids: HashMap<&str, Vec<usize>> = HashMap::new();
    let mut at = None;
    for (i, t) in tasks.iter().enumerate() {
        if t.id == top {
            at = Some(i);
        }
        if let Some(parent) = &t.parent_id {
            kids.entry(parent.as_str()).or_default().push(i);
        }
    }
    let top = at?;
    // Post-order: each node is built once its children are.
    let mut order = Vec::new();
    let mut stack = vec![(top, 0usize)];
    while let Some((i, depth)) = stack.pop() {
        if depth > TREE_DEPTH {
            return None;
        }
        order.push(i);
        for &c in kids.get(tasks[i].id.as_str()).into_iter().flatten() {
            stack.push((c, depth + 1));
        }
    }
    let mut built: HashMap<usize, Value> = HashMap::new();
    for &i in order.iter().rev() {
        let children: Vec<Value> = kids
            .get(tasks[i].id.as_str())
            .into_iter()
            .flatten()
            .filter_map(|c| built.remove(c))
            .collect();
        built.insert(i, json!({"task": to_json(&tasks[i]), "children": children}));
    }
    built.remove(&top)
}
