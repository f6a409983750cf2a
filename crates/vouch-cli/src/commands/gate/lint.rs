//! `vouch gate lint`: every problem of a pipeline configuration, at once.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;
use serde::Serialize;
use vouch_gate::{ConfigError, ConfigErrors};

use crate::commands::format::Format;
use crate::error::CommandError;
use crate::exit_codes;
use crate::render::config_errors;
use crate::ui::Ui;

/// Report every problem of pipeline configurations
///
/// Loads each file as `vouch gate check` and `vouch gate route` do, collecting every problem
/// instead of stopping at the first: unknown keys, validators, contracts and predicates,
/// invalid patterns — and what loads but cannot work: agents no route reaches from where the
/// run starts (the first of `Agents`, else the first route's SourceAgents), agents `Agents`
/// does not declare, routes an earlier route of the same keyword shadows, contracts nothing
/// uses, and runs with no `maxiterations` cap. Each problem shows its file, line and column.
///
/// A pipeline to run (one with `Agents`) is checked whole: its models, agents, tools and
/// fuseraft's top-level keys too. Keys read and not used (fuseraft's `Events`, `Telemetry`,
/// ...) are warnings, which do not fail the lint.
///
/// Exit codes: 0 no problem (warnings allowed), 1 problems, 2 a file could not be read.
/// `--format json` prints `[{"path", "problems": [{"line", "column", "key_path", "message",
/// "hint"}], "warnings": [...]}]`.
#[derive(Debug, Args)]
pub(crate) struct LintArgs {
    /// The pipeline configurations
    #[arg(value_name = "FILE", required = true)]
    files: Vec<PathBuf>,

    /// Output format (what `json` prints: docs/json-output.md)
    #[arg(long, value_enum, default_value = "human")]
    format: Format,
}

#[derive(Serialize)]
struct FileOutput<'a> {
    path: String,
    problems: Vec<Problem<'a>>,
    warnings: Vec<Problem<'a>>,
}

/// Returns a problem as the JSON output shows it.
fn shown(e: &ConfigError) -> Problem<'_> {
    Problem {
        line: e.location.line,
        column: e.location.column,
        key_path: &e.key_path,
        message: &e.message,
        hint: e.hint.as_deref(),
    }
}

#[derive(Serialize)]
struct Problem<'a> {
    line: u64,
    column: u64,
    key_path: &'a str,
    message: &'a str,
    hint: Option<&'a str>,
}

/// Runs `vouch gate lint`.
pub(crate) fn run(args: &LintArgs, ui: &mut Ui) -> Result<u8, CommandError> {
    let mut reports: Vec<(ConfigErrors, Vec<ConfigError>)> = Vec::new();
    for path in &args.files {
        let text = std::fs::read_to_string(path)
            .map_err(|e| CommandError::input(format!("cannot read `{}`: {e}", path.display())))?;
        reports.push(vouch_pipeline::lint(path, &text));
    }
    let problems = reports.iter().any(|(r, _)| !r.errors.is_empty());

    match args.format {
        Format::Json => {
            let files: Vec<FileOutput<'_>> = reports
                .iter()
                .map(|(r, w)| FileOutput {
                    path: r.path.display().to_string(),
                    problems: r.errors.iter().map(shown).collect(),
                    warnings: w.iter().map(shown).collect(),
                })
                .collect();
            serde_json::to_writer_pretty(&mut ui.out, &files).map_err(std::io::Error::from)?;
            writeln!(ui.out)?;
        }
        Format::Human => {
            let color = ui.out_color();
            for (report, warnings) in &reports {
                if report.errors.is_empty() {
                    writeln!(ui.out, "{}: no problems", report.path.display())?;
                } else {
                    config_errors::write(&mut ui.out, report, color)?;
                }
                config_errors::write_warnings(&mut ui.out, &report.path, warnings)?;
            }
        }
    }
    Ok(if problems {
        exit_codes::CHECK_FAILED
    } else {
        exit_codes::PASS
    })
}
