//! Claude Code: `claude -p --output-format stream-json --verbose --session-id <fresh uuid>`,
//! the prompt on standard input. The session is the log Claude Code wrote under that id
//! (`<config>/projects/<project>/<id>.jsonl`, with its subagents) — never "the newest file" —
//! or, when there is none, the stream it printed.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

use vouch_session::{Format, ReadOptions, locations};

use crate::runner::{AgentRun, AgentRunner, start};
use crate::spec::TestFile;

/// Runs Claude Code.
#[derive(Debug, Clone)]
pub struct ClaudeCode {
    program: PathBuf,
    envs: Vec<(OsString, OsString)>,
    /// Runs the agent in the kernel's sandbox (`vouch test --sandbox`).
    confined: bool,
}

impl ClaudeCode {
    /// Returns the runner of the `claude` executable at `program`.
    pub fn new(program: PathBuf) -> ClaudeCode {
        ClaudeCode {
            program,
            envs: Vec::new(),
            confined: false,
        }
    }

    /// Returns the runner with the agent run in the kernel's sandbox: it writes only in the
    /// test's folder and its own state, reads only the system's and its own folders.
    #[must_use]
    pub fn confined(mut self, confined: bool) -> ClaudeCode {
        self.confined = confined;
        self
    }

    /// Sets an environment variable of the agent's process; `CLAUDE_CONFIG_DIR` also moves
    /// where the session log is looked for.
    #[must_use]
    pub fn env(mut self, key: impl Into<OsString>, value: impl Into<OsString>) -> ClaudeCode {
        self.envs.push((key.into(), value.into()));
        self
    }
}

impl AgentRunner for ClaudeCode {
    fn run(&self, test: &TestFile, dir: &Path) -> AgentRun {
        let session_id = uuid::Uuid::new_v4().to_string();
        let mut cmd = Command::new(&self.program);
        cmd.args([
            "-p",
            "--output-format",
            "stream-json",
            "--verbose",
            "--session-id",
            &session_id,
        ])
        .current_dir(dir)
        .envs(self.envs.iter().map(|(k, v)| (k, v)));
        if let Some(model) = &test.model {
            cmd.args(["--model", model]);
        }
        if let Some(mode) = &test.permission_mode {
            cmd.args(["--permission-mode", mode]);
        }
        if !test.allowed_tools.is_empty() {
            cmd.args(["--allowedTools", &test.allowed_tools.join(",")]);
        }
        let (mut run, stdout) = match start(&self.program, cmd, test, self.confined.then_some(dir))
        {
            Ok(started) => started,
            Err(why) => return AgentRun::failed(why),
        };
        let options = ReadOptions {
            format: Some(Format::ClaudeCode),
            ..ReadOptions::default()
        };
        // The log named by this run's session id, with its subagents.
        let log = locations::claude_config_dir(locations::env_with(&self.envs))
            .map(|c| locations::claude_project_dir(&c, dir).join(format!("{session_id}.jsonl")));
        if let Some(log) = log.filter(|l| l.is_file()) {
            match vouch_session::read_path(&log, &options) {
                Ok(report) => {
                    run.log = Some(report);
                    run.source = Some(log.display().to_string());
                    return run;
                }
                Err(e) => {
                    run.error = Some(format!(
                        "could not read the session log {}: {e}",
                        log.display()
                    ));
                }
            }
        }
        // Else the stream it printed.
        if !stdout.is_empty() {
            match vouch_session::read_from(&stdout[..], "<claude stream-json>", &options) {
                Ok(report) if !report.session.events.is_empty() => {
                    run.log = Some(report);
                    run.source = Some("the stream-json claude printed".to_owned());
                    run.error = None;
                    return run;
                }
                Ok(_) => {}
                Err(e) => run.error = Some(format!("could not read claude's stream: {e}")),
            }
        }
        if run.error.is_none() {
            run.error = Some(if run.timed_out {
                format!(
                    "claude ran past the timeout of {}s and was killed, before writing a session",
                    test.timeout.as_secs()
                )
            } else {
                format!(
                    "claude exited with {} and wrote no session (session id {session_id})",
                    exit(run.exit_code)
                )
            });
        }
        run
    }
}

/// Describes an exit code.
pub(crate) fn exit(code: Option<i32>) -> String {
    code.map_or_else(|| "a signal".to_owned(), |c| format!("code {c}"))
}
