//! Raw JSON values of a task read as values, for the `actual` of an issue.

use serde_json::Value;
use serde_json::value::RawValue;

/// Returns the JSON value of `raw`.
pub(crate) fn json(raw: &RawValue) -> Value {
    serde_json::from_str(raw.get()).unwrap_or(Value::Null)
}

/// Returns the JSON value of `raw`, `null` when absent.
pub(crate) fn json_of(raw: Option<&RawValue>) -> Value {
    raw.map_or(Value::Null, json)
}
