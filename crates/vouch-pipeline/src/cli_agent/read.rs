//! What a CLI's turn did, read from the CLI's own log: its saved session (found by id where
//! the CLI keeps it, and checked to name that id), else the stream it printed; of a saved
//! session that earlier turns share, only what follows them.

use std::path::{Path, PathBuf};

use vouch_llm::Usage;
use vouch_session::{Format, ReadOptions, Session};

use crate::cli_agent::{CliBegun, claude, codex, gemini};
use crate::config::CliKind;

/// A turn's part of a CLI session.
pub(crate) struct TurnLog {
    /// The turn's events (and the subagents its calls started).
    pub(crate) session: Session,
    /// Where it was read from.
    pub(crate) source: String,
    /// The session's id, as now known.
    pub(crate) session_id: Option<String>,
    /// The tokens of the turn.
    pub(crate) usage: Usage,
}

/// The format of a CLI's logs.
pub(crate) fn format(kind: CliKind) -> Format {
    match kind {
        CliKind::ClaudeCode => Format::ClaudeCode,
        CliKind::Codex => Format::Codex,
        CliKind::Gemini => Format::Gemini,
    }
}

/// Returns where the CLI saves session `session` run in `workdir`.
pub(crate) fn saved_log(kind: CliKind, workdir: &Path, session: &str) -> Option<PathBuf> {
    match kind {
        CliKind::ClaudeCode => claude::saved_log(workdir, session),
        CliKind::Codex => codex::saved_log(session),
        CliKind::Gemini => gemini::saved_log(session),
    }
    .filter(|p| p.is_file())
}

/// Returns the folder the CLI keeps its state and logs in.
pub(crate) fn state_dir(kind: CliKind) -> Option<PathBuf> {
    let env = vouch_session::locations::env_with(&[]);
    match kind {
        CliKind::ClaudeCode => vouch_session::locations::claude_config_dir(env),
        CliKind::Codex => vouch_session::locations::codex_home(env),
        CliKind::Gemini => vouch_session::locations::gemini_dir(env),
    }
}

/// Reads session `session` from its saved log, when there is one that names it.
pub(crate) fn read_saved(
    kind: CliKind,
    workdir: &Path,
    session: &str,
) -> Option<(Session, PathBuf)> {
    let path = saved_log(kind, workdir, session)?;
    let options = ReadOptions {
        format: Some(format(kind)),
        ..ReadOptions::default()
    };
    let report = vouch_session::read_path(&path, &options).ok()?;
    (report.session.id.is_empty() || report.session.id == session).then_some((report.session, path))
}

/// Converts a log's token count into the run's.
pub(crate) fn usage_of(session: &Session) -> Usage {
    session.usage.map_or_else(Usage::default, |u| Usage {
        input: u.input + u.cache_read + u.cache_write,
        output: u.output,
    })
}

/// Reads the turn `begun` of a CLI of `kind` run in `workdir`, which printed `stdout`.
pub(crate) fn read_turn(kind: CliKind, workdir: &Path, stdout: &[u8], begun: &CliBegun) -> TurnLog {
    // The session's id: the one vouch chose, else the one the stream's first record names
    // (Codex's `thread.started`, Gemini's `init`).
    let session_id = begun.session.clone().or_else(|| first_record_id(stdout));
    let saved = session_id
        .as_deref()
        .and_then(|id| read_saved(kind, workdir, id));
    // The stream is read only when there is no saved session to read.
    let (mut turn, source, usage) = match saved {
        Some((s, path)) => {
            let (s, usage) = after(s, begun);
            (s, path.display().to_string(), usage)
        }
        None => {
            let options = ReadOptions {
                format: Some(format(kind)),
                ..ReadOptions::default()
            };
            match vouch_session::read_from(stdout, "<stream>", &options)
                .map(|r| r.session)
                .ok()
                .filter(|s| !s.events.is_empty())
            {
                Some(s) => {
                    let usage = usage_of(&s);
                    (s, format!("the stream {} printed", kind.program()), usage)
                }
                None => (Session::default(), "nothing".to_owned(), Usage::default()),
            }
        }
    };
    // Subagents of earlier turns stay with them.
    let calls: Vec<String> = turn.tool_calls().map(|c| c.call_id.clone()).collect();
    turn.subagents
        .retain(|s| s.spawned_by.as_ref().is_some_and(|id| calls.contains(id)));
    turn.id = session_id.clone().unwrap_or_default();
    TurnLog {
        session: turn,
        source,
        session_id,
        usage,
    }
}

/// Returns what a saved session holds after the turns before `begun`, and the tokens of that.
pub(crate) fn after(mut s: Session, begun: &CliBegun) -> (Session, Usage) {
    s.events.drain(..begun.before.min(s.events.len()));
    let total = usage_of(&s);
    let usage = Usage {
        input: total.input.saturating_sub(begun.before_usage.input),
        output: total.output.saturating_sub(begun.before_usage.output),
    };
    (s, usage)
}

/// Returns the session id the first record of a CLI's stream names (`session_id`,
/// `thread_id`).
fn first_record_id(stdout: &[u8]) -> Option<String> {
    let line = stdout
        .split(|b| *b == b'\n')
        .find(|l| !l.trim_ascii().is_empty())?;
    let record: serde_json::Value = serde_json::from_slice(line).ok()?;
    ["session_id", "thread_id", "sessionId"]
        .iter()
        .find_map(|k| record.get(k)?.as_str())
        .filter(|id| !id.is_empty())
        .map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_record_of_a_stream_names_its_session() {
        let codex =
            b"{\"type\":\"thread.started\",\"thread_id\":\"0199a\"}\n{\"type\":\"turn.started\"}\n";
        assert_eq!(first_record_id(codex).as_deref(), Some("0199a"));
        let gemini = b"\n{\"type\":\"init\",\"session_id\":\"4a5b\",\"model\":\"m\"}\n";
        assert_eq!(first_record_id(gemini).as_deref(), Some("4a5b"));
        assert_eq!(first_record_id(b"not json\n"), None);
        assert_eq!(first_record_id(b""), None);
    }
}
