//! The executors a task's `schemas.method` names, and what each checks of a task's `inputs`
//! when the task is created.
//!
//! | method | inputs | result |
//! |---|---|---|
//! | `command` | `command` (shell), `timeout` (s, 300), `cwd`, `output_cap` (bytes, 1 MiB) | `exit_code`, `stdout`, `stderr`, `duration_ms`, output sizes and SHA-256 |
//! | `http` | `url`, `method` (GET), `headers`, `body`, `timeout` (s, 30, at most 600), `max_body` (bytes, 1 MiB) | `status`, `body` (JSON when it parses), `truncated` |
//! | `aggregate_results` | none | each dependency's result, by id |
//! | `vouch.gate` | `config`, `session`, `workdir`, `keyword`, `agent`, `strict` | the verdict |
//! | `vouch.run` | `config`, `task`, `workdir` (`.vouch/work/<id>`), `template` (copied in first), `max_turns`, `max_tokens`, `model_endpoint`, `timeout` (s, 3600) | `vouch run`'s JSON summary, exit code |
//! | `vouch.test` | `path`, `filter`, `jobs`, `cwd`, `timeout` (s, 3600) | `vouch test`'s JSON report, exit code |

mod aggregate;
mod command;
mod gate;
mod http;
mod vouch_child;
mod vouch_run;
mod vouch_test;

pub use http::HttpPolicy;

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use serde_json::{Map, Value};
use vouch_tasks::{Status, Task};

use crate::store::Outcome;

/// What an executor gets to run one task.
#[derive(Debug)]
#[non_exhaustive]
pub struct Job<'a> {
    /// The task.
    pub task: &'a Task,
    /// Its dependencies: id, status, result.
    pub dependencies: &'a [(String, Status, Option<Value>)],
    /// Turns true when the run must stop (cancelled, or the lease was lost).
    pub cancel: Arc<AtomicBool>,
    /// Told of the child process an executor starts (its group), so that the engine's keeper
    /// can stop it if this process cannot; executors that start a child pass it on.
    pub on_group: Option<vouch_process::OnGroup>,
}

/// Runs tasks of one `schemas.method`.
pub trait Executor: Send + Sync + std::fmt::Debug {
    /// The method it runs.
    fn method(&self) -> &'static str;
    /// What is wrong with `inputs` for this executor: (field, reason) pairs.
    fn check(&self, inputs: &Map<String, Value>) -> Vec<(String, String)>;
    /// Runs the job to its end.
    fn run(&self, job: &Job<'_>) -> Outcome;
}

/// apflow's executor ids and vouch's executor of the same job: tasks written for apflow run
/// unchanged (their inputs are read as the vouch executor reads them; docs/server.md says
/// where they differ).
pub const APFLOW_NAMES: &[(&str, &str)] = &[
    ("command_executor", "command"),
    ("aggregate_results_executor", "aggregate_results"),
    ("rest_executor", "http"),
];

/// The executors a service knows, by method.
#[derive(Debug, Clone)]
pub struct Registry {
    executors: Vec<Arc<dyn Executor>>,
    /// What outgoing requests may reach (the `http` executor's and push callbacks').
    policy: HttpPolicy,
}

/// Whether the `command` executor confines its commands by the kernel (`vouch serve
/// --sandbox`): writes only beneath the task's folder and a temporary folder of its own, reads
/// only the system's folders and the toolchains', no network.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CommandSandbox {
    /// Confined; a machine that cannot enforce it does not serve.
    On,
    /// Confined as far as the kernel can.
    BestEffort,
    /// Not confined by the kernel.
    #[default]
    Off,
}

impl Default for Registry {
    fn default() -> Registry {
        Registry::with_http(HttpPolicy::default())
    }
}

impl Registry {
    /// Returns the executors, the `http` one under `policy`, commands not confined.
    pub fn with_http(policy: HttpPolicy) -> Registry {
        Registry::with_policies(policy, CommandSandbox::Off)
    }

    /// Returns the executors, the `http` one under `policy`, the `command` one under
    /// `sandbox`.
    pub fn with_policies(policy: HttpPolicy, sandbox: CommandSandbox) -> Registry {
        Registry {
            executors: vec![
                Arc::new(command::ShellCommand { sandbox }),
                Arc::new(http::Http { policy }),
                Arc::new(aggregate::Aggregate),
                Arc::new(gate::GateCheck),
                Arc::new(vouch_run::VouchRun),
                Arc::new(vouch_test::VouchTest),
            ],
            policy,
        }
    }

    /// Returns what outgoing requests may reach.
    pub fn http_policy(&self) -> HttpPolicy {
        self.policy
    }

    /// Returns the executor of `method` — vouch's name, or apflow's name of the same executor
    /// ([`APFLOW_NAMES`]).
    pub fn get(&self, method: &str) -> Option<&Arc<dyn Executor>> {
        let method = APFLOW_NAMES
            .iter()
            .find(|(apflow, _)| *apflow == method)
            .map_or(method, |(_, ours)| ours);
        self.executors.iter().find(|e| e.method() == method)
    }

    /// Returns the methods known, in order.
    pub fn methods(&self) -> Vec<&'static str> {
        self.executors.iter().map(|e| e.method()).collect()
    }
}

/// Returns a failure with `message` and other `fields`.
pub(super) fn failed(message: impl Into<String>, fields: Value) -> Outcome {
    let mut error = Map::new();
    error.insert("message".into(), Value::String(message.into()));
    if let Value::Object(more) = fields {
        error.extend(more);
    }
    Outcome::Failed(Value::Object(error))
}

pub(super) fn string<'a>(inputs: &'a Map<String, Value>, key: &str) -> Option<&'a str> {
    inputs.get(key).and_then(Value::as_str)
}

/// Checks that `key` is a string (when `required`, that it is there).
pub(super) fn need_string(
    inputs: &Map<String, Value>,
    key: &str,
    required: bool,
    out: &mut Vec<(String, String)>,
) {
    match inputs.get(key) {
        None | Some(Value::Null) if required => {
            out.push((format!("inputs.{key}"), format!("`{key}` is required")));
        }
        None | Some(Value::Null | Value::String(_)) => {}
        Some(_) => out.push((format!("inputs.{key}"), format!("`{key}` must be a string"))),
    }
}

/// Checks that `key`, when there, is a positive number.
pub(super) fn need_seconds(
    inputs: &Map<String, Value>,
    key: &str,
    out: &mut Vec<(String, String)>,
) {
    if let Some(v) = inputs.get(key).filter(|v| !v.is_null())
        && !v.as_f64().is_some_and(|s| s > 0.0 && s.is_finite())
    {
        out.push((
            format!("inputs.{key}"),
            format!("`{key}` must be a positive number of seconds"),
        ));
    }
}

pub(super) fn seconds(inputs: &Map<String, Value>, key: &str, default: f64) -> Duration {
    let s = inputs.get(key).and_then(Value::as_f64).unwrap_or(default);
    Duration::try_from_secs_f64(s).unwrap_or(Duration::from_secs(1))
}
