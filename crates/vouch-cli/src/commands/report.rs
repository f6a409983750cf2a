//! `vouch report`: the HTML report of something recorded — a pipeline run kept in a working
//! directory, or a session log.

use std::path::PathBuf;

use clap::Args;
use vouch_session::ReadOptions;

use crate::commands::log_input::{load_with, log_format_parser};
use crate::error::CommandError;
use crate::exit_codes;
use crate::render::html;
use crate::ui::Ui;

/// Write the HTML report of a recorded run or session
///
/// RUN_OR_SESSION is a folder a `vouch run` ran in (the run's journal, kept in the state
/// directory and verified, is read: the pipeline-run view) or a session log of any format
/// vouch reads (the session view). The report is one self-contained file (docs/reports.md).
#[derive(Debug, Args)]
pub(crate) struct ReportArgs {
    /// A folder a `vouch run` ran in, or a session log
    #[arg(value_name = "RUN_OR_SESSION")]
    target: PathBuf,

    /// Where to write the report
    #[arg(long, value_name = "FILE")]
    html: PathBuf,

    /// The log's format, for a session (detected from the content when not given)
    #[arg(long, value_name = "FORMAT", value_parser = log_format_parser())]
    log_format: Option<vouch_session::Format>,

    /// Where `vouch run` keeps its records (default: $VOUCH_STATE_DIR, else
    /// $XDG_STATE_HOME/vouch, else ~/.local/state/vouch)
    #[arg(long, value_name = "DIR")]
    state_dir: Option<PathBuf>,
}

/// Runs `vouch report`.
pub(crate) fn run(args: &ReportArgs, ui: &mut Ui) -> Result<u8, CommandError> {
    if args.target.is_dir() {
        let record = vouch_pipeline::read_run(&args.target, args.state_dir.as_deref())
            .map_err(CommandError::run)?;
        html::write_report(ui, &args.html, &html::pipeline_page(&record, None))?;
        return Ok(exit_codes::PASS);
    }
    let options = ReadOptions {
        format: args.log_format,
        ..ReadOptions::default()
    };
    let loaded = load_with(&args.target, &options, ui)?;
    html::write_report(ui, &args.html, &html::session_page(&loaded.session))?;
    Ok(loaded.code)
}
