//! The arguments `vouch gate check` and `vouch gate route` share: the configuration, the
//! session, the agent and the project folder.

use std::path::PathBuf;

use clap::Args;
use vouch_session::{Format, ReadOptions};

use crate::commands::log_input::log_format_parser;

/// What a gate decides on.
#[derive(Debug, Args)]
pub(crate) struct GateInput {
    /// The pipeline configuration (the validator spec's YAML)
    #[arg(long, value_name = "FILE")]
    pub(crate) config: PathBuf,

    /// The session log (or conversation), in any format vouch reads
    #[arg(long, value_name = "LOG")]
    pub(crate) session: PathBuf,

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

impl GateInput {
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
