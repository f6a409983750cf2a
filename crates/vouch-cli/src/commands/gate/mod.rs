//! `vouch gate`: checking handoffs and completions against a pipeline's gates.

mod check;

use clap::Subcommand;

use crate::error::CommandError;
use crate::ui::Ui;

/// A `vouch gate` command.
#[derive(Debug, Subcommand)]
pub(crate) enum GateCommand {
    Check(check::CheckArgs),
}

/// Runs a `vouch gate` command.
pub(crate) fn run(command: &GateCommand, ui: &mut Ui) -> Result<u8, CommandError> {
    match command {
        GateCommand::Check(args) => check::run(args, ui),
    }
}
