//! `vouch session stats`: counts over a session.

use clap::Args;
use vouch_session::SessionStats;

use crate::commands::format::Format;
use crate::commands::log_input::{LogArgs, load};
use crate::error::CommandError;
use crate::render::stats;
use crate::ui::Ui;

/// Count an agent's tool calls, failures and subagents
///
/// Prints tool calls per tool name as the log spells it (`Bash`, `Edit`, ...) and per
/// canonical kind (shell, write_file, patch_file, ...), failed results by outcome, calls
/// without a result, the duration, and the same for each subagent.
///
/// `--format json` prints the counts as JSON (docs/session-format.md describes the fields).
#[derive(Debug, Args)]
pub(crate) struct StatsArgs {
    #[command(flatten)]
    log: LogArgs,

    /// Output format (what `json` prints: docs/json-output.md)
    #[arg(long, value_enum, default_value = "human")]
    format: Format,
}

/// Runs `vouch session stats`.
pub(crate) fn run(args: &StatsArgs, ui: &mut Ui) -> Result<u8, CommandError> {
    let loaded = load(&args.log, ui)?;
    let counts = SessionStats::of(&loaded.session);
    match args.format {
        Format::Human => {
            let (mut out, styles) = ui.human();
            stats::write(&mut out, &counts, styles)?;
        }
        Format::Json => {
            serde_json::to_writer_pretty(&mut ui.out, &counts).map_err(std::io::Error::from)?;
            ui.out.write_all(b"\n")?;
        }
    }
    Ok(loaded.code)
}
