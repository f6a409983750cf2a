//! `vouch hook`: vouch as an agent product's hook.

mod claude_code;

use clap::Subcommand;

use crate::error::CommandError;
use crate::ui::Ui;

/// A `vouch hook` command.
#[derive(Debug, Subcommand)]
pub(crate) enum HookCommand {
    ClaudeCode(claude_code::ClaudeCodeArgs),
}

/// Runs a `vouch hook` command.
pub(crate) fn run(command: &HookCommand, ui: &mut Ui) -> Result<u8, CommandError> {
    match command {
        HookCommand::ClaudeCode(args) => claude_code::run(args, ui),
    }
}
