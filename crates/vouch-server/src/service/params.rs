//! Reading a method's parameters: an object (or an array holding one), with clear
//! `-32602 Invalid params` answers for what is missing or of the wrong type.

use serde_json::{Map, Value};

use crate::rpc::Failure;

/// A method's parameters.
#[derive(Debug)]
pub(crate) struct Params<'a> {
    map: Option<&'a Map<String, Value>>,
}

impl<'a> Params<'a> {
    /// Reads `params`: an object, `[object]`, or nothing.
    pub(crate) fn of(params: Option<&'a Value>) -> Result<Params<'a>, Failure> {
        match params {
            None | Some(Value::Null) => Ok(Params { map: None }),
            Some(Value::Object(map)) => Ok(Params { map: Some(map) }),
            Some(Value::Array(items)) => match items.as_slice() {
                [Value::Object(map)] => Ok(Params { map: Some(map) }),
                // Nothing, or positional: a list of tasks (`tasks.create`, `tasks.execute`);
                // methods that need named parameters say which is missing.
                _ => Ok(Params { map: None }),
            },
            Some(_) => Err(Failure::invalid_params("params must be an object")),
        }
    }

    /// Returns the object, empty when none was given.
    pub(crate) fn map(&self) -> Option<&'a Map<String, Value>> {
        self.map
    }

    /// Returns member `key`.
    pub(crate) fn get(&self, key: &str) -> Option<&'a Value> {
        self.map.and_then(|m| m.get(key)).filter(|v| !v.is_null())
    }

    /// Returns the task id: `task_id` (or `id`), lowercase.
    pub(crate) fn task_id(&self) -> Result<String, Failure> {
        match self.get("task_id").or_else(|| self.get("id")) {
            Some(Value::String(s)) if !s.is_empty() => Ok(s.to_ascii_lowercase()),
            Some(_) => Err(Failure::invalid_params("`task_id` must be a string")),
            None => Err(Failure::invalid_params("`task_id` is required")),
        }
    }

    /// Returns string member `key`, when given.
    pub(crate) fn string(&self, key: &str) -> Result<Option<&'a str>, Failure> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(_) => Err(Failure::invalid_params(format!("`{key}` must be a string"))),
        }
    }

    /// Returns boolean member `key`, `default` when absent.
    pub(crate) fn flag(&self, key: &str, default: bool) -> Result<bool, Failure> {
        match self.get(key) {
            None => Ok(default),
            Some(Value::Bool(b)) => Ok(*b),
            Some(_) => Err(Failure::invalid_params(format!(
                "`{key}` must be true or false"
            ))),
        }
    }

    /// Returns non-negative integer member `key`, `default` when absent.
    pub(crate) fn count(&self, key: &str, default: u64) -> Result<u64, Failure> {
        match self.get(key) {
            None => Ok(default),
            Some(v) => v.as_u64().ok_or_else(|| {
                Failure::invalid_params(format!("`{key}` must be a non-negative integer"))
            }),
        }
    }
}
