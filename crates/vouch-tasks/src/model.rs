//! The task of the protocol, as a typed value: what a valid document's tasks deserialize into.
//! Unknown fields are kept in [`Task::extra`] and written back unchanged (decision T10).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

macro_rules! name_enum {
    ($(#[$doc:meta])* $name:ident { $($(#[$vdoc:meta])* $variant:ident = $text:literal),+ $(,)? }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        pub enum $name {
            $($(#[$vdoc])* #[serde(rename = $text)] $variant),+
        }

        impl $name {
            /// Every value, in the protocol's order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// Returns the name the protocol writes.
            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $text),+
                }
            }

            /// Returns the names, joined by `|`.
            pub fn names() -> String {
                Self::ALL.iter().map(|v| v.as_str()).collect::<Vec<_>>().join("|")
            }
        }

        impl FromStr for $name {
            type Err = ();
            fn from_str(s: &str) -> Result<$name, ()> {
                match s {
                    $($text => Ok($name::$variant),)+
                    _ => Err(()),
                }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

name_enum! {
    /// A task's status.
    Status {
        /// Not started.
        Pending = "pending",
        /// Running.
        InProgress = "in_progress",
        /// Finished with a result.
        Completed = "completed",
        /// Finished with an error; may be run again.
        Failed = "failed",
        /// Stopped before finishing.
        Cancelled = "cancelled",
    }
}

impl Status {
    /// Returns true for `completed`, `failed` and `cancelled`.
    pub fn is_terminal(self) -> bool {
        matches!(self, Status::Completed | Status::Failed | Status::Cancelled)
    }
}

name_enum! {
    /// Where a task's executor runs (`schemas.type`).
    SchemaType {
        /// In process.
        Local = "local",
        /// On another service.
        Remote = "remote",
        /// Outside the system.
        External = "external",
    }
}

name_enum! {
    /// How a task came to be.
    OriginType {
        /// Created from scratch.
        Create = "create",
        /// A reference to another task.
        Link = "link",
        /// A modifiable copy of another task.
        Copy = "copy",
        /// A frozen archive of another task.
        Archive = "archive",
    }
}

name_enum! {
    /// How a scheduled task repeats.
    ScheduleType {
        /// Once, at an ISO 8601 time.
        Once = "once",
        /// Every N seconds.
        Interval = "interval",
        /// On a cron expression.
        Cron = "cron",
        /// Every day at `HH:MM`.
        Daily = "daily",
        /// On weekdays (1 = Monday … 7 = Sunday) at `HH:MM`.
        Weekly = "weekly",
        /// On days of the month at `HH:MM`.
        Monthly = "monthly",
    }
}

/// A dependency on another task.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "DependencyRepr")]
pub struct Dependency {
    /// The task depended on.
    pub id: String,
    /// Whether it must complete (`true`), or only end (`false`).
    pub required: bool,
}

/// A dependency as documents write it: an object, or the bare id.
#[derive(Deserialize)]
#[serde(untagged)]
enum DependencyRepr {
    Object {
        id: String,
        #[serde(default = "yes")]
        required: bool,
    },
    Id(String),
}

fn yes() -> bool {
    true
}

impl From<DependencyRepr> for Dependency {
    fn from(r: DependencyRepr) -> Dependency {
        match r {
            DependencyRepr::Object { id, required } => Dependency { id, required },
            DependencyRepr::Id(id) => Dependency { id, required: true },
        }
    }
}

/// A task's `schemas`: how it runs, and what its inputs must look like.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Schemas {
    /// Where the executor runs.
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<SchemaType>,
    /// The executor's method.
    pub method: String,
    /// A JSON Schema (draft-07) the task's `inputs` must conform to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_schema: Option<Value>,
    /// The model, for executors that use one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<Value>,
    /// Other keys, kept.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A task of the protocol. Timestamps keep their text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[expect(
    missing_docs,
    reason = "the fields are the protocol's, documented in docs/tasks.md"
)]
pub struct Task {
    pub id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_id: Option<String>,
    pub name: String,
    pub status: Status,
    #[serde(default = "default_priority")]
    pub priority: u8,
    #[serde(default, deserialize_with = "null_as_default")]
    pub inputs: Map<String, Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schemas: Option<Schemas>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub params: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<Value>,
    #[serde(default, deserialize_with = "null_as_default")]
    pub dependencies: Vec<Dependency>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub progress: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_at: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated_at: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_at: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completed_at: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin_type: Option<OriginType>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub original_task_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub has_references: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schedule_type: Option<ScheduleType>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schedule_expression: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schedule_enabled: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schedule_start_at: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schedule_end_at: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_run_at: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_run_at: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_runs: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_count: Option<u64>,
    /// Fields the protocol does not define, kept as they were (decision T10).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

fn default_priority() -> u8 {
    2
}

fn null_as_default<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Default + Deserialize<'de>,
{
    Ok(Option::<T>::deserialize(d)?.unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_fields_survive_a_round_trip() {
        let text = r#"{"id":"3f2b8c1e-9d4a-4f6b-8a2c-1e5d7f9b0a3c","name":"a","status":"pending","dependencies":["x",{"id":"y","required":false}],"custom":{"k":[1,2]},"schemas":{"method":"m","timeout":5}}"#;
        let task: Task = serde_json::from_str(text).unwrap();
        assert_eq!(task.priority, 2);
        assert_eq!(
            task.dependencies[0],
            Dependency {
                id: "x".into(),
                required: true
            }
        );
        assert!(!task.dependencies[1].required);
        let back = serde_json::to_value(&task).unwrap();
        assert_eq!(back["custom"], serde_json::json!({"k": [1, 2]}));
        assert_eq!(back["schemas"]["timeout"], 5);
    }
}
