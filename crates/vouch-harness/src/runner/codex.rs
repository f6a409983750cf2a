//! Codex CLI: `codex exec --json --skip-git-repo-check -C <dir> -`, the prompt on standard
//! input; the session is the JSON event stream it prints.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

use vouch_session::{Format, ReadOptions};

use crate::runner::claude::exit;
use crate::runner::{AgentRun, AgentRunner, tail};
use crate::spec::TestFile;

/// Runs Codex.
#[derive(Debug, Clone)]
pub struct Codex {
    program: PathBuf,
    envs: Vec<(OsString, OsString)>,
}

impl Codex {
    /// Returns the runner of the `codex` executable at `program`.
    pub fn new(program: PathBuf) -> Codex {
        Codex {
            program,
            envs: Vec::new(),
        }
    }

    /// Sets an environment variable of the agent's process.
    #[must_use]
    pub fn env(mut self, key: impl Into<OsString>, value: impl Into<OsString>) -> Codex {
        self.envs.push((key.into(), value.into()));
        self
    }
}

impl AgentRunner for Codex {
    fn run(&self, test: &TestFile, dir: &Path) -> AgentRun {
        let mut cmd = Command::new(&self.program);
        cmd.args(["exec", "--json", "--skip-git-repo-check", "-C"])
            .arg(dir)
            .current_dir(dir)
            .envs(self.envs.iter().map(|(k, v)| (k, v)));
        if let Some(model) = &test.model {
            cmd.args(["--model", model]);
        }
        cmd.arg("-");
        let prompt = test.prompt.clone().unwrap_or_default().into_bytes();
        let out = match vouch_gate::run_process(cmd, Some(prompt), test.timeout, false) {
            Ok(out) => out,
            Err(e) => {
                return AgentRun::failed(format!(
                    "could not start {}: {e}",
                    self.program.display()
                ));
            }
        };
        let mut run = AgentRun {
            session: None,
            source: None,
            exit_code: out.exit_code,
            timed_out: out.timed_out,
            stderr: tail(&out.stderr, 2_000),
            elapsed: out.elapsed,
            error: None,
        };
        let options = ReadOptions {
            format: Some(Format::Codex),
            ..ReadOptions::default()
        };
        match vouch_session::read_from(&out.stdout[..], "<codex exec --json>", &options) {
            Ok(report) if !report.session.events.is_empty() => {
                run.session = Some(report.session);
                run.source = Some("the events codex exec printed".to_owned());
            }
            Ok(_) => {
                run.error = Some(if run.timed_out {
                    format!(
                        "codex ran past the timeout of {}s and was killed, before printing any event",
                        test.timeout.as_secs()
                    )
                } else {
                    format!(
                        "codex exited with {} and printed no event",
                        exit(run.exit_code)
                    )
                });
            }
            Err(e) => run.error = Some(format!("could not read codex's events: {e}")),
        }
        run
    }
}
