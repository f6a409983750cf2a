//! The arguments `vouch gate check` and `vouch gate route` share: the configuration, the
//! session (a log, or the run vouch recorded in the project folder, verified), the agent and
//! the project folder.

use std::path::{Path, PathBuf};

use clap::Args;
use vouch_evidence::ChangeLog;
use vouch_session::{Format, ReadOptions};

use crate::commands::log_input::{Loaded, load_with, log_format_parser};
use crate::error::CommandError;
use crate::ui::Ui;

/// What a gate decides on.
#[derive(Debug, Args)]
pub(crate) struct GateInput {
    /// The pipeline configuration (the validator spec's YAML)
    #[arg(long, value_name = "FILE")]
    pub(crate) config: PathBuf,

    /// The session log (or conversation), in any format vouch reads
    #[arg(long, value_name = "LOG", required_unless_present = "run")]
    pub(crate) session: Option<PathBuf>,

    /// Decide on the run `vouch run` recorded in `--workdir`: its journal is verified first
    /// (its seal, then the change log's entries against the ones the runner wrote), and the
    /// gates read the session and change log the runner recorded; a record that does not
    /// verify blocks (exit 1)
    #[arg(long, conflicts_with = "session")]
    pub(crate) run: bool,

    /// Where `vouch run` keeps its records (default: $VOUCH_STATE_DIR, else
    /// $XDG_STATE_HOME/vouch, else ~/.local/state/vouch)
    #[arg(long, value_name = "DIR", requires = "run")]
    pub(crate) state_dir: Option<PathBuf>,

    /// The agent that wrote the reply, when the log does not name it (Claude Code and Codex
    /// logs do not); routes whose SourceAgents exclude it do not apply
    #[arg(long, value_name = "NAME")]
    pub(crate) agent: Option<String>,

    /// The folder artifact paths are relative to, and where commands run
    #[arg(long, value_name = "DIR", default_value = ".")]
    pub(crate) workdir: PathBuf,

    /// Demand strict evidence whatever `Validation.Strict` says: a command counts only when it
    /// is the reported command itself, exited 0 with its own status (no `|| true`, `; exit 0`,
    /// or pipe without pipefail) and ran tests; see docs/gates.md
    #[arg(long)]
    pub(crate) strict: bool,

    /// Read the log as this format instead of detecting it
    #[arg(long, value_parser = log_format_parser(), value_name = "FORMAT")]
    pub(crate) log_format: Option<Format>,
}

/// What a gate decides on: the session, and the change log the runner recorded when it is a
/// recorded run's.
pub(crate) struct GateEvidence {
    pub(crate) loaded: Loaded,
    pub(crate) change_log: Option<ChangeLog>,
}

impl GateInput {
    /// Reads the session: the log, or the recorded run, verified (with its change log as the
    /// runner wrote it). Says on stderr that the record verified.
    pub(crate) fn evidence(
        &self,
        options: &ReadOptions,
        change_log: &Path,
        ui: &mut Ui,
    ) -> Result<GateEvidence, CommandError> {
        let Some(session) = &self.session else {
            let run =
                vouch_pipeline::verify_run(&self.workdir, self.state_dir.as_deref(), change_log)
                    .map_err(CommandError::run)?;
            ui.status(format_args!(
                "the run's record verified: {} journal records, {} change-log entries ({})",
                run.records,
                run.entries,
                run.journal.display()
            ));
            return Ok(GateEvidence {
                loaded: Loaded {
                    session: std::mem::ManuallyDrop::new(run.session),
                    code: 0,
                    diagnostics: Vec::new(),
                },
                change_log: Some(run.change_log),
            });
        };
        Ok(GateEvidence {
            loaded: load_with(session, options, ui)?,
            change_log: None,
        })
    }

    /// Returns the options to read the session with, reading only its last `last_turns`
    /// turns when given.
    pub(crate) fn read_options(&self, last_turns: Option<usize>) -> ReadOptions {
        ReadOptions {
            format: self.log_format,
            last_turns,
            ..ReadOptions::default()
        }
    }
}
