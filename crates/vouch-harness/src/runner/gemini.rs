//! Gemini CLI: `gemini --output-format stream-json --approval-mode yolo [--model M]` in the
//! run's directory, the prompt on standard input (headless mode). The session is the chat
//! file Gemini CLI saved for the session the stream's `init` names (it holds token counts and
//! every result); when that file cannot be found, the stream itself.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

use vouch_session::{Format, ReadOptions, locations};

use crate::runner::claude::exit;
use crate::runner::{AgentRun, AgentRunner, start};
use crate::spec::TestFile;

/// Runs Gemini CLI.
#[derive(Debug, Clone)]
pub struct Gemini {
    program: PathBuf,
    envs: Vec<(OsString, OsString)>,
    /// Runs the agent in the kernel's sandbox (`vouch test --sandbox`).
    confined: bool,
}

impl Gemini {
    /// Returns the runner of the `gemini` executable at `program`.
    pub fn new(program: PathBuf) -> Gemini {
        Gemini {
            program,
            envs: Vec::new(),
            confined: false,
        }
    }

    /// Returns the runner with the agent run in the kernel's sandbox: it writes only in the
    /// test's folder and its own state, reads only the system's and its own folders.
    #[must_use]
    pub fn confined(mut self, confined: bool) -> Gemini {
        self.confined = confined;
        self
    }

    /// Sets an environment variable of the agent's process; `GEMINI_CLI_HOME` and `HOME` also
    /// move where its saved chat is looked for.
    #[must_use]
    pub fn env(mut self, key: impl Into<OsString>, value: impl Into<OsString>) -> Gemini {
        self.envs.push((key.into(), value.into()));
        self
    }
}

impl AgentRunner for Gemini {
    fn run(&self, test: &TestFile, dir: &Path) -> AgentRun {
        let mut cmd = Command::new(&self.program);
        cmd.args(["--output-format", "stream-json", "--approval-mode", "yolo"])
            .current_dir(dir)
            .envs(self.envs.iter().map(|(k, v)| (k, v)));
        if let Some(model) = &test.model {
            cmd.args(["--model", model]);
        }
        let (mut run, stdout) = match start(&self.program, cmd, test, self.confined.then_some(dir))
        {
            Ok(started) => started,
            Err(why) => return AgentRun::failed(why),
        };
        let options = ReadOptions {
            format: Some(Format::Gemini),
            ..ReadOptions::default()
        };
        let stream = match vouch_session::read_from(&stdout[..], "<gemini stream-json>", &options) {
            Ok(report) => report,
            Err(e) => {
                run.error = Some(if run.timed_out {
                    format!(
                        "gemini ran past the timeout of {}s and was killed, before printing any event",
                        test.timeout.as_secs()
                    )
                } else {
                    format!(
                        "gemini exited with {} and printed no event it could be read from: {e}",
                        exit(run.exit_code)
                    )
                });
                return run;
            }
        };
        let saved = locations::gemini_dir(locations::env_with(&self.envs))
            .and_then(|home| locations::gemini_chat_file(&home, &stream.session.id));
        if let Some(file) = saved {
            let options = ReadOptions {
                format: Some(Format::Gemini),
                ..ReadOptions::default()
            };
            match vouch_session::read_path(&file, &options) {
                Ok(report) => {
                    run.source = Some(file.display().to_string());
                    run.log = Some(report);
                    return run;
                }
                Err(e) => {
                    tracing::warn!(path = %file.display(), error = %e, "gemini's saved chat could not be read; using its stream");
                }
            }
        }
        run.source = Some("the events gemini printed".to_owned());
        run.log = Some(stream);
        run
    }
}
