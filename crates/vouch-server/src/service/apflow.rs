//! The methods and parameters apflow 0.18.2's own clients send that the interface page does not
//! define: `tasks.count`, `tasks.running.status`, `tasks.clone`, and `tasks.cancel` of several
//! tasks (`task_ids`, `force`, `error_message`). Each answers in the shape apflow's client
//! reads (docs/server.md, "apflow's clients").

use serde_json::{Map, Value, json};
use vouch_tasks::Status;

use super::{Params, Service, internal, to_json};
use crate::rpc::Failure;
use crate::store::ListQuery;

/// The statuses, in the protocol's order.
const STATUSES: [Status; 5] = [
    Status::Pending,
    Status::InProgress,
    Status::Completed,
    Status::Failed,
    Status::Cancelled,
];

impl Service {
    /// `tasks.count`: `{user_id?, root_only?, statuses?}` → the number of tasks of each status
    /// asked (all five when none), and `total`.
    pub(super) fn count(&self, p: &Params<'_>) -> Result<Value, Failure> {
        let statuses: Vec<Status> = match p.get("statuses") {
            None => STATUSES.to_vec(),
            Some(Value::Array(items)) => items
                .iter()
                .map(|v| {
                    v.as_str()
                        .and_then(|s| s.parse::<Status>().ok())
                        .ok_or_else(|| {
                            Failure::invalid_params(format!(
                                "`statuses` holds {v}, which is not one of {}",
                                Status::names()
                            ))
                        })
                })
                .collect::<Result<_, _>>()?,
            Some(_) => {
                return Err(Failure::invalid_params(
                    "`statuses` must be a list of statuses",
                ));
            }
        };
        let user_id = p.string("user_id")?.map(str::to_owned);
        let roots_only = p.flag("root_only", false)?;
        let mut answer = Map::new();
        let mut total = 0u64;
        for status in statuses {
            let query = ListQuery {
                status: Some(status),
                user_id: user_id.clone(),
                roots_only,
                limit: 1,
                offset: 0,
            };
            let (_, n) = self.store.list(&query).map_err(|e| internal(&e))?;
            total += n;
            answer.insert(status.as_str().to_owned(), Value::from(n));
        }
        answer.insert("total".into(), Value::from(total));
        Ok(Value::Object(answer))
    }

    /// `tasks.running.status`: `{task_ids}` → for each, its status as apflow's client reads
    /// it (`not_found` for an unknown id), in the order asked.
    pub(super) fn running_status(&self, p: &Params<'_>) -> Result<Value, Failure> {
        let ids = task_ids(p)?;
        let mut out = Vec::with_capacity(ids.len());
        for id in ids {
            let row = match self.store.get(&id).map_err(|e| internal(&e))? {
                Some(task) => {
                    let wire = to_json(&task);
                    json!({
                        "task_id": task.id,
                        "context_id": task.id,
                        "name": task.name,
                        "status": task.status,
                        "progress": wire["progress"],
                        "is_running": task.status == Status::InProgress,
                        "error": wire["error"],
                        "started_at": wire["started_at"],
                        "updated_at": wire["updated_at"],
                    })
                }
                None => json!({
                    "task_id": id, "context_id": id, "name": "Unknown", "status": "not_found",
                    "progress": 0.0, "is_running": false, "error": null,
                    "started_at": null, "updated_at": null,
                }),
            };
            out.push(row);
        }
        Ok(Value::Array(out))
    }

    /// `tasks.cancel` of several tasks (`task_ids`; `error_message` the reason; `force`
    /// accepted — a cancelled command is always stopped at once): one result per task, as
    /// apflow's client reads them.
    pub(super) fn cancel_many(&self, p: &Params<'_>) -> Result<Value, Failure> {
        let ids = task_ids(p)?;
        let force = p.flag("force", false)?;
        let reason = p.string("error_message")?.map(str::to_owned);
        let mut out = Vec::with_capacity(ids.len());
        for id in ids {
            let mut one = Map::new();
            one.insert("task_id".into(), Value::String(id.clone()));
            if let Some(r) = &reason {
                one.insert("reason".into(), Value::String(r.clone()));
            }
            let params = Value::Object(one);
            let row = match self.cancel(&Params::of(Some(&params))?) {
                Ok(mut answer) => {
                    answer["force"] = Value::Bool(force);
                    answer["message"] = Value::String(
                        reason
                            .clone()
                            .unwrap_or_else(|| "cancelled by request".to_owned()),
                    );
                    answer
                }
                Err(failure) => json!({
                    "task_id": id,
                    "status": "failed",
                    "force": force,
                    "message": failure.message,
                    "code": failure.code,
                    "data": failure.data,
                }),
            };
            out.push(row);
        }
        Ok(Value::Array(out))
    }

    /// `tasks.clone` (apflow's name for copying): `{task_id, recursive, origin_type: "copy",
    /// save}` → the new tasks, root first, as a list (the shape apflow's client reads). Only
    /// copies: `link`, `archive` and `mixed` origins, `link_task_ids` and `reset_fields` are
    /// refused by name; `save: false` answers the copy without storing it.
    pub(super) fn clone_tree(&self, p: &Params<'_>) -> Result<Value, Failure> {
        if let Some(origin) = p.string("origin_type")?
            && origin != "copy"
        {
            return Err(Failure::invalid_params(format!(
                "`origin_type: {origin}` is not supported by vouch: tasks.clone copies (`copy`)"
            )));
        }
        for key in ["link_task_ids", "reset_fields"] {
            let given = match p.get(key) {
                None => false,
                Some(Value::Array(a)) => !a.is_empty(),
                Some(Value::Object(m)) => !m.is_empty(),
                Some(_) => true,
            };
            if given {
                return Err(Failure::invalid_params(format!(
                    "`{key}` is not supported by vouch's tasks.clone"
                )));
            }
        }
        let id = p.task_id()?;
        let recursive = p.flag("recursive", true)?;
        let save = p.flag("save", true)?;
        let copied = self.copy_tree(&id, recursive, save)?;
        Ok(Value::Array(copied.iter().map(to_json).collect()))
    }
}

/// Returns `task_ids`: a non-empty list of ids.
fn task_ids(p: &Params<'_>) -> Result<Vec<String>, Failure> {
    match p.get("task_ids") {
        Some(Value::Array(items)) if !items.is_empty() => items
            .iter()
            .map(|v| {
                v.as_str()
                    .map(str::to_ascii_lowercase)
                    .ok_or_else(|| Failure::invalid_params("`task_ids` must be a list of ids"))
            })
            .collect(),
        _ => Err(Failure::invalid_params(
            "`task_ids` is required: a non-empty list of task ids",
        )),
    }
}
