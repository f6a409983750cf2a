//! The protocol's methods over a store: what `vouch serve` answers on JSON-RPC.
//!
//! Params and results are the interface page's (`docs/protocol/06-interfaces.md`); vouch's
//! own keys come beside the page's:
//!
//! | method | params | result |
//! |---|---|---|
//! | `tasks.create` | `{tasks: [...]}`, a `{task, children}` tree, or one task | `id`, `status`; `root_id`, `ids`, `count`, `warnings` |
//! | `tasks.get` | `task_id` | the task (`wire.rs`) |
//! | `tasks.update` | `task_id`, `updates` (or the fields beside `task_id`) | the task |
//! | `tasks.delete` | `task_id` | `success`; `deleted` |
//! | `tasks.list` | `limit` (≤ 1000), `offset`, `status`, `user_id`, `root_only` | `tasks`, `total`, `limit`, `offset` |
//! | `tasks.tree` | `task_id` | the `{task, children}` tree under it |
//! | `tasks.children` | `parent_id` (or `task_id`) | `children`; `tasks`, `total` |
//! | `tasks.copy` | `task_id`, `copy_children` | `original_task_id`, `copied_task_id`, `status`; `root_id`, `ids`, `mapping` |
//! | `tasks.execute` | `task_id`, or tasks as for `tasks.create`; `use_streaming` | `root_task_id`, `status: started`; `root_id` and what was queued (`a2a.rs`: streaming, push) |
//! | `tasks.cancel` | `task_id`, `children` | `task_id`, `status`; `cancelled` |
//! | `tasks.push.get` | `task_id` | the tree's push callback and its deliveries (`push.rs`) |
//! | `system.health` | none | protocol version, storage, workers |

mod a2a;
mod apflow;
mod create;
mod fields;
mod params;
mod push;
mod read;
pub(crate) mod schedule;
mod scheduled;
mod wire;
mod write;

use std::sync::Arc;

use serde_json::{Value, json};

use crate::engine::{Registry, Signals};
use crate::rpc::{Extras, Failure, Methods, code};
use crate::store::{Store, StoreError};
use params::Params;

/// The most tasks one `tasks.list` call returns.
pub const LIST_LIMIT: u64 = 1000;

/// The service: the store, the executors tasks may name, and the engine's signals.
#[derive(Debug, Clone)]
pub struct Service {
    store: Arc<Store>,
    registry: Arc<Registry>,
    signals: Arc<Signals>,
    concurrency: usize,
}

impl Service {
    /// Returns the service over `store`; `concurrency` is what `system.health` reports of the
    /// engine sharing `signals` (0 when this process runs no worker).
    pub fn new(
        store: Arc<Store>,
        registry: Arc<Registry>,
        signals: Arc<Signals>,
        concurrency: usize,
    ) -> Service {
        Service {
            store,
            registry,
            signals,
            concurrency,
        }
    }

    /// Returns the store.
    pub fn store(&self) -> &Arc<Store> {
        &self.store
    }

    /// Returns the root of task `id`'s tree (-32001 for an unknown id).
    fn root_of(&self, id: &str) -> Result<String, Failure> {
        self.store
            .root_of(id)
            .map_err(|e| internal(&e))?
            .ok_or_else(|| not_found(id))
    }

    /// Returns every task of task `id`'s tree (-32001 for an unknown id).
    fn tree_of(&self, id: &str) -> Result<Vec<vouch_tasks::Task>, Failure> {
        let root = self.root_of(id)?;
        self.store.tree(&root).map_err(|e| internal(&e))
    }
}

impl Methods for Service {
    fn call(
        &self,
        method: &str,
        params: Option<&Value>,
        extras: Extras<'_>,
    ) -> Result<Value, Failure> {
        let delivery = a2a::delivery(
            method,
            &Params::of(params)?,
            extras,
            self.registry.http_policy().allow_private,
        )?;
        let cleaned = a2a::without_delivery_keys(params);
        let params = cleaned.as_ref().or(params);
        let p = Params::of(params)?;
        match method {
            "tasks.create" => self.create(params, &p),
            "tasks.get" => self.get(&p),
            "tasks.update" => self.update(&p),
            "tasks.delete" => self.delete(&p),
            "tasks.list" => self.list(&p),
            "tasks.tree" => self.tree(&p),
            "tasks.children" => self.children(&p),
            "tasks.copy" => self.copy(&p),
            "tasks.execute" => self.execute(params, &p, &delivery),
            "tasks.cancel" if p.get("task_ids").is_some() => self.cancel_many(&p),
            "tasks.cancel" => self.cancel(&p),
            // apflow's clients' methods (`apflow.rs`).
            "tasks.count" => self.count(&p),
            "tasks.running.status" => self.running_status(&p),
            "tasks.clone" => self.clone_tree(&p),
            "tasks.scheduled.list" => self.scheduled_list(&p),
            "tasks.scheduled.due" => self.scheduled_due(&p),
            "tasks.push.get" => self.push_get(&p),
            "system.health" => self.health(),
            _ => Err(Failure::method_not_found(method)),
        }
    }
}

/// A store failure: the service failed, not the caller.
fn internal(e: &StoreError) -> Failure {
    Failure::internal(e.to_string())
}

/// "Task not found", naming the id.
fn not_found(id: &str) -> Failure {
    Failure::new(code::TASK_NOT_FOUND, Some(json!({"task_id": id})))
}

/// A failure with `code` whose data says `why` (and more fields).
fn refused(code: i32, why: impl Into<String>, more: Value) -> Failure {
    let mut data = serde_json::Map::new();
    data.insert("reason".into(), Value::String(why.into()));
    if let Value::Object(m) = more {
        data.extend(m);
    }
    Failure::new(code, Some(Value::Object(data)))
}

/// The task as the protocol writes it (`wire.rs`).
fn to_json(task: &vouch_tasks::Task) -> Value {
    wire::task(task)
}
