//! `vouch changes record`: append a turn to `changes.json`.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use clap::Args;
use vouch_evidence::{NewCommand, NewTurn};

use crate::commands::config_input::load_gates;
use crate::commands::format::Format;
use crate::error::CommandError;
use crate::exit_codes;
use crate::ui::{Ui, plural};

/// Record what an agent did in a turn into the change log
///
/// Appends one entry — the agent, the files it wrote and deleted, the commands it ran with
/// their exit code and output, its commits — to `changes.json` in the orchestrator's layout.
/// Each command's output is kept up to 4 KiB, with the SHA-256 of the whole output beside it.
/// Writers take an exclusive lock and replace the file atomically, so any number of processes
/// may record at once without losing a turn.
///
/// The turn goes to `--session-id`, or the log's active session, or a new session when the log
/// has none (which becomes active). `--json FILE` (or `-` for stdin) reads a whole turn:
/// `{"agent", "session_id", "turn_index", "activate", "files_written", "files_deleted",
/// "commands": [{"command", "exit_code", "output"}], "git_commits"}`; flags add to it.
#[derive(Debug, Args)]
pub(crate) struct RecordArgs {
    /// The change log [default: the configuration's, else .fuseraft/state/changes.json]
    #[arg(long, value_name = "FILE")]
    file: Option<PathBuf>,

    /// A pipeline configuration whose `Validation.ChangeLogPath` (or `ChangeTracking.Path`)
    /// names the change log
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,

    /// The agent whose turn it was
    #[arg(long, value_name = "NAME")]
    agent: Option<String>,

    /// The session the turn belongs to
    #[arg(long, value_name = "ID")]
    session_id: Option<String>,

    /// Start a new session (a fresh id) and make it the active one
    #[arg(long, conflicts_with = "session_id")]
    new_session: bool,

    /// Make the turn's session the active one
    #[arg(long)]
    activate: bool,

    /// The turn's number [default: one more than the session's last]
    #[arg(long, value_name = "N")]
    turn: Option<i64>,

    /// A file written (repeatable)
    #[arg(long = "written", value_name = "PATH")]
    written: Vec<String>,

    /// A file deleted (repeatable)
    #[arg(long = "deleted", value_name = "PATH")]
    deleted: Vec<String>,

    /// A commit made (repeatable)
    #[arg(long = "commit", value_name = "SHA")]
    commits: Vec<String>,

    /// A command run (its outcome from --exit-code, its output from --output or --output-file)
    #[arg(long, value_name = "COMMAND")]
    command: Option<String>,

    /// The command's exit code (a command without one is recorded as failed)
    #[arg(
        long,
        value_name = "CODE",
        requires = "command",
        allow_hyphen_values = true
    )]
    exit_code: Option<i64>,

    /// The command's output
    #[arg(
        long,
        value_name = "TEXT",
        requires = "command",
        conflicts_with = "output_file"
    )]
    output: Option<String>,

    /// A file holding the command's output
    #[arg(long, value_name = "FILE", requires = "command")]
    output_file: Option<PathBuf>,

    /// A whole turn as JSON, from a file or `-` for stdin
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,

    /// Print what was recorded as JSON
    #[arg(long, value_enum, default_value = "human")]
    format: Format,
}

/// Runs `vouch changes record`.
pub(crate) fn run(args: &RecordArgs, ui: &mut Ui) -> Result<u8, CommandError> {
    let path = match (&args.file, &args.config) {
        (Some(file), _) => file.clone(),
        (None, Some(config)) => {
            let gates = load_gates(config, false, ui)?;
            let dir = config.parent().map_or_else(PathBuf::new, Path::to_path_buf);
            dir.join(&gates.config().validation().paths.change_log)
        }
        (None, None) => vouch_evidence::ArtifactPaths::default().change_log,
    };
    let mut turn = match &args.json {
        Some(source) => {
            let text = if source.as_os_str() == "-" {
                let mut text = String::new();
                std::io::stdin().read_to_string(&mut text)?;
                text
            } else {
                std::fs::read_to_string(source).map_err(|e| {
                    CommandError::input(format!("failed to read `{}`: {e}", source.display()))
                })?
            };
            NewTurn::parse(source, &text)?
        }
        None => NewTurn::default(),
    };
    if let Some(agent) = &args.agent {
        turn.agent.clone_from(agent);
    }
    if turn.agent.trim().is_empty() {
        return Err(CommandError::input(
            "a turn needs its agent (hint: pass --agent NAME)",
        ));
    }
    if args.new_session {
        turn.session_id = Some(vouch_evidence::new_session_id());
        turn.activate = true;
    }
    if let Some(id) = &args.session_id {
        turn.session_id = Some(id.clone());
    }
    turn.activate |= args.activate;
    if args.turn.is_some() {
        turn.turn_index = args.turn;
    }
    turn.files_written.extend(args.written.iter().cloned());
    turn.files_deleted.extend(args.deleted.iter().cloned());
    turn.git_commits.extend(args.commits.iter().cloned());
    if let Some(command) = &args.command {
        let output = match (&args.output, &args.output_file) {
            (Some(text), _) => text.clone(),
            (None, Some(file)) => {
                let bytes = std::fs::read(file).map_err(|e| {
                    CommandError::input(format!("failed to read `{}`: {e}", file.display()))
                })?;
                String::from_utf8_lossy(&bytes).into_owned()
            }
            (None, None) => String::new(),
        };
        turn.commands
            .push(NewCommand::new(command.clone(), args.exit_code, output));
    }
    let appended = vouch_evidence::append(&path, &turn)?;
    match args.format {
        Format::Human => {
            let _ = writeln!(
                ui.err,
                "recorded turn {} of {} (session {}) in {}: {} written, {}",
                appended.turn_index,
                turn.agent,
                appended.session_id,
                path.display(),
                plural(turn.files_written.len(), "file", "files"),
                plural(turn.commands.len(), "command", "commands"),
            );
        }
        Format::Json => {
            let out = serde_json::json!({
                "path": path.display().to_string(),
                "session_id": appended.session_id,
                "turn_index": appended.turn_index,
                "entries": appended.entries,
            });
            writeln!(ui.out, "{out}")?;
        }
    }
    Ok(exit_codes::PASS)
}
