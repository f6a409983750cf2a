//! JSON-RPC 2.0 over any transport: a request body in, the response body out.
//!
//! As the specification says: a body that is not JSON is a parse error (`-32700`, id null);
//! a call that is not a request object is an invalid request (`-32600`); a call without an
//! `id` is a notification and gets no response, even when it fails; a batch answers each of
//! its calls in one array, an empty batch is an invalid request, and a batch of notifications
//! only gets no body at all.

use serde::Serialize;
use serde_json::{Map, Value};

/// The error codes: JSON-RPC's own and the task protocol's (those validation reports carry
/// are vouch-tasks' own constants).
pub mod code {
    /// The body is not JSON.
    pub const PARSE_ERROR: i32 = -32700;
    /// The call is not a valid request object.
    pub const INVALID_REQUEST: i32 = -32600;
    /// No such method.
    pub const METHOD_NOT_FOUND: i32 = -32601;
    /// The parameters are wrong (several kinds of error at once, for task data).
    pub const INVALID_PARAMS: i32 = vouch_tasks::code::INVALID_PARAMS;
    /// The service failed.
    pub const INTERNAL_ERROR: i32 = -32603;
    /// No task with that id.
    pub const TASK_NOT_FOUND: i32 = -32001;
    /// Dependencies form a cycle (`data.cycle`).
    pub const CIRCULAR_DEPENDENCY: i32 = vouch_tasks::code::CIRCULAR_DEPENDENCY;
    /// No executor for the task's method.
    pub const EXECUTOR_NOT_FOUND: i32 = -32003;
    /// The bearer token is missing or wrong.
    pub const UNAUTHORIZED: i32 = -32004;
    /// A field or an input does not match its schema.
    pub const INVALID_SCHEMA: i32 = vouch_tasks::code::VALIDATION;
    /// The state machine does not allow the transition.
    pub const INVALID_TRANSITION: i32 = vouch_tasks::code::INVALID_TRANSITION;
    /// A dependency is not satisfied.
    pub const DEPENDENCY_NOT_SATISFIED: i32 = vouch_tasks::code::DEPENDENCY_NOT_SATISFIED;
    /// The task is executing already.
    pub const ALREADY_EXECUTING: i32 = -32008;
    /// The task cannot be deleted (not pending, or others depend on it).
    pub const CANNOT_DELETE: i32 = -32009;
    /// The parent names no task.
    pub const INVALID_PARENT: i32 = vouch_tasks::code::INVALID_PARENT;
    /// A dependency names no task, or the task itself.
    pub const INVALID_DEPENDENCY: i32 = vouch_tasks::code::INVALID_DEPENDENCY;
    /// The tree is not one tree.
    pub const TREE_VALIDATION: i32 = vouch_tasks::code::INVALID_TREE;

    /// Returns the standard message of `code`.
    pub fn message(code: i32) -> &'static str {
        match code {
            PARSE_ERROR => "Parse error",
            INVALID_REQUEST => "Invalid Request",
            METHOD_NOT_FOUND => "Method not found",
            INVALID_PARAMS => "Invalid params",
            TASK_NOT_FOUND => "Task not found",
            CIRCULAR_DEPENDENCY => "Circular dependency",
            EXECUTOR_NOT_FOUND => "Executor not found",
            UNAUTHORIZED => "Unauthorized",
            INVALID_SCHEMA => "Invalid schema",
            INVALID_TRANSITION => "Invalid state transition",
            DEPENDENCY_NOT_SATISFIED => "Dependency not satisfied",
            ALREADY_EXECUTING => "Task already executing",
            CANNOT_DELETE => "Cannot delete task",
            INVALID_PARENT => "Invalid parent",
            INVALID_DEPENDENCY => "Invalid dependency",
            TREE_VALIDATION => "Invalid task tree",
            _ => "Internal error",
        }
    }
}

/// A failed call: the error object of its response.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Failure {
    /// The code.
    pub code: i32,
    /// What happened, in a line.
    pub message: String,
    /// Details: the aggregated errors, the cycle, …
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

impl Failure {
    /// Returns a failure with `code`, its standard message and `data`.
    pub fn new(code: i32, data: Option<Value>) -> Failure {
        Failure {
            code,
            message: code::message(code).to_owned(),
            data,
        }
    }

    /// Returns "method not found", naming `method`.
    pub fn method_not_found(method: &str) -> Failure {
        Failure::new(
            code::METHOD_NOT_FOUND,
            Some(Value::String(format!("no method `{method}`"))),
        )
    }

    /// Returns "invalid params", saying why.
    pub fn invalid_params(why: impl Into<String>) -> Failure {
        Failure::new(code::INVALID_PARAMS, Some(Value::String(why.into())))
    }

    /// Returns "internal error", saying why.
    pub fn internal(why: impl Into<String>) -> Failure {
        Failure::new(code::INTERNAL_ERROR, Some(Value::String(why.into())))
    }
}

/// The members the A2A request shape adds beside `params` (the interface page's "A2A
/// Protocol Methods"), and where the call came from.
#[derive(Debug, Default, Clone, Copy)]
#[non_exhaustive]
pub struct Extras<'a> {
    /// `metadata` (`stream`).
    pub metadata: Option<&'a Map<String, Value>>,
    /// `configuration` (`push_notification_config`).
    pub configuration: Option<&'a Map<String, Value>>,
    /// True when the call is one of a batch (its answer cannot be a stream).
    pub in_batch: bool,
}

/// The methods a service answers.
pub trait Methods {
    /// Answers `method` with `params` (an array or an object, when given) and the request's
    /// `extras`.
    fn call(
        &self,
        method: &str,
        params: Option<&Value>,
        extras: Extras<'_>,
    ) -> Result<Value, Failure>;
}

/// One response object.
#[derive(Debug, Serialize)]
struct Response {
    jsonrpc: &'static str,
    id: Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    result: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<Failure>,
}

impl Response {
    fn answer(id: Value, outcome: Result<Value, Failure>) -> Response {
        let (result, error) = match outcome {
            Ok(value) => (Some(value), None),
            Err(failure) => (None, Some(failure)),
        };
        Response {
            jsonrpc: "2.0",
            id,
            result,
            error,
        }
    }
}

/// Returns the response body to `body`, `None` when nothing is to be answered (notifications
/// only).
pub fn handle(body: &[u8], methods: &dyn Methods) -> Option<Vec<u8>> {
    let parsed: Value = match serde_json::from_slice(body) {
        Ok(value) => value,
        Err(e) => {
            return Some(encode(&Response::answer(
                Value::Null,
                Err(Failure::new(
                    code::PARSE_ERROR,
                    Some(Value::String(e.to_string())),
                )),
            )));
        }
    };
    match parsed {
        Value::Array(calls) if calls.is_empty() => Some(encode(&Response::answer(
            Value::Null,
            Err(Failure::new(
                code::INVALID_REQUEST,
                Some(Value::String("an empty batch".into())),
            )),
        ))),
        Value::Array(calls) => {
            let answers: Vec<Response> = calls
                .into_iter()
                .filter_map(|call| one(call, methods, true))
                .collect();
            (!answers.is_empty()).then(|| encode(&answers))
        }
        call => one(call, methods, false).map(|answer| encode(&answer)),
    }
}

/// Answers one call, `None` for a notification.
fn one(call: Value, methods: &dyn Methods, in_batch: bool) -> Option<Response> {
    let Value::Object(mut call) = call else {
        return Some(invalid(Value::Null, "a call must be an object"));
    };
    // The id, when it is one JSON-RPC allows; a call without one is a notification.
    let id = match call.remove("id") {
        None => None,
        Some(id @ (Value::Null | Value::String(_) | Value::Number(_))) => Some(id),
        Some(_) => {
            return Some(invalid(
                Value::Null,
                "`id` must be a string, a number or null",
            ));
        }
    };
    if let Err(why) = check_envelope(&call) {
        // An invalid request is answered even without an id: it may not be a notification.
        return Some(invalid(id.unwrap_or(Value::Null), why));
    }
    let method = call
        .get("method")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let extras = Extras {
        metadata: call.get("metadata").and_then(Value::as_object),
        configuration: call.get("configuration").and_then(Value::as_object),
        in_batch,
    };
    let outcome = methods.call(method, call.get("params"), extras);
    id.map(|id| Response::answer(id, outcome))
}

/// Checks the request object's members: `jsonrpc` is `"2.0"`, `method` a string, `params` an
/// array or an object when present, `metadata` and `configuration` (the A2A shape's) objects
/// when present, nothing else.
fn check_envelope(call: &Map<String, Value>) -> Result<(), &'static str> {
    if call.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Err("`jsonrpc` must be \"2.0\"");
    }
    match call.get("method") {
        Some(Value::String(m)) if !m.is_empty() => {}
        _ => return Err("`method` must be a non-empty string"),
    }
    if !matches!(
        call.get("params"),
        None | Some(Value::Array(_) | Value::Object(_))
    ) {
        return Err("`params` must be an array or an object");
    }
    if ["metadata", "configuration"]
        .iter()
        .any(|k| call.get(*k).is_some_and(|v| !v.is_object()))
    {
        return Err("`metadata` and `configuration` must be objects");
    }
    if call.keys().any(|k| {
        !matches!(
            k.as_str(),
            "jsonrpc" | "method" | "params" | "metadata" | "configuration"
        )
    }) {
        return Err(
            "a request has only `jsonrpc`, `method`, `params`, `id`, and the A2A shape's `metadata` and `configuration`",
        );
    }
    Ok(())
}

fn invalid(id: Value, why: &str) -> Response {
    Response::answer(
        id,
        Err(Failure::new(
            code::INVALID_REQUEST,
            Some(Value::String(why.to_owned())),
        )),
    )
}

fn encode<T: Serialize>(value: &T) -> Vec<u8> {
    // Responses are built from `Value`s and strings: serialising them cannot fail.
    serde_json::to_vec(value).unwrap_or_else(|_| {
        br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"Internal error"}}"#
            .to_vec()
    })
}

#[cfg(test)]
mod tests;
