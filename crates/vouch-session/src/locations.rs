//! Where agent products keep their session logs on disk: Claude Code under its configuration
//! folder, one folder per project; Codex under its home, one rollout file per thread; Gemini
//! CLI under `~/.gemini/tmp/<project>/chats/`.
//!
//! Every function takes the environment as a lookup, so that a runner that sets variables for
//! its child (a test's `CLAUDE_CONFIG_DIR`) finds the logs where that child wrote them.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// Returns Claude Code's configuration folder: `CLAUDE_CONFIG_DIR`, else `$HOME/.claude`.
pub fn claude_config_dir(env: impl Fn(&str) -> Option<OsString>) -> Option<PathBuf> {
    env("CLAUDE_CONFIG_DIR")
        .map(PathBuf::from)
        .or_else(|| env("HOME").map(|h| PathBuf::from(h).join(".claude")))
}

/// Returns the folder Claude Code keeps the sessions of the project in `workdir` under:
/// `<config>/projects/<slug of the canonical workdir>`.
pub fn claude_project_dir(config: &Path, workdir: &Path) -> PathBuf {
    let canonical = workdir
        .canonicalize()
        .unwrap_or_else(|_| workdir.to_owned());
    config
        .join("projects")
        .join(claude_project_slug(&canonical))
}

/// Returns the folder name Claude Code gives a project: its path with every character that is
/// not an ASCII letter or digit replaced by `-`.
pub fn claude_project_slug(dir: &Path) -> String {
    dir.to_string_lossy()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

/// Returns Codex's home: `CODEX_HOME`, else `$HOME/.codex`. Its rollouts live under
/// `sessions/YYYY/MM/DD/rollout-<time>-<thread id>.jsonl`.
pub fn codex_home(env: impl Fn(&str) -> Option<OsString>) -> Option<PathBuf> {
    env("CODEX_HOME")
        .map(PathBuf::from)
        .or_else(|| env("HOME").map(|h| PathBuf::from(h).join(".codex")))
}

/// Returns the folder Codex keeps its rollouts under, in its home.
pub fn codex_sessions_dir(home: &Path) -> PathBuf {
    home.join("sessions")
}

/// Returns the rollout of Codex thread `thread_id` under Codex's `home`, if there is one: a
/// `rollout-*-<thread id>.jsonl` file of any day's folder (a resumed thread appends to the file
/// it began in). Only the name is checked; the reader checks the content's id.
pub fn codex_rollout(home: &Path, thread_id: &str) -> Option<PathBuf> {
    if thread_id.is_empty() || thread_id.contains(['/', '\\']) {
        return None;
    }
    let suffix = format!("-{thread_id}.jsonl");
    let mut found: Vec<PathBuf> = Vec::new();
    let mut folders = vec![codex_sessions_dir(home)];
    // sessions/YYYY/MM/DD: three levels, walked without following links.
    for _ in 0..3 {
        let mut next = Vec::new();
        for folder in folders {
            for entry in std::fs::read_dir(&folder).into_iter().flatten().flatten() {
                if entry.file_type().is_ok_and(|t| t.is_dir()) {
                    next.push(entry.path());
                }
            }
        }
        folders = next;
    }
    for folder in folders {
        for entry in std::fs::read_dir(&folder).into_iter().flatten().flatten() {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if name.starts_with("rollout-") && name.ends_with(&suffix) {
                found.push(entry.path());
            }
        }
    }
    found.sort();
    found.pop()
}

/// Returns Gemini CLI's folder: `$GEMINI_CLI_HOME/.gemini`, else `$HOME/.gemini`. Its saved
/// chats live under `tmp/<project>/chats/session-<time>-<id prefix>.json` (`.jsonl` in newer
/// versions).
pub fn gemini_dir(env: impl Fn(&str) -> Option<OsString>) -> Option<PathBuf> {
    env("GEMINI_CLI_HOME")
        .or_else(|| env("HOME"))
        .map(|h| PathBuf::from(h).join(".gemini"))
}

/// Returns the saved chat file of Gemini CLI session `session_id` under `gemini_dir`, if there
/// is one: a `session-*` file of any project's `chats/` whose name holds the id's first eight
/// characters and whose content names the session.
pub fn gemini_chat_file(gemini_dir: &Path, session_id: &str) -> Option<PathBuf> {
    let short = session_id.get(..8).unwrap_or(session_id);
    if short.is_empty() {
        return None;
    }
    let mut found: Vec<PathBuf> = std::fs::read_dir(gemini_dir.join("tmp"))
        .ok()?
        .flatten()
        .filter_map(|project| std::fs::read_dir(project.path().join("chats")).ok())
        .flat_map(|chats| chats.flatten().map(|e| e.path()))
        .filter(|p| {
            p.file_name().is_some_and(|n| {
                let n = n.to_string_lossy();
                n.starts_with("session-")
                    && n.contains(short)
                    && (n.ends_with(".json") || n.ends_with(".jsonl"))
            })
        })
        .filter(|p| names_session(p, session_id))
        .collect();
    found.sort();
    found.pop()
}

/// Returns true when the first bytes of the file at `path` name `session_id` as its session.
fn names_session(path: &Path, session_id: &str) -> bool {
    use std::io::Read as _;
    let mut head = Vec::new();
    let read = std::fs::File::open(path).and_then(|f| f.take(4096).read_to_end(&mut head));
    read.is_ok() && {
        let text = String::from_utf8_lossy(&head);
        text.contains(&format!("\"sessionId\":\"{session_id}\""))
            || text.contains(&format!("\"sessionId\": \"{session_id}\""))
    }
}

/// Looks a variable up in `overrides` (the last setting wins), else in this process's
/// environment: the environment a child started with `overrides` sees.
pub fn env_with(overrides: &[(OsString, OsString)]) -> impl Fn(&str) -> Option<OsString> + '_ {
    move |key| {
        overrides
            .iter()
            .rev()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.clone())
            .or_else(|| std::env::var_os(key))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn project_folders_are_named_like_claude_codes() {
        assert_eq!(
            claude_project_slug(Path::new("/home/ada/my.project")),
            "-home-ada-my-project"
        );
    }

    #[test]
    fn overrides_win_over_the_environment_and_home_is_the_fallback() {
        let set = [
            (OsString::from("HOME"), OsString::from("/first")),
            (OsString::from("HOME"), OsString::from("/home/ada")),
        ];
        let env = |k: &str| env_with(&set)(k).filter(|_| k == "HOME");
        assert_eq!(
            claude_config_dir(env),
            Some(PathBuf::from("/home/ada/.claude"))
        );
        assert_eq!(
            codex_home(|k: &str| (k == "CODEX_HOME").then(|| OsString::from("/c"))),
            Some(PathBuf::from("/c"))
        );
    }

    #[test]
    fn a_codex_rollout_is_found_by_its_thread_id_in_any_day() {
        let home = std::env::temp_dir().join(format!("vouch-codex-home-{}", std::process::id()));
        let day = home.join("sessions/2026/11/25");
        std::fs::create_dir_all(&day).expect("a temp folder");
        let id = "0199a213-81c0-7800-8aa1-bbab2a035a53";
        let file = day.join(format!("rollout-2026-11-25T08-00-00-{id}.jsonl"));
        std::fs::write(&file, "{}\n").expect("a rollout");
        std::fs::write(day.join("rollout-2026-11-25T09-00-00-other.jsonl"), "").expect("another");
        assert_eq!(codex_rollout(&home, id), Some(file));
        assert_eq!(codex_rollout(&home, "unknown"), None);
        assert_eq!(codex_rollout(&home, "../x"), None);
        let _ = std::fs::remove_dir_all(&home);
    }
}
