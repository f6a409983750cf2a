//! Codex CLI: `codex exec --json --skip-git-repo-check -C <dir> -`, the prompt on standard
//! input; the session is the JSON event stream it prints.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

use vouch_session::{Format, ReadOptions};

use crate::runner::claude::exit;
use crate::runner::{AgentRun, AgentRunner, start};
use crate::spec::TestFile;

/// Runs Codex.
#[derive(Debug, Clone)]
pub struct Codex {
    program: PathBuf,
    envs: Vec<(OsString, OsString)>,
    /// Runs the agent in the kernel's sandbox (`vouch test --sandbox`).
    confined: bool,
}

impl Codex {
    /// Returns the runner of the `codex` executable at `program`.
    pub fn new(program: PathBuf) -> Codex {
        Codex {
            program,
            envs: Vec::new(),
            confined: false,
        }
    }

    /// Returns the runner with the agent run in the kernel's sandbox: it writes only in the
    /// test's folder and its own state, reads only the system's and its own folders.
    #[must_use]
    pub fn confined(mut self, confined: bool) -> Codex {
        self.confined = confined;
        self
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
        let (mut run, stdout) = match start(&self.program, cmd, test, self.confined.then_some(dir))
        {
            Ok(started) => started,
            Err(why) => return AgentRun::failed(why),
        };
        let options = ReadOptions {
            format: Some(Format::Codex),
            ..ReadOptions::default()
        };
        match vouch_session::read_from(&stdout[..], "<codex exec --json>", &options) {
            Ok(report) if !report.session.events.is_empty() => {
                run.log = Some(report);
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
