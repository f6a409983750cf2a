//! The subcommands, one module each, and the match that runs them.

mod session;

use clap::Subcommand;

use crate::error::CommandError;
use crate::ui::Ui;

/// A vouch command.
#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Read an agent's session log: a timeline of what it did, or counts
    #[command(subcommand)]
    Session(session::SessionCommand),
}

/// Runs a command and returns its exit code.
pub(crate) fn run(command: &Command, ui: &mut Ui) -> Result<u8, CommandError> {
    match command {
        Command::Session(c) => session::run(c, ui),
    }
}
