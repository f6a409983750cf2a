//! `vouch tasks ready`: which tasks can run now, in what order the rest can, and which never can.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;
use vouch_tasks::ready_order;

use crate::commands::tasks::input::{self, Format};
use crate::error::CommandError;
use crate::exit_codes;
use crate::render::tasks as render;
use crate::ui::Ui;

/// List the tasks that can run now, an order for the rest, and those that never can
///
/// The document is validated first; an invalid one is reported as `vouch tasks validate` does
/// (exit 1). Then, by the protocol's dependency-satisfaction rules (a required dependency must
/// be completed; an optional one must have ended): the pending tasks whose dependencies are all
/// satisfied now, by ascending priority; an order for every pending task that can still run,
/// each after its pending dependencies, priority breaking ties; and the pending tasks that
/// never can — a required dependency failed or was cancelled, a dependency can never run, or
/// a dependency cycle — each with the reason.
///
/// Exit codes: 0 answered, 1 the document is invalid, 2 unreadable. `--format json` prints
/// {"ready", "order", "blocked"}.
#[derive(Debug, Args)]
pub(crate) struct ReadyArgs {
    /// The task document; `-` reads standard input
    #[arg(value_name = "FILE")]
    path: PathBuf,

    /// Output format (what `json` prints: docs/json-output.md)
    #[arg(long, value_enum, default_value = "human")]
    format: Format,
}

/// Runs `vouch tasks ready`.
pub(crate) fn run(args: &ReadyArgs, ui: &mut Ui) -> Result<u8, CommandError> {
    let name = input::display(&args.path);
    let text = input::read(&args.path)?;
    let (doc, report) = vouch_tasks::validate_text(&text)
        .map_err(|e| CommandError::input(format!("{name}:{e}")))?;
    if !report.is_valid() {
        let (mut out, styles) = ui.human();
        render::write(&mut out, styles, &name, &doc, &report)?;
        return Ok(exit_codes::CHECK_FAILED);
    }
    let tasks = doc
        .typed_tasks()
        .map_err(|(i, e)| CommandError::input(format!("{name}: task {}: {e}", doc.path(i))))?;
    let readiness = ready_order(&tasks);
    match args.format {
        Format::Json => {
            serde_json::to_writer_pretty(&mut ui.out, &readiness).map_err(std::io::Error::from)?;
            writeln!(ui.out)?;
        }
        Format::Human => {
            let (mut out, styles) = ui.human();
            let h = styles.heading;
            let d = styles.dim;
            writeln!(out, "{h}ready now{h:#} ({})", readiness.ready.len())?;
            for e in &readiness.ready {
                writeln!(out, "  {} {d}{} priority {}{d:#}", e.name, e.id, e.priority)?;
            }
            writeln!(out, "{h}order{h:#} ({})", readiness.order.len())?;
            for (n, e) in readiness.order.iter().enumerate() {
                writeln!(
                    out,
                    "  {:>3}. {} {d}{} priority {}{d:#}",
                    n + 1,
                    e.name,
                    e.id,
                    e.priority
                )?;
            }
            writeln!(out, "{h}blocked{h:#} ({})", readiness.blocked.len())?;
            let s = styles.fail;
            for b in &readiness.blocked {
                writeln!(
                    out,
                    "  {s}✗{s:#} {} {d}{}{d:#}: {}",
                    b.task.name, b.task.id, b.reason
                )?;
            }
        }
    }
    Ok(exit_codes::PASS)
}
