//! The executors a task's `schemas.method` names, and what each checks of a task's `inputs`
//! when the task is created.
//!
//! | method | inputs | result |
//! |---|---|---|
//! | `command` | `command` (shell), `timeout` (s, 300), `cwd`, `output_cap` (bytes, 1 MiB) | `exit_code`, `stdout`, `stderr`, `duration_ms`, output sizes and SHA-256 |
//! | `http` | `url`, `method` (GET), `headers`, `body`, `timeout` (s, 30) | `status`, `body` (JSON when it parses) |
//! | `aggregate_results` | none | each dependency's result, by id |
//! | `vouch.gate` | `config`, `session`, `workdir`, `keyword`, `agent`, `strict` | the verdict |

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use serde_json::{Map, Value, json};
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

/// The executors a service knows, by method.
#[derive(Debug, Clone)]
pub struct Registry {
    executors: Vec<Arc<dyn Executor>>,
}

impl Default for Registry {
    fn default() -> Registry {
        Registry {
            executors: vec![
                Arc::new(ShellCommand),
                Arc::new(Http),
                Arc::new(Aggregate),
                Arc::new(GateCheck),
            ],
        }
    }
}

impl Registry {
    /// Returns the executor of `method`.
    pub fn get(&self, method: &str) -> Option<&Arc<dyn Executor>> {
        self.executors.iter().find(|e| e.method() == method)
    }

    /// Returns the methods known, in order.
    pub fn methods(&self) -> Vec<&'static str> {
        self.executors.iter().map(|e| e.method()).collect()
    }
}

/// Returns a failure with `message` and other `fields`.
fn failed(message: impl Into<String>, fields: Value) -> Outcome {
    let mut error = Map::new();
    error.insert("message".into(), Value::String(message.into()));
    if let Value::Object(more) = fields {
        error.extend(more);
    }
    Outcome::Failed(Value::Object(error))
}

fn string<'a>(inputs: &'a Map<String, Value>, key: &str) -> Option<&'a str> {
    inputs.get(key).and_then(Value::as_str)
}

/// Checks that `key` is a string (when `required`, that it is there).
fn need_string(
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
fn need_seconds(inputs: &Map<String, Value>, key: &str, out: &mut Vec<(String, String)>) {
    if let Some(v) = inputs.get(key).filter(|v| !v.is_null())
        && !v.as_f64().is_some_and(|s| s > 0.0 && s.is_finite())
    {
        out.push((
            format!("inputs.{key}"),
            format!("`{key}` must be a positive number of seconds"),
        ));
    }
}

fn seconds(inputs: &Map<String, Value>, key: &str, default: f64) -> Duration {
    let s = inputs.get(key).and_then(Value::as_f64).unwrap_or(default);
    Duration::try_from_secs_f64(s).unwrap_or(Duration::from_secs(1))
}

/// `command`: a shell command through the process crate.
#[derive(Debug)]
struct ShellCommand;

impl Executor for ShellCommand {
    fn method(&self) -> &'static str {
        "command"
    }

    fn check(&self, inputs: &Map<String, Value>) -> Vec<(String, String)> {
        let mut out = Vec::new();
        need_string(inputs, "command", true, &mut out);
        need_string(inputs, "cwd", false, &mut out);
        need_seconds(inputs, "timeout", &mut out);
        if let Some(v) = inputs.get("output_cap").filter(|v| !v.is_null())
            && v.as_u64().is_none_or(|n| n == 0)
        {
            out.push((
                "inputs.output_cap".into(),
                "`output_cap` must be a positive number of bytes".into(),
            ));
        }
        out
    }

    fn run(&self, job: &Job<'_>) -> Outcome {
        let inputs = &job.task.inputs;
        let Some(script) = string(inputs, "command") else {
            return failed("inputs.command is missing", Value::Null);
        };
        let timeout = seconds(inputs, "timeout", 300.0);
        let cap = inputs
            .get("output_cap")
            .and_then(Value::as_u64)
            .and_then(|n| usize::try_from(n).ok())
            .unwrap_or(1 << 20);
        let mut command = parent_bound_shell();
        command.arg(script);
        if let Some(cwd) = string(inputs, "cwd") {
            command.current_dir(cwd);
        }
        command.env("VOUCH_TASK_ID", &job.task.id);
        let options = vouch_process::Options::new(timeout)
            .cap(cap)
            .cancel_on(Arc::clone(&job.cancel));
        match vouch_process::run(command, &options) {
            Err(e) => failed(format!("cannot start the command: {e}"), Value::Null),
            Ok(done) => {
                let mut report = json!({
                    "exit_code": done.exit_code,
                    "stdout": done.stdout_text(),
                    "stderr": done.stderr_text(),
                    "stdout_bytes": done.stdout_len,
                    "stderr_bytes": done.stderr_len,
                    "stdout_sha256": done.stdout_sha256,
                    "duration_ms": u64::try_from(done.elapsed.as_millis()).unwrap_or(u64::MAX),
                });
                // Processes that left the command's group and were stopped when it ended.
                if !done.escaped.is_empty()
                    && let Value::Object(m) = &mut report
                {
                    let escaped = done
                        .escaped
                        .iter()
                        .map(|e| Value::String(e.to_string()))
                        .collect();
                    m.insert("escaped".into(), Value::Array(escaped));
                }
                if done.succeeded() {
                    Outcome::Completed(report)
                } else {
                    let why = if done.timed_out {
                        format!(
                            "the command ran past its timeout of {} s",
                            timeout.as_secs_f64()
                        )
                    } else if done.cancelled {
                        "the command was stopped".to_owned()
                    } else if let Some(code) = done.exit_code {
                        format!("the command exited with code {code}")
                    } else {
                        format!(
                            "the command was ended by signal {}",
                            done.signal.unwrap_or(0)
                        )
                    };
                    if let Value::Object(m) = &mut report {
                        m.insert("timed_out".into(), Value::Bool(done.timed_out));
                    }
                    failed(why, report)
                }
            }
        }
    }
}

/// Returns `sh -c` that dies with the thread that starts it (Linux's parent-death signal, set
/// by util-linux's `setpriv` when it is there): a worker killed with `kill -9` takes its
/// command's shell with it, so a task re-claimed after its lease does not run twice at once.
fn parent_bound_shell() -> Command {
    static SETPRIV: std::sync::OnceLock<Option<PathBuf>> = std::sync::OnceLock::new();
    let setpriv = SETPRIV.get_or_init(|| {
        ["/usr/bin/setpriv", "/bin/setpriv"]
            .iter()
            .map(PathBuf::from)
            .find(|p| p.is_file())
    });
    match setpriv {
        Some(setpriv) => {
            let mut c = Command::new(setpriv);
            c.args(["--pdeathsig", "KILL", "--", "sh", "-c"]);
            c
        }
        None => {
            let mut c = Command::new("sh");
            c.arg("-c");
            c
        }
    }
}

/// `http`: one request with reqwest.
#[derive(Debug)]
struct Http;

impl Executor for Http {
    fn method(&self) -> &'static str {
        "http"
    }

    fn check(&self, inputs: &Map<String, Value>) -> Vec<(String, String)> {
        let mut out = Vec::new();
        need_string(inputs, "url", true, &mut out);
        need_string(inputs, "method", false, &mut out);
        need_seconds(inputs, "timeout", &mut out);
        if let Some(url) = string(inputs, "url")
            && reqwest::Url::parse(url).map_or(true, |u| !matches!(u.scheme(), "http" | "https"))
        {
            out.push((
                "inputs.url".into(),
                "`url` must be an http or https URL".into(),
            ));
        }
        if let Some(m) = string(inputs, "method")
            && reqwest::Method::from_bytes(m.to_ascii_uppercase().as_bytes()).is_err()
        {
            out.push((
                "inputs.method".into(),
                format!("`{m}` is not an HTTP method"),
            ));
        }
        if inputs
            .get("headers")
            .is_some_and(|h| !h.is_null() && !h.is_object())
        {
            out.push((
                "inputs.headers".into(),
                "`headers` must be an object of strings".into(),
            ));
        }
        out
    }

    fn run(&self, job: &Job<'_>) -> Outcome {
        let inputs = &job.task.inputs;
        let runtime = match tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
        {
            Ok(r) => r,
            Err(e) => return failed(format!("cannot start an HTTP client: {e}"), Value::Null),
        };
        runtime.block_on(request(inputs, seconds(inputs, "timeout", 30.0)))
    }
}

async fn request(inputs: &Map<String, Value>, timeout: Duration) -> Outcome {
    let client = match crate::client::http_client(timeout) {
        Ok(c) => c,
        Err(e) => return failed(e, Value::Null),
    };
    let url = string(inputs, "url").unwrap_or_default();
    let method = string(inputs, "method")
        .unwrap_or("GET")
        .to_ascii_uppercase();
    let method = reqwest::Method::from_bytes(method.as_bytes()).unwrap_or(reqwest::Method::GET);
    let mut request = client.request(method, url);
    if let Some(Value::Object(headers)) = inputs.get("headers") {
        for (k, v) in headers {
            let v = v.as_str().map_or_else(|| v.to_string(), str::to_owned);
            request = request.header(k.as_str(), v);
        }
    }
    match inputs.get("body") {
        None | Some(Value::Null) => {}
        Some(Value::String(s)) => request = request.body(s.clone()),
        Some(v) => {
            request = request
                .header("content-type", "application/json")
                .body(v.to_string());
        }
    }
    let response = match request.send().await {
        Ok(r) => r,
        Err(e) if e.is_timeout() => {
            return failed(
                format!("no answer from {url} within {} s", timeout.as_secs_f64()),
                Value::Null,
            );
        }
        Err(e) => return failed(format!("request to {url} failed: {e}"), Value::Null),
    };
    let status = response.status().as_u16();
    let text = match response.text().await {
        Ok(t) => t,
        Err(e) => {
            return failed(
                format!("reading the answer of {url} failed: {e}"),
                Value::Null,
            );
        }
    };
    let body = serde_json::from_str::<Value>(&text).unwrap_or(Value::String(text));
    let report = json!({"status": status, "body": body});
    if (200..300).contains(&status) {
        Outcome::Completed(report)
    } else {
        failed(format!("{url} answered HTTP {status}"), report)
    }
}

/// `aggregate_results`: the results of the task's dependencies, by id.
#[derive(Debug)]
struct Aggregate;

impl Executor for Aggregate {
    fn method(&self) -> &'static str {
        "aggregate_results"
    }

    fn check(&self, _inputs: &Map<String, Value>) -> Vec<(String, String)> {
        Vec::new()
    }

    fn run(&self, job: &Job<'_>) -> Outcome {
        let results: Map<String, Value> = job
            .dependencies
            .iter()
            .map(|(id, _, result)| (id.clone(), result.clone().unwrap_or(Value::Null)))
            .collect();
        Outcome::Completed(json!({"results": results, "count": results.len()}))
    }
}

/// `vouch.gate`: a gate of a configuration, evaluated on a session log.
#[derive(Debug)]
struct GateCheck;

impl Executor for GateCheck {
    fn method(&self) -> &'static str {
        "vouch.gate"
    }

    fn check(&self, inputs: &Map<String, Value>) -> Vec<(String, String)> {
        let mut out = Vec::new();
        need_string(inputs, "config", true, &mut out);
        need_string(inputs, "session", true, &mut out);
        for key in ["workdir", "keyword", "agent"] {
            need_string(inputs, key, false, &mut out);
        }
        if inputs
            .get("strict")
            .is_some_and(|v| !v.is_null() && !v.is_boolean())
        {
            out.push((
                "inputs.strict".into(),
                "`strict` must be true or false".into(),
            ));
        }
        out
    }

    fn run(&self, job: &Job<'_>) -> Outcome {
        let inputs = &job.task.inputs;
        let (Some(config), Some(session)) = (string(inputs, "config"), string(inputs, "session"))
        else {
            return failed("inputs.config and inputs.session are required", Value::Null);
        };
        let strict = inputs
            .get("strict")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        let gates = match vouch_gate::GateSet::load_with_strict(Path::new(config), strict) {
            Ok(g) => g,
            Err(errors) => {
                let problems: Vec<String> = errors
                    .errors
                    .iter()
                    .map(|e| format!("{}: {}", e.key_path, e.message))
                    .collect();
                return failed(
                    format!(
                        "the gate configuration {config} does not load: {}",
                        problems.join("; ")
                    ),
                    Value::Null,
                );
            }
        };
        let agent = string(inputs, "agent");
        let gate = match string(inputs, "keyword") {
            Some(k) => match gates.handoff(k, agent) {
                Some(g) => g,
                None => return failed(format!("no route takes `{k}` in {config}"), Value::Null),
            },
            None => gates.completion(agent),
        };
        let options = vouch_session::ReadOptions {
            last_turns: gate.turns_needed(),
            ..vouch_session::ReadOptions::default()
        };
        let read = match vouch_session::read_path(Path::new(session), &options) {
            Ok(r) => r,
            Err(e) => {
                return failed(
                    format!("cannot read the session {session}: {e}"),
                    Value::Null,
                );
            }
        };
        let workdir = string(inputs, "workdir").map_or_else(
            || {
                Path::new(config)
                    .parent()
                    .map_or_else(|| PathBuf::from("."), Path::to_path_buf)
            },
            PathBuf::from,
        );
        let view = vouch_evidence::EvidenceView::new(
            &read.session,
            workdir,
            gates.config().validation().paths.clone(),
        )
        .with_diagnostics(&read.diagnostics);
        match gate.evaluate(&view) {
            vouch_gate::Verdict::Pass => {
                Outcome::Completed(json!({"verdict": "pass", "validators": gate.names()}))
            }
            vouch_gate::Verdict::Block(b) => failed(
                b.message.clone(),
                json!({"verdict": "block", "validator": b.validator, "validators": gate.names()}),
            ),
        }
    }
}
