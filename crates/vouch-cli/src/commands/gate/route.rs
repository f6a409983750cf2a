//! `vouch gate route`: what follows the agent's last reply — a handoff, a correction, the end
//! of the run, or a stuck agent.

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::Args;
use serde::Serialize;
use vouch_gate::{Decision, History, Routed, Router, RouterState};

use crate::commands::config_input::load_gates;
use crate::commands::format::Format;
use crate::commands::gate::input::GateInput;
use crate::error::CommandError;
use crate::exit_codes;
use crate::ui::Ui;

/// Decide what follows the agent's last reply
///
/// Reads the conversation, finds the reply that ends it (the events after the last user
/// message, or after another named agent last spoke), and decides, as the validator spec's
/// keyword routing does:
///
///   route      the reply has exactly one keyword of its agent's routes, on a line of its own,
///              and every validator and contract of the route passes
///   correct    no keyword, a keyword of another agent, several keywords, or a gate blocked:
///              stdout is exactly the message to inject as a user turn
///   terminate  a termination strategy fired (`maxiterations` is a hard cap)
///   stuck      the agent was corrected `StuckThreshold` times in a row (default 3)
///
/// The stuck counters live in the state file, which is read, updated and written back under a
/// lock; deciding the same reply again returns the same decision and changes nothing.
///
/// Exit codes: 0 route or terminate, 1 correct, 3 stuck, 2 configuration or input error.
/// `--format json` prints the decision as an object with a `decision` field.
#[derive(Debug, Args)]
pub(crate) struct RouteArgs {
    #[command(flatten)]
    input: GateInput,

    /// The router's state file (stuck counters, the last reply decided); relative to
    /// `--workdir`
    #[arg(long, value_name = "FILE", default_value = ".vouch/router.json")]
    state: PathBuf,

    /// Output format (what `json` prints: docs/json-output.md)
    #[arg(long, value_enum, default_value = "human")]
    format: Format,
}

/// The JSON output: the decision's fields, and what it was taken on.
#[derive(Serialize)]
struct Output<'a> {
    #[serde(flatten)]
    decision: &'a Decision,
    /// The agent whose reply was decided.
    replied: Option<&'a str>,
    /// Replies in the history, the decided one included.
    iteration: u32,
    /// True when this reply had been decided before.
    repeated: bool,
}

/// Runs `vouch gate route`.
pub(crate) fn run(args: &RouteArgs, ui: &mut Ui) -> Result<u8, CommandError> {
    let router = Router::new(load_gates(&args.input.config, args.input.strict, ui)?);
    let paths = router.gates().config().validation().paths.clone();
    let evidence = args
        .input
        .evidence(&args.input.read_options(None), &paths.change_log, ui)?;
    let loaded = &evidence.loaded;
    let mut history = History::new(&loaded.session, &args.input.workdir)
        .agent(args.input.agent.as_deref())
        .diagnostics(&loaded.diagnostics);
    if let Some(log) = &evidence.change_log {
        history = history.change_log(log);
    }
    let state_path = if args.state.is_absolute() {
        args.state.clone()
    } else {
        args.input.workdir.join(&args.state)
    };
    let routed = decide(&router, &history, &state_path)?;
    print(args.format, &routed, ui)?;
    Ok(match routed.decision {
        Decision::Route { .. } | Decision::Terminate { .. } => exit_codes::PASS,
        Decision::Correct { .. } => exit_codes::CHECK_FAILED,
        Decision::Stuck { .. } => exit_codes::STUCK,
    })
}

/// Decides with the state at `path`, writing the new state back under the state file's lock.
fn decide(router: &Router, history: &History<'_>, path: &Path) -> Result<Routed, CommandError> {
    vouch_evidence::update_locked(path, |current| {
        let state = match current.map(str::trim) {
            None | Some("") => Ok(RouterState::default()),
            Some(text) => RouterState::from_json(text).map_err(|e| {
                CommandError::input(format!(
                    "{}:{}:{}: the router state is not valid: {e} (hint: delete the file to start the counters over)",
                    path.display(),
                    e.line(),
                    e.column()
                ))
            }),
        };
        let routed = state.and_then(|s| router.decide(history, &s).map_err(CommandError::input));
        // On an error the file is written back as it was.
        let text = match &routed {
            Ok(r) => r.state.to_json(),
            Err(_) => current.unwrap_or_default().to_owned(),
        };
        Ok((text, routed))
    })?
}

fn print(format: Format, routed: &Routed, ui: &mut Ui) -> Result<(), CommandError> {
    if format == Format::Json {
        let output = Output {
            decision: &routed.decision,
            replied: routed.agent.as_deref(),
            iteration: routed.iteration,
            repeated: routed.repeated,
        };
        serde_json::to_writer_pretty(&mut ui.out, &output).map_err(std::io::Error::from)?;
        writeln!(ui.out)?;
        return Ok(());
    }
    let who = |agent: &Option<String>| agent.clone().unwrap_or_else(|| "the agent".to_owned());
    {
        let (mut out, styles) = ui.human();
        match &routed.decision {
            Decision::Route { to, keyword, from } => {
                let s = styles.pass;
                let to = to.as_deref().unwrap_or("(no agent)");
                writeln!(out, "{s}route{s:#} {keyword}: {} → {to}", who(from))?;
            }
            Decision::Terminate { reason } => {
                let s = styles.pass;
                writeln!(out, "{s}terminate{s:#} {reason}")?;
            }
            Decision::Stuck {
                agent,
                validator,
                failures,
                last_message,
            } => {
                let s = styles.fail;
                writeln!(
                    out,
                    "{s}stuck{s:#} {} was corrected {failures} times in a row (the last by {validator}); the run ends.\nThe last correction:\n{last_message}",
                    who(agent)
                )?;
            }
            Decision::Correct { message, .. } => writeln!(out, "{message}")?,
        }
    }
    if let Decision::Correct {
        agent,
        kind,
        validator,
        consecutive,
        ..
    } = &routed.decision
    {
        let by = validator.as_deref().unwrap_or(kind.label());
        ui.warn(format_args!(
            "correct {}: {by} (correction {consecutive} in a row)",
            who(agent)
        ));
    }
    if routed.repeated {
        ui.warn(
            "this reply was decided before; the decision is repeated and the state is unchanged",
        );
    }
    Ok(())
}
