//! `vouch changes`: feeding the change log.

mod record;

use clap::Subcommand;

use crate::error::CommandError;
use crate::ui::Ui;

/// A `vouch changes` command.
#[derive(Debug, Subcommand)]
pub(crate) enum ChangesCommand {
    Record(record::RecordArgs),
}

/// Runs a `vouch changes` command.
pub(crate) fn run(command: &ChangesCommand, ui: &mut Ui) -> Result<u8, CommandError> {
    match command {
        ChangesCommand::Record(args) => record::run(args, ui),
    }
}
