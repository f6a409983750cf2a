//! `vouch session`: reading agent session logs.

mod receipts;
mod show;
mod stats;

use clap::Subcommand;

use crate::error::CommandError;
use crate::ui::Ui;

/// A `vouch session` command.
#[derive(Debug, Subcommand)]
pub(crate) enum SessionCommand {
    Show(show::ShowArgs),
    Stats(stats::StatsArgs),
    Receipts(receipts::ReceiptsArgs),
}

/// Runs a `vouch session` command.
pub(crate) fn run(command: &SessionCommand, ui: &mut Ui) -> Result<u8, CommandError> {
    match command {
        SessionCommand::Show(args) => show::run(args, ui),
        SessionCommand::Stats(args) => stats::run(args, ui),
        SessionCommand::Receipts(args) => receipts::run(args, ui),
    }
}
