//! `vouch tasks schema`: the JSON Schema (draft-07) of a task.

use std::io::Write;

use clap::Args;

use crate::error::CommandError;
use crate::exit_codes;
use crate::ui::Ui;

/// Print the JSON Schema (draft-07) of a task
///
/// The shape of each task on its own: required fields, types, enums, ranges, UUID v4 ids.
/// Rules across fields and tasks (status consistency, dependencies, the tree, scheduling,
/// provenance) are checked by `vouch tasks validate`, not by the schema.
#[derive(Debug, Args)]
pub(crate) struct SchemaArgs {}

/// Runs `vouch tasks schema`.
pub(crate) fn run(_: &SchemaArgs, ui: &mut Ui) -> Result<u8, CommandError> {
    serde_json::to_writer_pretty(&mut ui.out, &vouch_tasks::task_schema())
        .map_err(std::io::Error::from)?;
    writeln!(ui.out)?;
    Ok(exit_codes::PASS)
}
