//! `vouch cache`: what the grading cache holds, and emptying it.

use std::io::Write;
use std::path::PathBuf;

use clap::{Args, Subcommand};
use vouch_judge::{Cache, Cleared};

use crate::commands::format::Format;
use crate::commands::project::project;
use crate::error::CommandError;
use crate::exit_codes;
use crate::ui::{Ui, plural};

/// A `vouch cache` command.
#[derive(Debug, Subcommand)]
pub(crate) enum CacheCommand {
    /// How many gradings the cache keeps, by grader and model, from when to when
    Stats(CacheArgs),
    /// Forget every grading: the next run grades every review again
    Clear(CacheArgs),
}

/// Which cache.
#[derive(Debug, Args)]
pub(crate) struct CacheArgs {
    /// The configuration whose `cache:` to use (default: `vouch.yaml` here; its cache is
    /// `.vouch/cache.db` beside it unless it says otherwise)
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,

    /// Output format (what `json` prints: docs/json-output.md)
    #[arg(long, value_enum, default_value = "human")]
    format: Format,
}

/// Runs a `vouch cache` command.
pub(crate) fn run(command: &CacheCommand, ui: &mut Ui) -> Result<u8, CommandError> {
    let (args, clear) = match command {
        CacheCommand::Stats(a) => (a, false),
        CacheCommand::Clear(a) => (a, true),
    };
    let project = project(args.config.as_ref(), &[], ui)?;
    let path = project.grading.cache_path.clone();
    let json = args.format == Format::Json;
    if !path.is_file() {
        if json {
            writeln!(
                ui.out,
                "{}",
                serde_json::json!({"path": path, "entries": 0})
            )?;
        } else {
            writeln!(
                ui.out,
                "no grading cache at {} (nothing graded yet)",
                path.display()
            )?;
        }
        return Ok(exit_codes::PASS);
    }
    if clear {
        match Cache::clear_at(&path).map_err(|e| CommandError::input(e.to_string()))? {
            Cleared::Emptied(n) if json => writeln!(
                ui.out,
                "{}",
                serde_json::json!({"path": path, "cleared": n})
            )?,
            Cleared::Emptied(n) => writeln!(
                ui.out,
                "cleared {} from {}",
                plural(n, "grading", "gradings"),
                path.display()
            )?,
            Cleared::Removed { reason } if json => writeln!(
                ui.out,
                "{}",
                serde_json::json!({"path": path, "removed": true, "reason": reason})
            )?,
            Cleared::Removed { reason } => writeln!(
                ui.out,
                "removed {}: it was not a usable cache ({reason})",
                path.display()
            )?,
        }
        return Ok(exit_codes::PASS);
    }
    let stats = Cache::open(&path)
        .and_then(|cache| cache.stats())
        .map_err(|e| CommandError::input(e.to_string()))?;
    if json {
        serde_json::to_writer_pretty(&mut ui.out, &stats).map_err(std::io::Error::from)?;
        writeln!(ui.out)?;
        return Ok(exit_codes::PASS);
    }
    let n = usize::try_from(stats.entries).unwrap_or(usize::MAX);
    writeln!(
        ui.out,
        "{}: {} ({} KiB)",
        path.display(),
        plural(n, "grading", "gradings"),
        stats.bytes.div_ceil(1024)
    )?;
    if let (Some(oldest), Some(newest)) = (&stats.oldest, &stats.newest) {
        writeln!(
            ui.out,
            "graded from {} to {}",
            to_seconds(oldest),
            to_seconds(newest)
        )?;
    }
    for g in &stats.by_grader {
        writeln!(
            ui.out,
            "  {:<16} {:<28} {:>6}",
            g.grader, g.model, g.entries
        )?;
    }
    Ok(exit_codes::PASS)
}

/// Returns an RFC 3339 time to the second, or as it is when it is not one.
fn to_seconds(time: &str) -> String {
    time.parse::<jiff::Timestamp>()
        .ok()
        .and_then(|t| t.round(jiff::Unit::Second).ok())
        .map_or_else(|| time.to_owned(), |t| t.to_string())
}
