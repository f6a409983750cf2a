//! `vouch run`: run a multi-agent pipeline with real tools and gates on every handoff.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;
use vouch_gate::Decision;
use vouch_pipeline::{Ended, Progress, RunConfig, RunOptions, Summary};

use crate::commands::format::Format;
use crate::error::CommandError;
use crate::exit_codes;
use crate::render::text::{self, excerpt};
use crate::render::{config_errors, html};
use crate::ui::{Ui, plural};

/// Run a pipeline: model agents with real tools, gates on every handoff
///
/// Reads PIPELINE (the validator spec's `Orchestration:` YAML with `Models`, `Agents`,
/// `Security` and `Budget` — docs/pipeline.md) and runs it on `--task` in `--workdir`: the
/// first agent takes the first turn; each turn calls the agent's model with its instructions,
/// the conversation and its tools, runs the tools it asks for inside the working directory, and
/// ends when the model answers without a tool call or calls `handoff`. vouch itself records
/// every file written and command run in the change log and the whole run as a journal and a
/// session, kept in the run's state directory outside the working tree (`--state-dir`), then
/// routes the reply on its own record: a route whose gates pass hands over, a blocked one is
/// injected back as a correction, a termination strategy ends the run. A change log the
/// runner did not write as it is ends the run as tampered with (exit 1).
///
/// `--resume` continues a run that was interrupted (killed, or ended by a cap) from its
/// journal, verified line by line first, exactly where it stopped.
///
/// Ctrl-C stops the running command (its whole process group), records what happened and ends
/// the run, resumable (exit 130); a second Ctrl-C ends vouch at once.
///
/// Progress goes to stderr, one line per turn, tool call and decision. Exit codes: 0 the run
/// ended by its termination (or a terminal route), 1 the turn cap or the token budget ended it
/// first, or its record was tampered with, 2 configuration or input error (or a model that
/// could not answer), 3 an agent is stuck. `--format json` prints one summary object on
/// stdout.
#[derive(Debug, Args)]
pub(crate) struct RunArgs {
    /// The pipeline configuration
    #[arg(value_name = "PIPELINE")]
    pipeline: PathBuf,

    /// The task: the run's first user message
    #[arg(long, value_name = "TEXT", required_unless_present = "resume")]
    task: Option<String>,

    /// Continue the run that was interrupted in `--workdir` (killed, or stopped by a cap) from
    /// its journal: the same conversation, tool calls and results, and router state; a change
    /// that was being made when it stopped is found made or not, a command runs again
    #[arg(long, conflicts_with = "task")]
    resume: bool,

    /// Where runs keep their records: journal, session and key, one folder per working
    /// directory (default: $VOUCH_STATE_DIR, else $XDG_STATE_HOME/vouch, else
    /// ~/.local/state/vouch); never inside the working directory
    #[arg(long, value_name = "DIR")]
    state_dir: Option<PathBuf>,

    /// End the run once the agents have used this many tokens in all (over
    /// `Budget.MaxTotalTokens`)
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    max_tokens: Option<u64>,

    /// The working directory the agents work in [default: the current folder, which the run
    /// then names on standard error]
    #[arg(long, value_name = "DIR")]
    workdir: Option<PathBuf>,

    /// End the run after this many agent turns (over `Budget.MaxTurns`)
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    max_turns: Option<u32>,

    /// Approve, unattended, every call `Security.Approve` holds for a person
    #[arg(long, conflicts_with = "deny")]
    approve: bool,

    /// Deny, unattended, every call `Security.Approve` holds for a person
    #[arg(long)]
    deny: bool,

    /// Send every model's requests to this base URL instead of the endpoint its
    /// configuration names or implies (a gateway, a local server, a stand-in)
    #[arg(long, value_name = "URL")]
    model_endpoint: Option<String>,

    /// Output format (what `json` prints: docs/json-output.md)
    #[arg(long, value_enum, default_value = "human")]
    format: Format,

    /// Also write the run as one self-contained HTML report to this file: a swimlane per
    /// agent, the handoffs and every gate verdict
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
}

/// Runs `vouch run`.
pub(crate) fn run(args: &RunArgs, ui: &mut Ui) -> Result<u8, CommandError> {
    let mut config = RunConfig::load_with(&args.pipeline, args.max_turns.is_some())
        .map_err(|e| config_errors::report(&e, ui))?;
    config_errors::write_warnings(&mut ui.err, &args.pipeline, &config.warnings)?;
    if let Some(url) = &args.model_endpoint {
        config.point_models_at(url);
    }
    let here = PathBuf::from(".");
    let workdir = args.workdir.as_ref().unwrap_or(&here);
    if !workdir.is_dir() {
        return Err(CommandError::input(format!(
            "cannot run in `{}`: no such folder",
            workdir.display()
        )));
    }
    if args.workdir.is_none() {
        // The agents write where the user stands: say so before they do.
        let shown = workdir.canonicalize().unwrap_or_else(|_| workdir.clone());
        ui.status(format_args!(
            "vouch run: the agents work in {} (the current folder; --workdir DIR to choose)",
            shown.display()
        ));
    }
    let models = vouch_pipeline::models::build(&config).map_err(CommandError::input)?;
    let mut options = RunOptions::new(workdir, args.task.clone().unwrap_or_default());
    options.max_turns = args.max_turns;
    options.max_total_tokens = args.max_tokens;
    options.state_root.clone_from(&args.state_dir);
    options.approval = if args.approve {
        vouch_pipeline::ApprovalMode::Approve
    } else if args.deny {
        vouch_pipeline::ApprovalMode::Deny
    } else {
        vouch_pipeline::ApprovalMode::Ask
    };
    // The first Ctrl-C stops the running command and ends the run, resumable; a second one
    // ends vouch at once.
    let cancel = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let flag = cancel.clone();
    let handler = ctrlc::set_handler(move || {
        if flag.swap(true, std::sync::atomic::Ordering::SeqCst) {
            std::process::exit(i32::from(exit_codes::INTERRUPTED));
        }
    });
    if let Err(e) = handler {
        tracing::warn!("Ctrl-C will end vouch at once: {e}");
    }
    options.cancel = Some(cancel);
    let go = if args.resume {
        vouch_pipeline::resume
    } else {
        vouch_pipeline::run
    };
    let styles = ui.styles.clone();
    let err = &mut ui.err;
    let summary = go(&config, &models, &options, &mut |p| {
        // Progress is best effort: a closed stderr does not stop the run.
        let _ = match p {
            Progress::Turn { agent, turn } => writeln!(
                err,
                "{}turn {turn}{:#} {}{agent}{:#}",
                styles.dim, styles.dim, styles.heading, styles.heading
            ),
            Progress::ToolCall { call, result, .. } => {
                let (mark, style) = if result.outcome.is_success() {
                    ("✓", styles.pass)
                } else {
                    ("✗", styles.fail)
                };
                writeln!(
                    err,
                    "  {style}{mark}{style:#} {} {}",
                    call.name,
                    excerpt(call.key_arg().unwrap_or_default(), 80)
                )
            }
            Progress::Decided {
                decision, usage, ..
            } => writeln!(
                err,
                "  {} {}({} tokens in, {} out){:#}",
                describe(decision),
                styles.dim,
                usage.input,
                usage.output,
                styles.dim
            ),
            _ => Ok(()),
        };
    })
    .map_err(CommandError::run)?;
    if let Some(path) = &args.html {
        let record = vouch_pipeline::read_run(workdir, args.state_dir.as_deref())
            .map_err(CommandError::run)?;
        html::write_report(
            ui,
            path,
            &html::pipeline_page(&record, Some(&summary.ended)),
        )?;
    }
    match args.format {
        Format::Json => {
            serde_json::to_writer_pretty(&mut ui.out, &summary).map_err(std::io::Error::from)?;
            writeln!(ui.out)?;
        }
        Format::Human => write_summary(&summary, ui)?,
    }
    Ok(match summary.ended {
        Ended::Terminated { .. } => exit_codes::PASS,
        Ended::TurnCap { .. } | Ended::TokenBudget { .. } | Ended::Tampered { .. } => {
            exit_codes::CHECK_FAILED
        }
        Ended::Stuck { .. } => exit_codes::STUCK,
        Ended::ModelFailed { .. } => exit_codes::INPUT_ERROR,
        Ended::Interrupted => exit_codes::INTERRUPTED,
    })
}

/// Returns a decision as a progress line says it.
fn describe(decision: &Decision) -> String {
    match decision {
        Decision::Route { to, keyword, .. } => format!(
            "→ {keyword}: {} next",
            to.as_deref().unwrap_or("the same agent")
        ),
        Decision::Correct {
            kind,
            validator,
            message,
            ..
        } => format!(
            "↺ corrected ({}): {}",
            validator.as_deref().unwrap_or(kind.label()),
            reason_line(message)
        ),
        Decision::Terminate { reason } => format!("■ {reason}"),
        Decision::Stuck {
            validator,
            failures,
            ..
        } => format!("✗ stuck: {validator} blocked {failures} times in a row"),
    }
}

/// The first line of what an agent was told when corrected, cut to fit a progress line.
fn reason_line(message: &str) -> String {
    let first = message.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    vouch_process::clip::head(first.trim(), 119)
}

/// Prints how the run ended, and where its record is.
fn write_summary(summary: &Summary, ui: &mut Ui) -> std::io::Result<()> {
    let (mut out, s) = ui.human();
    let (word, verdict, what) = text::ended(&summary.ended);
    let style = match verdict {
        text::Verdict::Pass => s.pass,
        text::Verdict::Fail => s.fail,
        text::Verdict::Warn => s.warning,
        text::Verdict::Error => s.error,
    };
    let ended = format!("{style}{word}{style:#}: {what}");
    writeln!(out, "{ended}")?;
    let tokens: u64 = summary.tokens.values().map(|u| u.input + u.output).sum();
    writeln!(
        out,
        "{}, {}, {tokens} tokens ({})",
        plural(summary.turns as usize, "turn", "turns"),
        plural(summary.corrections as usize, "correction", "corrections"),
        summary
            .tokens
            .iter()
            .map(|(a, u)| format!("{a} {}", u.input + u.output))
            .collect::<Vec<_>>()
            .join(", ")
    )?;
    writeln!(
        out,
        "session: {}\nchange log: {}",
        summary.session.display(),
        summary.change_log.display()
    )
}
