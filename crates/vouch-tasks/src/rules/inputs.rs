//! Inputs against `schemas.input_schema`, with JSON Schema draft-07 (decision T9): every
//! violation reported with its place in `inputs`; a schema that is itself invalid is an error
//! on `schemas.input_schema`. Schemas are compiled once per distinct text — tasks made by one
//! executor share theirs.

use std::collections::HashMap;
use std::fmt::Write as _;

use serde_json::Value;
use serde_json::value::RawValue;

use crate::issue::{Issue, code};
use crate::rules::raw::json;

/// Compiled input schemas, by their text.
#[derive(Default)]
pub(crate) struct SchemaCache<'a> {
    compiled: HashMap<&'a str, Result<jsonschema::Validator, String>>,
}

impl std::fmt::Debug for SchemaCache<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SchemaCache({} schemas)", self.compiled.len())
    }
}

impl<'a> SchemaCache<'a> {
    /// Checks task `index`'s `inputs` (`{}` when absent) against `schema`.
    pub(crate) fn check(
        &mut self,
        index: usize,
        schema: &'a RawValue,
        inputs: Option<&RawValue>,
        out: &mut Vec<Issue>,
    ) {
        let compiled = self
            .compiled
            .entry(schema.get())
            .or_insert_with(|| compile(schema));
        let validator = match compiled {
            Ok(v) => v,
            Err(why) => {
                out.push(
                    Issue::error(
                        code::VALIDATION,
                        Some(index),
                        "schemas.input_schema",
                        format!("is not a valid JSON Schema (draft-07): {why}"),
                    )
                    .expected("a JSON Schema, draft-07")
                    .actual(json(schema)),
                );
                return;
            }
        };
        let instance = inputs.map_or_else(|| Value::Object(serde_json::Map::new()), json);
        for error in validator.iter_errors(&instance) {
            let pointer = error.instance_path().as_str();
            let field = format!("inputs{}", json_path(pointer));
            out.push(
                Issue::error(
                    code::VALIDATION,
                    Some(index),
                    field,
                    format!("Input validation failed: {error}"),
                )
                .expected(format!("input_schema at #{}", error.schema_path().as_str()))
                .actual(error.instance().clone().into_owned()),
            );
        }
    }
}

fn compile(schema: &RawValue) -> Result<jsonschema::Validator, String> {
    let value: Value = serde_json::from_str(schema.get()).map_err(|e| e.to_string())?;
    if !value.is_object() && !value.is_boolean() {
        return Err("a schema is an object or a boolean".to_owned());
    }
    jsonschema::draft7::options()
        .should_validate_formats(true)
        .build(&value)
        .map_err(|e| e.to_string())
}

/// Turns a JSON pointer (`/address/zip`, `/items/0`) into JSON path steps (`.address.zip`,
/// `.items[0]`); keys that are not identifiers are bracketed (`['a b']`).
pub(crate) fn json_path(pointer: &str) -> String {
    let mut out = String::new();
    for segment in pointer.split('/').skip(1) {
        let key = segment.replace("~1", "/").replace("~0", "~");
        if !key.is_empty() && key.bytes().all(|b| b.is_ascii_digit()) {
            let _ = write!(out, "[{key}]");
        } else if !key.is_empty() && key.chars().all(|c| c.is_alphanumeric() || c == '_') {
            out.push('.');
            out.push_str(&key);
        } else {
            let escaped = key.replace('\\', "\\\\").replace('\'', "\\'");
            let _ = write!(out, "['{escaped}']");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pointers_become_paths() {
        assert_eq!(json_path(""), "");
        assert_eq!(json_path("/address/zip"), ".address.zip");
        assert_eq!(json_path("/items/0/a~1b"), ".items[0]['a/b']");
        assert_eq!(json_path("/it's"), "['it\\'s']");
    }
}
