//! A task as the protocol's data model writes it on the wire: every field of the data model
//! present, with its default (`progress` 0.0, `run_count` 0, `has_references` and
//! `schedule_enabled` false, the rest `null`), and `error` a string — the structured reason the
//! engine keeps goes beside it as `error_details`, an extra field (the model's schema allows
//! extra properties). Fields the data model does not define are kept as they were stored.

use serde_json::{Map, Value};
use vouch_tasks::Task;

/// The data model's fields that default to `null`.
const NULL_DEFAULTS: &[&str] = &[
    "parent_id",
    "user_id",
    "schemas",
    "params",
    "result",
    "error",
    "started_at",
    "completed_at",
    "origin_type",
    "original_task_id",
    "schedule_type",
    "schedule_expression",
    "schedule_start_at",
    "schedule_end_at",
    "next_run_at",
    "last_run_at",
    "max_runs",
];

/// Returns `task` in the data model's wire form.
pub(crate) fn task(task: &Task) -> Value {
    let Ok(Value::Object(mut map)) = serde_json::to_value(task) else {
        return Value::Null;
    };
    for key in NULL_DEFAULTS {
        map.entry(*key).or_insert(Value::Null);
    }
    // `updated_at` defaults to the current time at creation: the creation time.
    if let Some(created) = map.get("created_at").cloned() {
        map.entry("updated_at").or_insert(created);
    }
    map.entry("progress").or_insert(Value::from(0.0));
    map.entry("run_count").or_insert(Value::from(0));
    map.entry("has_references").or_insert(Value::Bool(false));
    map.entry("schedule_enabled").or_insert(Value::Bool(false));
    if let Some(error) = map.get("error").cloned()
        && !error.is_null()
        && !error.is_string()
    {
        map.insert("error".into(), Value::String(message(&error)));
        map.insert("error_details".into(), error);
    }
    Value::Object(map)
}

/// Returns the message of a structured error: its `message` (or `reason`), else its JSON.
fn message(error: &Value) -> String {
    ["message", "reason"]
        .iter()
        .find_map(|k| error.get(k).and_then(Value::as_str))
        .map_or_else(|| error.to_string(), str::to_owned)
}

/// Returns the stored form of `task` (no defaults added, `error` as stored): what an update
/// patches.
pub(crate) fn stored(task: &Task) -> Map<String, Value> {
    match serde_json::to_value(task) {
        Ok(Value::Object(map)) => map,
        _ => Map::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pending_task_carries_every_default_and_an_error_is_a_string() {
        let t: Task = serde_json::from_value(serde_json::json!({
            "id": "3f2b8c1e-9d4a-4f6b-8a2c-1e5d7f9b0a3c", "name": "a", "status": "failed",
            "error": {"message": "the executor failed", "exit_code": 3}, "custom": 1
        }))
        .expect("a task");
        let wire = task(&t);
        assert_eq!(wire["progress"], 0.0);
        assert_eq!(wire["run_count"], 0);
        assert_eq!(wire["schedule_enabled"], false);
        assert_eq!(wire["has_references"], false);
        assert_eq!(wire["parent_id"], Value::Null);
        assert_eq!(wire["result"], Value::Null);
        assert_eq!(wire["error"], "the executor failed");
        assert_eq!(wire["error_details"]["exit_code"], 3);
        assert_eq!(wire["custom"], 1);
        assert_eq!(wire["dependencies"], serde_json::json!([]));
        assert_eq!(wire["inputs"], serde_json::json!({}));
    }
}
