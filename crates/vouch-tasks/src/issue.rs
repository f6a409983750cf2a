//! What validation finds: issues with the protocol's error codes (decision T3), their severity
//! (T2), and the report that collects them all (T1).

use serde::Serialize;
use serde_json::Value;

/// The protocol's error codes (decision T3).
pub mod code {
    /// A circular dependency; the error carries the cycle.
    pub const CIRCULAR_DEPENDENCY: i32 = -32002;
    /// A schema or field error.
    pub const VALIDATION: i32 = -32005;
    /// A transition the state machine does not allow.
    pub const INVALID_TRANSITION: i32 = -32006;
    /// A dependency that is not satisfied.
    pub const DEPENDENCY_NOT_SATISFIED: i32 = -32007;
    /// A `parent_id` that names no task.
    pub const INVALID_PARENT: i32 = -32010;
    /// A dependency that names no task, or the task itself.
    pub const INVALID_DEPENDENCY: i32 = -32011;
    /// A tree error: no root, several roots, a parent cycle, an unreachable task.
    pub const INVALID_TREE: i32 = -32012;
    /// JSON-RPC's "Invalid params": errors of several kinds at once.
    pub const INVALID_PARAMS: i32 = -32602;

    /// Returns the message of a JSON-RPC error with `code`.
    pub fn message(code: i32) -> &'static str {
        match code {
            CIRCULAR_DEPENDENCY => "Circular dependency",
            VALIDATION => "Validation error",
            INVALID_TRANSITION => "Invalid state transition",
            DEPENDENCY_NOT_SATISFIED => "Dependency not satisfied",
            INVALID_PARENT => "Invalid parent",
            INVALID_DEPENDENCY => "Invalid dependency",
            INVALID_TREE => "Invalid task tree",
            _ => "Invalid params",
        }
    }
}

/// How bad an issue is (decision T2): warnings never make a document invalid.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// The document is invalid.
    Error,
    /// Worth fixing; the document stays valid.
    Warning,
}

/// One problem, in the protocol's error format (`field`, `reason`, `expected`, `actual`,
/// `path`) plus its `code` (decision T1).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct Issue {
    /// The field, as a path inside the task (`priority`, `dependencies[1].id`).
    pub field: String,
    /// What is wrong.
    pub reason: String,
    /// What was expected.
    pub expected: Value,
    /// What was found (`null` when the field is missing).
    pub actual: Value,
    /// Where, as a JSON path into the input document (`$[3].priority`).
    pub path: String,
    /// The protocol's error code.
    pub code: i32,
    /// For a circular dependency or a parent cycle: the cycle's task ids, the first repeated
    /// at the end (`[a, b, c, a]`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cycle: Option<Vec<String>>,
    /// Error or warning.
    #[serde(skip)]
    pub severity: Severity,
    /// The task it belongs to: its position among the document's tasks (`None` for the
    /// document as a whole).
    #[serde(skip)]
    pub task: Option<usize>,
}

impl Issue {
    /// Returns an error with `code` on `field` of the task at `task`.
    pub fn error(
        code: i32,
        task: Option<usize>,
        field: impl Into<String>,
        reason: impl Into<String>,
    ) -> Issue {
        Issue {
            field: field.into(),
            reason: reason.into(),
            expected: Value::Null,
            actual: Value::Null,
            path: String::new(),
            code,
            cycle: None,
            severity: Severity::Error,
            task,
        }
    }

    /// Returns a warning with `code` on `field` of the task at `task`.
    pub(crate) fn warning(
        code: i32,
        task: Option<usize>,
        field: impl Into<String>,
        reason: impl Into<String>,
    ) -> Issue {
        Issue {
            severity: Severity::Warning,
            ..Issue::error(code, task, field, reason)
        }
    }

    /// Sets what was expected.
    #[must_use]
    pub fn expected(mut self, expected: impl Into<Value>) -> Issue {
        self.expected = expected.into();
        self
    }

    /// Sets what was found.
    #[must_use]
    pub fn actual(mut self, actual: impl Into<Value>) -> Issue {
        self.actual = actual.into();
        self
    }

    /// Sets the cycle.
    #[must_use]
    pub(crate) fn cycle(mut self, cycle: Vec<String>) -> Issue {
        self.cycle = Some(cycle);
        self
    }

    /// Returns true for an error.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// Everything validation found in a document.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[non_exhaustive]
pub struct ValidationReport {
    /// How many tasks the document holds.
    pub tasks: usize,
    /// The errors, in the order of the document.
    pub errors: Vec<Issue>,
    /// The warnings, in the order of the document.
    pub warnings: Vec<Issue>,
}

impl ValidationReport {
    /// Returns true when there is no error (warnings allowed, decision T2).
    pub fn is_valid(&self) -> bool {
        self.errors.is_empty()
    }

    /// Returns the JSON-RPC error of the document (decision T3): one error's own code, or
    /// `-32602 Invalid params` for two or more; all errors in `data.errors`, the warnings in
    /// `data.warnings`. `None` for a valid document.
    pub fn rpc_error(&self) -> Option<RpcError> {
        let code = rpc_code(&self.errors)?;
        Some(RpcError {
            code,
            message: code::message(code).to_owned(),
            data: RpcErrorData {
                errors: self.errors.clone(),
                warnings: self.warnings.clone(),
            },
        })
    }
}

/// Returns the JSON-RPC error code of `errors` (decision T3, as revised to the protocol's own
/// example): one error's own code, `-32602 Invalid params` for two or more, `None` for none.
pub fn rpc_code(errors: &[Issue]) -> Option<i32> {
    match errors {
        [] => None,
        [one] => Some(one.code),
        _ => Some(code::INVALID_PARAMS),
    }
}

/// A JSON-RPC 2.0 error object.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct RpcError {
    /// The code.
    pub code: i32,
    /// The message of the code.
    pub message: String,
    /// The errors and warnings.
    pub data: RpcErrorData,
}

/// The `data` of an [`RpcError`].
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct RpcErrorData {
    /// Every error.
    pub errors: Vec<Issue>,
    /// Every warning.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<Issue>,
}
