//! `vouch tasks transition`: may a task move from one status to another?

use std::io::Write;

use clap::Args;
use serde::Serialize;
use vouch_tasks::{Status, check_transition, next_statuses};

use crate::commands::tasks::input::Format;
use crate::error::CommandError;
use crate::exit_codes;
use crate::ui::Ui;

/// Check a status transition against the protocol's state machine
///
/// pending → in_progress | cancelled; in_progress → completed | failed | cancelled;
/// failed → pending (re-execution); completed and cancelled are terminal. Re-running a completed
/// or cancelled task is a separate operation, never a transition.
///
/// Exit codes: 0 allowed, 1 not allowed, 2 unknown status. `--format json` prints a JSON-RPC
/// result, or the error (code -32006).
#[derive(Debug, Args)]
pub(crate) struct TransitionArgs {
    /// The current status
    #[arg(long, value_parser = parse_status)]
    from: Status,

    /// The new status
    #[arg(long, value_parser = parse_status)]
    to: Status,

    /// Output format (what `json` prints: docs/json-output.md)
    #[arg(long, value_enum, default_value = "human")]
    format: Format,
}

fn parse_status(s: &str) -> Result<Status, String> {
    s.parse()
        .map_err(|()| format!("expected one of {}", Status::names().replace('|', ", ")))
}

/// A JSON-RPC 2.0 response, fields in the order of the specification.
#[derive(Serialize)]
struct Response<'a> {
    jsonrpc: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    result: Option<Verdict>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<RpcError<'a>>,
    id: Option<()>,
}

#[derive(Serialize)]
struct Verdict {
    allowed: bool,
    from: Status,
    to: Status,
}

/// The error object, fields in the order of the specification.
#[derive(Serialize)]
struct RpcError<'a> {
    code: i32,
    message: &'static str,
    data: Errors<'a>,
}

#[derive(Serialize)]
struct Errors<'a> {
    errors: [&'a vouch_tasks::Issue; 1],
}

/// Runs `vouch tasks transition`.
pub(crate) fn run(args: &TransitionArgs, ui: &mut Ui) -> Result<u8, CommandError> {
    let result = check_transition(args.from, args.to);
    match args.format {
        Format::Json => {
            let response = Response {
                jsonrpc: "2.0",
                result: result.is_ok().then_some(Verdict {
                    allowed: true,
                    from: args.from,
                    to: args.to,
                }),
                error: result.as_ref().err().map(|issue| RpcError {
                    code: issue.code,
                    message: vouch_tasks::code::message(issue.code),
                    data: Errors {
                        errors: [issue.as_ref()],
                    },
                }),
                id: None,
            };
            serde_json::to_writer_pretty(&mut ui.out, &response).map_err(std::io::Error::from)?;
            writeln!(ui.out)?;
        }
        Format::Human => {
            let (mut out, styles) = ui.human();
            match &result {
                Ok(()) => {
                    let s = styles.pass;
                    writeln!(out, "{s}allowed{s:#}: {} -> {}", args.from, args.to)?;
                }
                Err(issue) => {
                    let s = styles.fail;
                    let next: Vec<&str> = next_statuses(args.from)
                        .iter()
                        .map(|s| s.as_str())
                        .collect();
                    let allowed = if next.is_empty() {
                        "none: it is terminal".to_owned()
                    } else {
                        next.join(", ")
                    };
                    writeln!(
                        out,
                        "{s}not allowed{s:#}: {} [{}]\n  from {}: {allowed}",
                        issue.reason, issue.code, args.from
                    )?;
                }
            }
        }
    }
    Ok(if result.is_ok() {
        exit_codes::PASS
    } else {
        exit_codes::CHECK_FAILED
    })
}
