//! `tasks.push.get`: how a tree's push notifications stand — the callback (header values left
//! out: they are credentials), how many events were delivered and given up on, whether delivery
//! reached the tree's end, and every delivery with its attempts, last HTTP status and error.

use serde_json::{Value, json};

use super::{Params, Service, internal};
use crate::rpc::Failure;

impl Service {
    pub(super) fn push_get(&self, p: &Params<'_>) -> Result<Value, Failure> {
        let root = self.root_of(&p.task_id()?)?;
        let Some(state) = self.store.push_state(&root).map_err(|e| internal(&e))? else {
            return Ok(json!({"root_task_id": root, "push_notification_config": null}));
        };
        let header_names: Vec<&str> = state
            .target
            .headers
            .iter()
            .map(|(k, _)| k.as_str())
            .collect();
        Ok(json!({
            "root_task_id": root,
            "push_notification_config": {
                "url": state.target.url,
                "method": state.target.method,
                "header_names": header_names,
            },
            "protocol": state.target.protocol,
            "delivered": state.delivered,
            "failed": state.failed,
            "finished": state.finished,
            "last_event_id": state.after,
            "deliveries": state.deliveries,
        }))
    }
}
