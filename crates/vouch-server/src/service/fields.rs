//! The types the data model gives its fields, checked on what a caller writes with
//! `tasks.update`: a field of the wrong type is `-32602 Invalid params` naming it (the
//! interface page: "Validate updates against task schema"), before any rule reads it.

use serde_json::{Value, json};

use crate::rpc::Failure;

/// A JSON type the data model allows for a field.
#[derive(Clone, Copy)]
enum Kind {
    String,
    Integer,
    Number,
    Boolean,
    Object,
    Array,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::String => "string",
            Kind::Integer => "integer",
            Kind::Number => "number",
            Kind::Boolean => "boolean",
            Kind::Object => "object",
            Kind::Array => "array",
        }
    }

    fn holds(self, v: &Value) -> bool {
        match self {
            Kind::String => v.is_string(),
            Kind::Integer => v.is_i64() || v.is_u64(),
            Kind::Number => v.is_number(),
            Kind::Boolean => v.is_boolean(),
            Kind::Object => v.is_object(),
            Kind::Array => v.is_array(),
        }
    }
}

/// Each field of the data model, its type, and whether it may be `null` (which removes it).
const FIELDS: &[(&str, Kind, bool)] = &[
    ("parent_id", Kind::String, true),
    ("user_id", Kind::String, true),
    ("name", Kind::String, false),
    ("status", Kind::String, false),
    ("priority", Kind::Integer, true),
    ("inputs", Kind::Object, true),
    ("schemas", Kind::Object, true),
    ("params", Kind::Object, true),
    ("result", Kind::Object, true),
    ("dependencies", Kind::Array, true),
    ("progress", Kind::Number, true),
    ("started_at", Kind::String, true),
    ("completed_at", Kind::String, true),
    ("origin_type", Kind::String, true),
    ("original_task_id", Kind::String, true),
    ("has_references", Kind::Boolean, true),
    ("schedule_type", Kind::String, true),
    ("schedule_expression", Kind::String, true),
    ("schedule_enabled", Kind::Boolean, true),
    ("schedule_start_at", Kind::String, true),
    ("schedule_end_at", Kind::String, true),
    ("next_run_at", Kind::String, true),
    ("last_run_at", Kind::String, true),
    ("max_runs", Kind::Integer, true),
    ("run_count", Kind::Integer, true),
];

/// Returns `-32602` naming every field of `fields` whose value the data model's type does not
/// allow (`error` may be a string or, as vouch's engine writes it, an object); `None` when all
/// are allowed. Fields the model does not define are not checked (T10).
pub(super) fn type_errors(fields: &serde_json::Map<String, Value>) -> Option<Failure> {
    let mut errors = Vec::new();
    for (key, value) in fields {
        let allowed = match FIELDS.iter().find(|(k, _, _)| k == key) {
            Some((_, kind, nullable)) => (value.is_null() && *nullable) || kind.holds(value),
            None if key == "error" => value.is_null() || value.is_string() || value.is_object(),
            None => true,
        };
        if !allowed {
            let expected = FIELDS
                .iter()
                .find(|(k, _, _)| k == key)
                .map_or("string", |(_, kind, _)| kind.name());
            errors.push(json!({
                "field": key,
                "reason": format!("`{key}` must be a {expected}"),
                "expected": expected,
                "actual": value,
                "path": format!("$.updates.{key}"),
                "code": -32602,
            }));
        }
    }
    (!errors.is_empty()).then(|| {
        Failure::new(
            crate::rpc::code::INVALID_PARAMS,
            Some(json!({"errors": errors})),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrong_types_are_named_and_unknown_fields_pass() {
        let fields = json!({"priority": "high", "name": 3, "custom": [1], "parent_id": null, "progress": 0.5});
        let failure = type_errors(fields.as_object().expect("an object")).expect("errors");
        let text = format!("{failure:?}");
        assert!(text.contains("priority") && text.contains("name"), "{text}");
        assert!(
            !text.contains("custom") && !text.contains("progress"),
            "{text}"
        );
        assert!(type_errors(json!({"name": "x"}).as_object().expect("an object")).is_none());
    }
}
