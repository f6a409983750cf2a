//! `vouch hook claude-code`: Claude Code's Stop and SubagentStop hook.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use clap::Args;
use vouch_gate::{GateSet, HookAnswer, HookInput, Verdict};

use crate::error::CommandError;
use crate::exit_codes;
use crate::render::config_errors;
use crate::ui::Ui;

/// Gate Claude Code's completion: its Stop and SubagentStop hook
///
/// Reads Claude Code's hook input on stdin (`session_id`, `transcript_path`, `cwd`,
/// `hook_event_name`, `stop_hook_active`), evaluates the gates configured for completion on
/// the end of the transcript, and answers in Claude Code's protocol: to keep the agent working,
/// `{"decision":"block","reason":…}` on stdout; to let it stop, nothing.
///
/// The gates are `Hooks.Stop` (and `Hooks.SubagentStop`) of `vouch.yaml`, found in the
/// session's folder or above it, or of `--config`; without `Hooks`, the validators of the
/// configuration's termination strategies. With no configuration at all, the hook allows.
///
/// Consecutive blocks of a session are counted in `.vouch/hook-state.json`: at
/// `Hooks.StuckThreshold` (3) the hook stops blocking and tells the person the agent is stuck
/// (a `systemMessage`), instead of looping forever. The hook exits 0 whenever it answered;
/// see docs/claude-code-hook.md for installing it.
#[derive(Debug, Args)]
pub(crate) struct ClaudeCodeArgs {
    /// The configuration [default: vouch.yaml in the session's folder or above]
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
}

/// Runs `vouch hook claude-code`.
pub(crate) fn run(args: &ClaudeCodeArgs, ui: &mut Ui) -> Result<u8, CommandError> {
    let mut text = String::new();
    std::io::stdin().read_to_string(&mut text)?;
    let input = HookInput::parse(&text).map_err(|e| {
        CommandError::input(format!(
            "failed to read Claude Code's hook input on stdin: {e}"
        ))
    })?;
    let start = input.cwd.clone().unwrap_or_else(|| PathBuf::from("."));
    let Some(config_path) = args
        .config
        .clone()
        .or_else(|| vouch_harness::config::find_above(&start))
    else {
        tracing::debug!(cwd = %start.display(), "no vouch.yaml: nothing to gate");
        return Ok(exit_codes::PASS);
    };
    let project = config_path
        .parent()
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
    let (verdict, threshold, state_dir) = match GateSet::load(&config_path) {
        Ok(gates) => {
            let hooks = &gates.config().hooks();
            let verdict = vouch_gate::evaluate_stop(&input, &gates, &project);
            (verdict, hooks.stuck_threshold, hooks.state_dir.clone())
        }
        Err(errors) => {
            // A broken configuration cannot decide: block, and say why (decision G4).
            let mut rendered = Vec::new();
            let _ = config_errors::write(&mut rendered, &errors, false);
            let message = format!(
                "Completion blocked: vouch could not load its configuration:\n{}",
                String::from_utf8_lossy(&rendered).trim_end()
            );
            let defaults = vouch_gate::Hooks::default();
            (
                Verdict::block("vouch configuration", message),
                defaults.stuck_threshold,
                defaults.state_dir,
            )
        }
    };
    let state_path = project.join(state_dir).join("hook-state.json");
    let answer = match vouch_gate::hook_answer(&input.session_id, &verdict, &state_path, threshold)
    {
        Ok(answer) => answer,
        Err(e) => {
            ui.warn(format_args!("failed to update the hook's state: {e}"));
            match verdict {
                Verdict::Pass => HookAnswer::Allow,
                Verdict::Block(b) => HookAnswer::Block {
                    validator: b.validator,
                    reason: b.message,
                    consecutive: 1,
                },
            }
        }
    };
    if let Some(json) = answer.stdout() {
        writeln!(ui.out, "{json}")?;
    }
    match &answer {
        HookAnswer::Allow => {}
        HookAnswer::Block {
            validator,
            consecutive,
            ..
        } => {
            tracing::info!(%validator, consecutive, "blocked the stop");
        }
        HookAnswer::Stuck {
            validator,
            failures,
            ..
        } => {
            let _ = writeln!(
                ui.err,
                "vouch: the agent is stuck: {validator} blocked it {failures} times in a row"
            );
        }
    }
    Ok(exit_codes::PASS)
}
