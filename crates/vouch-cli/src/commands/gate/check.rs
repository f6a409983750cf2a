//! `vouch gate check`: would this handoff (or completion) go through?

use std::io::Write;

use clap::Args;
use serde::Serialize;
use vouch_evidence::EvidenceView;
use vouch_gate::{Gate, Verdict};

use crate::commands::config_input::load_gates;
use crate::commands::format::Format;
use crate::commands::gate::input::GateInput;
use crate::error::CommandError;
use crate::exit_codes;
use crate::ui::Ui;

/// Check a handoff or a completion against a pipeline's gates
///
/// Finds the routes of `--keyword` that `--agent` may use (every route of the keyword when no
/// agent is given) and runs their validators in order — all must pass, the first failure wins —
/// on the session's current turn, the change log and the artifacts under `--workdir`. With
/// `--terminate`, runs the validators of the termination strategies instead.
///
/// Prints `pass`, or exactly the message that would be injected into the conversation.
/// Exit codes: 0 pass, 1 blocked, 2 configuration or input error. `--format json` prints
/// `{"verdict", "route", "validator", "message"}`.
///
/// Only the end of the session log is read: as many turns as the validators look at.
///
/// `--run` decides on the run `vouch run` recorded in `--workdir` instead of a log: its
/// record is verified first — a journal line that does not verify, or a change-log entry of
/// the run the runner did not write, blocks (exit 1) with where it was found.
#[derive(Debug, Args)]
#[command(group = clap::ArgGroup::new("what").required(true).args(["keyword", "terminate"]))]
pub(crate) struct CheckArgs {
    #[command(flatten)]
    input: GateInput,

    /// The routing keyword the agent wrote (`HANDOFF TO TESTER`)
    #[arg(long, value_name = "KEYWORD")]
    keyword: Option<String>,

    /// Check a completion: the validators of the termination strategies
    #[arg(long)]
    terminate: bool,

    /// Output format (what `json` prints: docs/json-output.md)
    #[arg(long, value_enum, default_value = "human")]
    format: Format,
}

/// The JSON output.
#[derive(Serialize)]
struct Outcome<'a> {
    verdict: &'a str,
    route: Option<&'a str>,
    agent: Option<&'a str>,
    validators: Vec<&'a str>,
    validator: Option<&'a str>,
    message: Option<&'a str>,
}

/// Runs `vouch gate check`.
pub(crate) fn run(args: &CheckArgs, ui: &mut Ui) -> Result<u8, CommandError> {
    let gates = load_gates(&args.input.config, args.input.strict, ui)?;
    let gate: Gate<'_> = match &args.keyword {
        Some(keyword) => gates
            .handoff(keyword, args.input.agent.as_deref())
            .ok_or_else(|| {
                let known: Vec<&str> = gates
                    .config()
                    .routes()
                    .iter()
                    .map(|r| r.keyword.as_str())
                    .collect();
                let from = args
                    .input
                    .agent
                    .as_deref()
                    .map(|a| format!(" from `{a}`"))
                    .unwrap_or_default();
                CommandError::input(format!(
                    "no route takes `{keyword}`{from} in `{}` (hint: the routes' keywords are {})",
                    args.input.config.display(),
                    if known.is_empty() {
                        "none".to_owned()
                    } else {
                        known.join(", ")
                    }
                ))
            })?,
        None => gates.completion(args.input.agent.as_deref()),
    };
    let options = args.input.read_options(gate.turns_needed());
    let paths = gates.config().validation().paths.clone();
    let evidence = args.input.evidence(&options, &paths.change_log, ui)?;
    let loaded = &evidence.loaded;
    let mut view = EvidenceView::new(&loaded.session, &args.input.workdir, paths)
        .with_diagnostics(&loaded.diagnostics);
    if let Some(log) = &evidence.change_log {
        view = view.with_change_log(log);
    }
    let verdict = gate.evaluate(&view);
    let route = (!gate.routes.is_empty()).then_some(gate.keyword.as_str());
    let (code, validator, message) = match &verdict {
        Verdict::Pass => (exit_codes::PASS, None, None),
        Verdict::Block(b) => (
            exit_codes::CHECK_FAILED,
            Some(b.validator.as_str()),
            Some(b.message.as_str()),
        ),
    };
    match args.format {
        Format::Human => {
            let out = &mut ui.out;
            match message {
                None => writeln!(out, "pass")?,
                Some(m) => writeln!(out, "{m}")?,
            }
            if let Some(v) = validator {
                ui.warn(format_args!("blocked by {v}"));
            }
        }
        Format::Json => {
            let outcome = Outcome {
                verdict: if verdict.is_pass() { "pass" } else { "block" },
                route,
                agent: args.input.agent.as_deref(),
                validators: gate.names(),
                validator,
                message,
            };
            serde_json::to_writer_pretty(&mut ui.out, &outcome).map_err(std::io::Error::from)?;
            writeln!(ui.out)?;
        }
    }
    Ok(code)
}
