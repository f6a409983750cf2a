//! The log arguments of the commands that read a session log, and reading the log they name.

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::Args;
use vouch_session::{Diagnostic, DiagnosticKind, Format, ReadOptions, Session};

use crate::error::CommandError;
use crate::exit_codes;
use crate::ui::{Ui, plural};

/// Which session log to read, and how.
#[derive(Debug, Args)]
pub(crate) struct LogArgs {
    /// The session log, in any format `--log-format` lists (detected from its content); `-`
    /// reads standard input
    #[arg(value_name = "LOG", help = log_help())]
    pub(crate) path: PathBuf,

    /// Read the log as this format instead of detecting it from the content
    #[arg(long, value_parser = log_format_parser(), value_name = "FORMAT")]
    pub(crate) log_format: Option<Format>,

    /// Stop at the first bad line instead of reporting and skipping it
    #[arg(long)]
    pub(crate) strict: bool,

    /// Do not read the subagent logs stored beside the session
    #[arg(long)]
    pub(crate) no_subagents: bool,
}

/// The help of a log argument, naming every format vouch reads (from the formats themselves).
fn log_help() -> String {
    let names: Vec<&str> = Format::ALL.iter().map(|f| f.as_str()).collect();
    format!(
        "The session log, in any format vouch reads ({}), detected from its content; `-` reads standard input",
        names.join(", ")
    )
}

/// Parses `--log-format`: the name of a format vouch reads, listed with its description from
/// the formats themselves, so a new format needs nothing here.
pub(crate) fn log_format_parser() -> impl clap::builder::TypedValueParser<Value = Format> {
    use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
    PossibleValuesParser::new(
        Format::ALL.map(|f| PossibleValue::new(f.as_str()).help(f.description())),
    )
    .try_map(|name| Format::from_name(&name).ok_or("not a log format vouch reads"))
}

/// A session read for a command, and the exit code its skipped lines call for.
pub(crate) struct Loaded {
    /// Never freed: a command reads one log and the process ends after it, and freeing a
    /// session of a hundred thousand calls (its millions of small allocations) costs more
    /// than the operating system's taking the whole heap back at exit.
    pub(crate) session: std::mem::ManuallyDrop<Session>,
    /// `0`, or `2` when bad lines were skipped.
    pub(crate) code: u8,
    /// The lines the read skipped, for gates to refuse to pass over.
    pub(crate) diagnostics: Vec<Diagnostic>,
}

/// Reads the log, printing each skipped line to stderr as `path:line: reason`.
pub(crate) fn load(args: &LogArgs, ui: &mut Ui) -> Result<Loaded, CommandError> {
    let options = ReadOptions {
        format: args.log_format,
        strict: args.strict,
        no_subagents: args.no_subagents,
        last_turns: None,
    };
    load_with(&args.path, &options, ui)
}

/// Reads the log at `path` (`-` for stdin) with `options`, reporting skipped lines.
pub(crate) fn load_with(
    path: &Path,
    options: &ReadOptions,
    ui: &mut Ui,
) -> Result<Loaded, CommandError> {
    let report = if path.as_os_str() == "-" {
        vouch_session::read_from(std::io::stdin().lock(), "<stdin>", options)?
    } else {
        vouch_session::read_path(path, options)?
    };
    for d in &report.diagnostics {
        let style = match d.kind {
            DiagnosticKind::BadLine => ui.styles.warning,
            DiagnosticKind::TornLastLine => ui.styles.dim,
        };
        let _ = writeln!(ui.err, "{style}{d}{style:#}");
    }
    let bad = report.bad_lines();
    if bad > 0 {
        ui.warn(format_args!(
            "skipped {} (use --strict to stop at the first)",
            plural(bad, "bad line", "bad lines")
        ));
    }
    let code = if bad > 0 {
        exit_codes::INPUT_ERROR
    } else {
        exit_codes::PASS
    };
    Ok(Loaded {
        session: std::mem::ManuallyDrop::new(report.session),
        code,
        diagnostics: report.diagnostics,
    })
}
