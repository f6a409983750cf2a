//! `vouch session show`: the timeline of a session.

use clap::Args;

use crate::commands::log_input::{LogArgs, load};
use crate::error::CommandError;
use crate::render::{html, timeline};
use crate::ui::Ui;

/// Show what an agent did, turn by turn
///
/// Prints a timeline: each turn, who spoke, every tool call with its key argument (the
/// command, the path) and a mark for its outcome (✓ ok, ✗ failed, ⊘ denied, ⏱ timed out,
/// … no result), and subagents indented under the call that started them.
///
/// `--html FILE` also writes the session as one self-contained HTML report (docs/reports.md).
/// `--format json` prints the normalized session as one JSON document; `--format jsonl`
/// prints it in vouch's own JSONL format (docs/session-format.md). Lines of the log that
/// cannot be used are reported on stderr as `path:line: reason` and skipped; the exit code is
/// then 2.
#[derive(Debug, Args)]
pub(crate) struct ShowArgs {
    #[command(flatten)]
    log: LogArgs,

    /// Output format (what `json` prints: docs/json-output.md)
    #[arg(long, value_enum, default_value = "human")]
    format: ShowFormat,

    /// Also write the session as one self-contained HTML report to FILE
    #[arg(long, value_name = "FILE")]
    html: Option<std::path::PathBuf>,
}

/// What `vouch session show` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum ShowFormat {
    /// A timeline for people
    Human,
    /// The normalized session as one JSON document
    Json,
    /// vouch's own JSONL format
    Jsonl,
}

/// Runs `vouch session show`.
pub(crate) fn run(args: &ShowArgs, ui: &mut Ui) -> Result<u8, CommandError> {
    let loaded = load(&args.log, ui)?;
    if let Some(path) = &args.html {
        let html = html::session_page(&loaded.session);
        html::write_report(ui, path, &html)?;
    }
    match args.format {
        ShowFormat::Human => {
            let (mut out, styles) = ui.human();
            timeline::write(&mut out, &loaded.session, styles)?;
        }
        ShowFormat::Json => {
            vouch_session::write_json(&loaded.session, &mut ui.out)?;
            ui.out.write_all(b"\n")?;
        }
        ShowFormat::Jsonl => vouch_session::write_jsonl(&loaded.session, &mut ui.out)?,
    }
    Ok(loaded.code)
}
