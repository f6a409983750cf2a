//! `vouch tasks validate`: every problem of a task document, at once.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;
use serde::Serialize;
use vouch_tasks::{Issue, RpcError, Severity, ValidationReport};

use crate::commands::tasks::input::{self, Format};
use crate::error::CommandError;
use crate::exit_codes;
use crate::render::tasks as render;
use crate::ui::Ui;

/// Validate a task document against every rule of the task protocol
///
/// Reads a JSON array of tasks, a tree of {"task", "children"} nodes (or an array of them),
/// {"tasks": [...]}, or JSONL, and reports every problem at once: schema and field errors,
/// status consistency, UUIDs, timestamps, scheduling, dependencies and their cycles, the tree
/// (one root, parents that exist, no parent cycles, everything reachable), provenance, and
/// inputs against their JSON Schema — each with a JSON path into the document and the
/// protocol's error code. The human report is grouped by task.
///
/// Exit codes: 0 valid (warnings allowed), 1 invalid, 2 unreadable or not JSON.
/// `--format json` prints a JSON-RPC 2.0 response: the error object of the protocol's
/// "Error Aggregation" (one error's code, or -32602 with all errors in data.errors) for an
/// invalid document, a result with the warnings for a valid one, -32700 for text that is not
/// JSON.
#[derive(Debug, Args)]
pub(crate) struct ValidateArgs {
    /// The task document; `-` reads standard input
    #[arg(value_name = "FILE")]
    path: PathBuf,

    /// Treat warnings (a completed task without result, a timestamp without offset, ...) as
    /// errors
    #[arg(long)]
    warnings_as_errors: bool,

    /// Output format (what `json` prints: docs/json-output.md)
    #[arg(long, value_enum, default_value = "human")]
    format: Format,
}

/// A JSON-RPC 2.0 response, fields in the order of the specification.
#[derive(Serialize)]
struct Response<'a> {
    jsonrpc: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    result: Option<Outcome<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<RpcError>,
    id: Option<()>,
}

/// The response for text that is not JSON.
#[derive(Serialize)]
struct ParseError<'a> {
    jsonrpc: &'static str,
    error: ParseErrorObject<'a>,
    id: Option<()>,
}

#[derive(Serialize)]
struct ParseErrorObject<'a> {
    code: i32,
    message: &'static str,
    data: ParseErrorData<'a>,
}

#[derive(Serialize)]
struct ParseErrorData<'a> {
    line: usize,
    column: usize,
    reason: &'a str,
}

/// The result for a valid document.
#[derive(Serialize)]
struct Outcome<'a> {
    valid: bool,
    tasks: usize,
    warnings: &'a [Issue],
}

/// Runs `vouch tasks validate`.
pub(crate) fn run(args: &ValidateArgs, ui: &mut Ui) -> Result<u8, CommandError> {
    let name = input::display(&args.path);
    let text = input::read(&args.path)?;
    let (doc, mut report) = match vouch_tasks::validate_text(&text) {
        Ok(parsed) => parsed,
        Err(e) => {
            if args.format == Format::Json {
                let response = ParseError {
                    jsonrpc: "2.0",
                    error: ParseErrorObject {
                        code: -32700,
                        message: "Parse error",
                        data: ParseErrorData {
                            line: e.line,
                            column: e.column,
                            reason: &e.message,
                        },
                    },
                    id: None,
                };
                serde_json::to_writer_pretty(&mut ui.out, &response)
                    .map_err(std::io::Error::from)?;
                writeln!(ui.out)?;
                return Ok(exit_codes::INPUT_ERROR);
            }
            return Err(CommandError::input(format!("{name}:{e}")));
        }
    };
    if args.warnings_as_errors {
        promote_warnings(&mut report);
    }
    match args.format {
        Format::Json => {
            let error = report.rpc_error();
            let result = error.is_none().then(|| Outcome {
                valid: true,
                tasks: report.tasks,
                warnings: &report.warnings,
            });
            let response = Response {
                jsonrpc: "2.0",
                result,
                error,
                id: None,
            };
            serde_json::to_writer_pretty(&mut ui.out, &response).map_err(std::io::Error::from)?;
            writeln!(ui.out)?;
        }
        Format::Human => {
            let (mut out, styles) = ui.human();
            render::write(&mut out, styles, &name, &doc, &report)?;
        }
    }
    Ok(if report.is_valid() {
        exit_codes::PASS
    } else {
        exit_codes::CHECK_FAILED
    })
}

/// Moves the warnings among the errors, in document order.
fn promote_warnings(report: &mut ValidationReport) {
    let mut warnings = std::mem::take(&mut report.warnings);
    for w in &mut warnings {
        w.severity = Severity::Error;
    }
    report.errors.extend(warnings);
    report.errors.sort_by_key(|i| i.task.map_or(0, |t| t + 1));
}
