//! The task protocol: tasks and task trees, every validation rule of the protocol's
//! "Validation Rules and Algorithms" (resolved by decisions T1–T11), the state machine,
//! readiness, and JSON-RPC error objects.
//!
//! ```
//! let doc = r#"[
//!   {"id": "3f2b8c1e-9d4a-4f6b-8a2c-1e5d7f9b0a3c", "name": "root", "status": "pending", "priority": 5},
//!   {"id": "7a1d2e3f-4b5c-4d6e-9f70-8192a3b4c5d6", "name": "child", "status": "in_progress",
//!    "parent_id": "3f2b8c1e-9d4a-4f6b-8a2c-1e5d7f9b0a3c"}
//! ]"#;
//! let report = vouch_tasks::validate_str(doc)?;
//! let paths: Vec<&str> = report.errors.iter().map(|e| e.path.as_str()).collect();
//! assert_eq!(paths, ["$[0].priority", "$[1].started_at"]);
//! let rpc = report.rpc_error().unwrap();
//! // Two errors: -32602 Invalid params, each error keeping its own code (decision T3).
//! assert_eq!(rpc.code, -32602);
//! assert!(rpc.data.errors.iter().all(|e| e.code == -32005));
//! # Ok::<(), vouch_tasks::SyntaxError>(())
//! ```

#![deny(missing_docs)]

mod document;
mod issue;
mod model;
mod next_run;
mod readiness;
mod rules;
mod timestamp;
mod transition;
mod uuid;

pub use document::{Document, Form, SyntaxError, TaskLabel};
pub use issue::{Issue, RpcError, RpcErrorData, Severity, ValidationReport, code, rpc_code};
pub use model::{Dependency, OriginType, ScheduleType, SchemaType, Schemas, Status, Task};
pub use next_run::next_run;
pub use readiness::{Blocked, Entry, Readiness, ready_order, satisfied};
pub use rules::{validate, validate_text};
pub use timestamp::{Invalid as InvalidTimestamp, Timestamp, parse as parse_timestamp};
pub use transition::{check_transition, next_statuses};

/// Parses and validates a document.
pub fn validate_str(text: &str) -> Result<ValidationReport, SyntaxError> {
    rules::validate_text(text).map(|(_, report)| report)
}

/// Returns the JSON Schema (draft-07) of a task: the shape of each task on its own.
pub fn task_schema() -> serde_json::Value {
    serde_json::from_str(include_str!("schema.json")).unwrap_or(serde_json::Value::Null)
}

/// Returns the instant a protocol timestamp (T7) names, in microseconds since the epoch (UTC
/// when it gives no offset); `None` when it is not one.
pub fn timestamp_micros(text: &str) -> Option<i64> {
    timestamp::parse(text).ok().map(|t| t.micros)
}
