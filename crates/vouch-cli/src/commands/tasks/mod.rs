//! `vouch tasks`: the task protocol — validating documents, transitions, readiness, the schema.

mod input;
mod new_ids;
mod ready;
mod remote;
mod schema;
mod transition;
mod validate;

use clap::Subcommand;

use crate::error::CommandError;
use crate::ui::Ui;

/// A `vouch tasks` command.
#[derive(Debug, Subcommand)]
pub(crate) enum TasksCommand {
    Validate(validate::ValidateArgs),
    Transition(transition::TransitionArgs),
    Ready(ready::ReadyArgs),
    Schema(schema::SchemaArgs),
    Create(remote::CreateArgs),
    Get(remote::GetArgs),
    List(remote::ListArgs),
    Tree(remote::TreeArgs),
}

/// Runs a `vouch tasks` command.
pub(crate) fn run(command: &TasksCommand, ui: &mut Ui) -> Result<u8, CommandError> {
    match command {
        TasksCommand::Validate(args) => validate::run(args, ui),
        TasksCommand::Transition(args) => transition::run(args, ui),
        TasksCommand::Ready(args) => ready::run(args, ui),
        TasksCommand::Schema(args) => schema::run(args, ui),
        TasksCommand::Create(args) => remote::create(args, ui),
        TasksCommand::Get(args) => remote::get(args, ui),
        TasksCommand::List(args) => remote::list(args, ui),
        TasksCommand::Tree(args) => remote::tree(args, ui),
    }
}
