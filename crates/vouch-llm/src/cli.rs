//! Agent CLIs as graders: `claude -p --output-format json` and `codex exec --json`, the prompt
//! on standard input (never an argument: a prompt holds the graded output, which may be long
//! or hostile), in a fresh folder, and no session of theirs left behind for a later test to
//! mistake for its own.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tokio::sync::Semaphore;

use vouch_process::{Options, clip};
use vouch_session::locations;

use crate::client::{BoxFuture, ModelClient, Reply, Request, Usage};
use crate::error::Error;

/// Which agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CliKind {
    /// Claude Code: `claude -p --output-format json [--model M]`.
    Claude,
    /// Codex: `codex exec --json --skip-git-repo-check -C DIR [--model M] -`.
    Codex,
}

impl CliKind {
    /// The program's name on `PATH`.
    pub fn program(self) -> &'static str {
        match self {
            CliKind::Claude => "claude",
            CliKind::Codex => "codex",
        }
    }
}

/// An agent CLI that grades.
#[derive(Debug)]
pub struct AgentCli {
    kind: CliKind,
    program: Option<PathBuf>,
    model: Option<String>,
    timeout: Duration,
    limit: Arc<Semaphore>,
    envs: Vec<(OsString, OsString)>,
}

impl AgentCli {
    /// Returns the grader run by `program` (found on `PATH` when `None`, at each call).
    pub fn new(
        kind: CliKind,
        program: Option<PathBuf>,
        model: Option<String>,
        timeout: Duration,
        limit: Arc<Semaphore>,
    ) -> AgentCli {
        AgentCli {
            kind,
            program,
            model,
            timeout,
            limit,
            envs: Vec::new(),
        }
    }

    /// Sets an environment variable of the agent's process.
    #[must_use]
    pub fn env(mut self, key: impl Into<OsString>, value: impl Into<OsString>) -> AgentCli {
        self.envs.push((key.into(), value.into()));
        self
    }

    async fn ask(&self, request: &Request) -> Result<Reply, Error> {
        let name = self.kind.program();
        let program = match &self.program {
            Some(p) => p.clone(),
            None => {
                let path = locations::env_with(&self.envs)("PATH").unwrap_or_default();
                vouch_process::find_on_path(name, &path).ok_or_else(|| {
                    Error::Process(format!(
                        "grader `{name}` was not found on PATH (install it, or configure another \
                         grader in vouch.yaml: docs/llm-review.md)"
                    ))
                })?
            }
        };
        let _permit = self
            .limit
            .acquire()
            .await
            .map_err(|_| Error::Config("the grader's limit was closed".into()))?;
        let dir = tempfile::Builder::new()
            .prefix("vouch-grade-")
            .tempdir()
            .map_err(|e| Error::Process(format!("cannot make a folder for {name}: {e}")))?;
        let model = request.model.as_deref().or(self.model.as_deref());
        let mut cmd = std::process::Command::new(&program);
        match self.kind {
            CliKind::Claude => {
                cmd.args(["-p", "--output-format", "json"]);
                if let Some(m) = model {
                    cmd.args(["--model", m]);
                }
            }
            CliKind::Codex => {
                cmd.args(["exec", "--json", "--skip-git-repo-check", "-C"])
                    .arg(dir.path());
                if let Some(m) = model {
                    cmd.args(["--model", m]);
                }
                cmd.arg("-");
            }
        }
        cmd.current_dir(dir.path())
            .envs(self.envs.iter().map(|(k, v)| (k, v)));
        // The whole prompt, system part first, on standard input.
        let mut input = String::new();
        if let Some(system) = &request.system {
            input.push_str(system);
            input.push_str("\n\n");
        }
        input.push_str(&request.prompt);
        let options = Options::new(self.timeout).stdin(input);
        let output = tokio::task::spawn_blocking(move || vouch_process::run(cmd, &options))
            .await
            .map_err(|e| Error::Process(format!("{name} failed: {e}")))?
            .map_err(|e| Error::Process(format!("cannot start {}: {e}", program.display())))?;
        if output.timed_out {
            return Err(Error::Timeout {
                provider: name.to_owned(),
                after: self.timeout,
            });
        }
        let stdout = String::from_utf8_lossy(&output.stdout);
        let reply = match self.kind {
            CliKind::Claude => claude_reply(&stdout),
            CliKind::Codex => codex_reply(&stdout),
        };
        self.clean_up(dir.path(), reply.as_ref().ok().and_then(|r| r.1.as_deref()));
        if !output.succeeded() {
            let stderr = output.stderr_text();
            let detail = match &reply {
                Err(e) => e.to_string(),
                Ok(_) if stderr.trim().is_empty() => "no message".to_owned(),
                Ok(_) => clip::tail(stderr.trim(), 300),
            };
            return Err(Error::Process(format!(
                "{name} exited with {}: {detail}",
                output
                    .exit_code
                    .map_or_else(|| "a signal".to_owned(), |c| format!("code {c}"))
            )));
        }
        let (text, _, usage) = reply?;
        Ok(Reply {
            text,
            model: model.unwrap_or("default").to_owned(),
            structured: false,
            usage,
        })
    }

    /// Removes the session the agent kept of this grading: Claude Code's project folder of the
    /// grading folder, Codex's rollout of this thread.
    fn clean_up(&self, dir: &Path, thread: Option<&str>) {
        let env = locations::env_with(&self.envs);
        match self.kind {
            CliKind::Claude => {
                if let Some(config) = locations::claude_config_dir(env) {
                    let _ = std::fs::remove_dir_all(locations::claude_project_dir(&config, dir));
                }
            }
            CliKind::Codex => {
                let Some(thread) = thread else { return };
                if let Some(home) = locations::codex_home(env) {
                    remove_rollout(&locations::codex_sessions_dir(&home), thread, 4);
                }
            }
        }
    }
}

/// Reads `claude -p --output-format json`: one result object (the last line that is one). A
/// program that prints no result object (a wrapper that prints the answer itself) answered
/// with what it printed.
fn claude_reply(stdout: &str) -> Result<(String, Option<String>, Option<Usage>), Error> {
    let result = stdout
        .lines()
        .rev()
        .filter_map(|l| serde_json::from_str::<Value>(l.trim()).ok())
        .find(|v| v.get("type").and_then(Value::as_str) == Some("result"))
        .or_else(|| {
            serde_json::from_str::<Value>(stdout.trim())
                .ok()
                .filter(|v| v.get("result").is_some())
        });
    let Some(result) = result else {
        return plain(stdout, "claude");
    };
    let text = result
        .get("result")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    if result.get("is_error").and_then(Value::as_bool) == Some(true) {
        return Err(Error::Process(format!(
            "claude reported an error: {}",
            clip::tail(text.trim(), 300)
        )));
    }
    if text.trim().is_empty() {
        return Err(Error::Process("claude printed an empty result".into()));
    }
    let usage = Usage::anthropic(result.get("usage"));
    Ok((text, None, usage))
}

/// Reads `codex exec --json`: the last agent message, and the thread's id.
fn codex_reply(stdout: &str) -> Result<(String, Option<String>, Option<Usage>), Error> {
    let mut text = None;
    let mut thread = None;
    let mut failure = None;
    let mut usage: Option<Usage> = None;
    for line in stdout.lines() {
        let Ok(event) = serde_json::from_str::<Value>(line.trim()) else {
            continue;
        };
        match event.get("type").and_then(Value::as_str) {
            Some("thread.started") => {
                thread = event
                    .get("thread_id")
                    .and_then(Value::as_str)
                    .map(str::to_owned);
            }
            Some("item.completed") => {
                let item = event.get("item");
                let kind = item.and_then(|i| i.get("type")).and_then(Value::as_str);
                if matches!(kind, Some("agent_message" | "assistant_message")) {
                    text = item
                        .and_then(|i| i.get("text"))
                        .and_then(Value::as_str)
                        .map(str::to_owned);
                }
            }
            Some("turn.completed") => {
                if let Some(u) =
                    Usage::read(event.get("usage"), &["input_tokens"], &["output_tokens"])
                {
                    usage = Some(usage.unwrap_or_default() + u);
                }
            }
            Some("error" | "turn.failed") => {
                failure = Some(
                    event
                        .pointer("/error/message")
                        .or_else(|| event.get("message"))
                        .and_then(Value::as_str)
                        .unwrap_or("a failed turn")
                        .to_owned(),
                );
            }
            _ => {}
        }
    }
    match (text, failure) {
        (Some(text), _) if !text.trim().is_empty() => Ok((text, thread, usage)),
        (_, Some(failure)) => Err(Error::Process(format!("codex failed: {failure}"))),
        (None, None) if thread.is_none() => plain(stdout, "codex"),
        _ => Err(Error::Process("codex printed no agent message".into())),
    }
}

/// The answer of a program that printed it rather than the CLI's JSON: its whole output.
fn plain(stdout: &str, name: &str) -> Result<(String, Option<String>, Option<Usage>), Error> {
    if stdout.trim().is_empty() {
        return Err(Error::Process(format!("{name} printed nothing")));
    }
    Ok((stdout.trim().to_owned(), None, None))
}

/// Deletes the rollout files of `thread` under `dir`, looking `depth` folders down.
fn remove_rollout(dir: &Path, thread: &str, depth: u32) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() && depth > 0 {
            remove_rollout(&path, thread, depth - 1);
        } else if path
            .file_name()
            .is_some_and(|n| n.to_string_lossy().contains(thread))
        {
            let _ = std::fs::remove_file(path);
        }
    }
}

impl ModelClient for AgentCli {
    fn kind(&self) -> &'static str {
        self.kind.program()
    }

    fn default_model(&self) -> Option<&str> {
        self.model.as_deref()
    }

    fn complete<'a>(&'a self, request: &'a Request) -> BoxFuture<'a, Result<Reply, Error>> {
        Box::pin(self.ask(request))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replies_of_both_clis_are_read() {
        let claude = r#"{"type":"result","subtype":"success","is_error":false,"result":"{\"score\": 8}","session_id":"s","usage":{"input_tokens":3,"cache_read_input_tokens":1200,"output_tokens":40}}"#;
        let (text, _, usage) = claude_reply(claude).unwrap();
        assert_eq!(text, r#"{"score": 8}"#);
        assert_eq!(
            usage,
            Some(Usage {
                input: 1203,
                output: 40
            })
        );
        assert!(
            claude_reply(r#"{"type":"result","is_error":true,"result":"Credit balance too low"}"#)
                .is_err()
        );
        // A wrapper that prints the answer itself answered with it.
        assert_eq!(
            claude_reply("{\"score\": 7}\n").unwrap().0,
            "{\"score\": 7}"
        );
        assert!(claude_reply("  \n").is_err());
        assert_eq!(codex_reply("Score: 7\n").unwrap().0, "Score: 7");
        let codex = "{\"type\":\"thread.started\",\"thread_id\":\"th-9\"}\n{\"type\":\"item.completed\",\"item\":{\"id\":\"i\",\"type\":\"agent_message\",\"text\":\"{\\\"score\\\": 6}\"}}\n{\"type\":\"turn.completed\",\"usage\":{\"input_tokens\":900,\"cached_input_tokens\":0,\"output_tokens\":30}}\n";
        assert_eq!(
            codex_reply(codex).unwrap(),
            (
                r#"{"score": 6}"#.to_owned(),
                Some("th-9".to_owned()),
                Some(Usage {
                    input: 900,
                    output: 30
                })
            )
        );
        assert!(
            codex_reply("{\"type\":\"turn.failed\",\"error\":{\"message\":\"quota\"}}").is_err()
        );
    }
}
