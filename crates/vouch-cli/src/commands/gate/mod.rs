//! `vouch gate`: checking handoffs and completions against a pipeline's gates, routing an
//! agent's reply, and linting a pipeline configuration.

mod check;
mod input;
mod lint;
mod route;

use clap::Subcommand;

use crate::error::CommandError;
use crate::ui::Ui;

/// A `vouch gate` command.
#[derive(Debug, Subcommand)]
pub(crate) enum GateCommand {
    Check(check::CheckArgs),
    Route(route::RouteArgs),
    Lint(lint::LintArgs),
}

/// Runs a `vouch gate` command.
pub(crate) fn run(command: &GateCommand, ui: &mut Ui) -> Result<u8, CommandError> {
    match command {
        GateCommand::Check(args) => check::run(args, ui),
        GateCommand::Route(args) => route::run(args, ui),
        GateCommand::Lint(args) => lint::run(args, ui),
    }
}
