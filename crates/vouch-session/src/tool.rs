//! Tool calls, their results, the canonical tool kinds and the outcome of a call.

use once_cell::race::OnceBox;
use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::output::Output;
use crate::scan::lookup::{Lookup, string_field};

/// The canonical kind of a tool, shared by every log format.
///
/// Validators and assertions ask "did the agent run a shell command?" rather than "did it call
/// `Bash` or `exec_command` or `Shell-shell_run`?"; each reader maps its format's tool names to
/// one of these through a single table (decision G7).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolKind {
    /// Runs a shell command (`Bash`, `exec_command`, `shell_run`).
    Shell,
    /// Writes a whole file (`Write`, `write_file`).
    WriteFile,
    /// Edits part of a file (`Edit`, `MultiEdit`, `apply_patch`, `patch_file`).
    PatchFile,
    /// Reads a file (`Read`, `read_file`).
    ReadFile,
    /// Records a commit (`git_commit`).
    GitCommit,
    /// Starts another agent (`Task`, `Agent`, `spawn_agent`).
    Subagent,
    /// Searches files or their contents (`Grep`, `Glob`).
    Search,
    /// Reaches the web (`WebFetch`, `WebSearch`).
    Web,
    /// Anything else, MCP tools and tool names vouch does not know included.
    Other,
}

impl ToolKind {
    /// Every kind, in declaration order.
    pub const ALL: [ToolKind; 9] = [
        ToolKind::Shell,
        ToolKind::WriteFile,
        ToolKind::PatchFile,
        ToolKind::ReadFile,
        ToolKind::GitCommit,
        ToolKind::Subagent,
        ToolKind::Search,
        ToolKind::Web,
        ToolKind::Other,
    ];

    /// Returns the canonical name shown in messages to agents (`shell_run`, `write_file`,
    /// ...): the validator spec's tool names.
    pub fn canonical_name(self) -> &'static str {
        match self {
            ToolKind::Shell => "shell_run",
            other => other.as_str(),
        }
    }

    /// Returns the name used in vouch's own JSONL format (`shell`, `write_file`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            ToolKind::Shell => "shell",
            ToolKind::WriteFile => "write_file",
            ToolKind::PatchFile => "patch_file",
            ToolKind::ReadFile => "read_file",
            ToolKind::GitCommit => "git_commit",
            ToolKind::Subagent => "subagent",
            ToolKind::Search => "search",
            ToolKind::Web => "web",
            ToolKind::Other => "other",
        }
    }

    /// Returns true for kinds that change files on disk (write or patch).
    pub fn writes_files(self) -> bool {
        matches!(self, ToolKind::WriteFile | ToolKind::PatchFile)
    }
}

impl std::fmt::Display for ToolKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One call of a tool by an agent, as the log recorded it.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    /// The id that links the call to its result.
    pub call_id: String,
    /// The tool name exactly as the log spells it (`Bash`, `mcp__github__search`). A reader
    /// borrows the names it knows from a static list, so a session of a hundred thousand calls
    /// does not hold a hundred thousand copies of `Bash`.
    pub name: std::borrow::Cow<'static, str>,
    /// The canonical kind the reader mapped the name to.
    pub kind: ToolKind,
    /// The call's arguments as JSON; a string when the log's arguments were not JSON.
    pub args: Args,
}

/// The arguments of a tool call: held as compact JSON text and parsed on first use, so that a
/// session of a hundred thousand calls does not hold a hundred thousand JSON trees.
#[derive(Default)]
pub struct Args {
    json: Box<str>,
    /// The parsed value, once asked for: one pointer, not a lock and a pointer, since a session
    /// holds one of these per call.
    parsed: OnceBox<Value>,
}

impl Clone for Args {
    fn clone(&self) -> Args {
        let parsed = OnceBox::new();
        if let Some(value) = self.parsed.get() {
            let _ = parsed.set(Box::new(value.clone()));
        }
        Args {
            json: self.json.clone(),
            parsed,
        }
    }
}

impl Args {
    /// Returns arguments held as JSON text; text that is not JSON is held as a JSON string.
    pub fn from_json(json: &str) -> Args {
        if serde_json::from_str::<serde::de::IgnoredAny>(json).is_ok() {
            Args {
                json: json.into(),
                parsed: OnceBox::new(),
            }
        } else {
            Args::from_value(Value::String(json.to_owned()))
        }
    }

    /// Returns arguments held as the text of an already validated raw JSON value.
    pub fn from_raw(raw: &serde_json::value::RawValue) -> Args {
        Args {
            json: raw.get().into(),
            parsed: OnceBox::new(),
        }
    }

    /// Returns arguments held as `json`, which the caller has checked is one JSON value.
    pub(crate) fn from_checked(json: &str) -> Args {
        Args {
            json: json.into(),
            parsed: OnceBox::new(),
        }
    }

    /// Returns arguments holding `value`.
    pub fn from_value(value: Value) -> Args {
        let json = value.to_string().into();
        let parsed = OnceBox::new();
        let _ = parsed.set(Box::new(value));
        Args { json, parsed }
    }

    /// Returns the arguments as a JSON value, parsing them on first use.
    pub fn value(&self) -> &Value {
        self.parsed
            .get_or_init(|| Box::new(serde_json::from_str(&self.json).unwrap_or(Value::Null)))
    }

    /// Returns the argument `key` of an object.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.value().get(key)
    }

    /// Returns the string argument `key` of an object (what `get` then `as_str` give), read
    /// from the JSON text when it holds no escape: the arguments are parsed only when needed.
    pub fn get_str(&self, key: &str) -> Option<&str> {
        match self.lookup(key) {
            Lookup::Plain(s) => Some(s),
            Lookup::Absent => None,
            Lookup::Other => self.get(key)?.as_str(),
        }
    }

    /// Returns true when the arguments are an object with the key `key`.
    pub fn contains_key(&self, key: &str) -> bool {
        match self.lookup(key) {
            Lookup::Plain(_) => true,
            Lookup::Absent => false,
            Lookup::Other => self.get(key).is_some(),
        }
    }

    /// Looks `key` up in the JSON text, unless the arguments are parsed already.
    fn lookup(&self, key: &str) -> Lookup<'_> {
        if self.parsed.get().is_some() {
            return Lookup::Other;
        }
        string_field(&self.json, key)
    }

    /// Returns the arguments when they are one string rather than an object.
    fn as_whole_str(&self) -> Option<&str> {
        if self.json.starts_with('"') {
            self.value().as_str()
        } else {
            None
        }
    }

    /// Returns the arguments as JSON text, as the log spelled them.
    pub fn as_json(&self) -> &str {
        &self.json
    }
}

impl PartialEq for Args {
    fn eq(&self, other: &Args) -> bool {
        self.json == other.json || self.value() == other.value()
    }
}

impl fmt::Debug for Args {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.json)
    }
}

impl From<Value> for Args {
    fn from(value: Value) -> Args {
        Args::from_value(value)
    }
}

impl ToolCall {
    /// Returns the argument a person looks at first: the command of a shell call, the path of a
    /// file operation, the pattern of a search, the description of a subagent.
    pub fn key_arg(&self) -> Option<&str> {
        const SHELL: &[&str] = &["command", "cmd", "script"];
        const FILE: &[&str] = &[
            "file_path",
            "filePath",
            "absolute_path",
            "target_file",
            "path",
            "notebook_path",
            "filename",
            "file",
        ];
        const SEARCH: &[&str] = &["pattern", "query", "path"];
        const WEB: &[&str] = &["url", "query"];
        const SUBAGENT: &[&str] = &["description", "task_name", "subagent_type", "prompt"];
        let keys = match self.kind {
            ToolKind::Shell => SHELL,
            ToolKind::WriteFile | ToolKind::PatchFile | ToolKind::ReadFile => FILE,
            ToolKind::Search => SEARCH,
            ToolKind::Web => WEB,
            ToolKind::Subagent => SUBAGENT,
            ToolKind::GitCommit => &["message"],
            ToolKind::Other => &[],
        };
        for key in keys {
            if let Some(s) = self.arg_str(key) {
                return Some(s);
            }
        }
        if let Some(path) = self.touched_paths().first() {
            return Some(path);
        }
        match self.args.value() {
            Value::String(s) => Some(s),
            Value::Object(map) => map.values().find_map(Value::as_str),
            _ => None,
        }
    }

    /// Returns a string argument by key, if present.
    pub fn arg_str(&self, key: &str) -> Option<&str> {
        match self.args.lookup(key) {
            Lookup::Plain(s) => return Some(s),
            Lookup::Absent => return None,
            Lookup::Other => {}
        }
        match self.args.get(key)? {
            Value::String(s) => Some(s),
            Value::Array(parts) if key == "command" || key == "cmd" => {
                // Codex shell calls spell commands as argv (`["bash", "-lc", "cargo test"]`):
                // the script is the last element.
                parts.last().and_then(Value::as_str)
            }
            _ => None,
        }
    }

    /// Returns the shell command this call ran, for shell calls.
    pub fn command(&self) -> Option<&str> {
        if self.kind != ToolKind::Shell {
            return None;
        }
        self.arg_str("command")
            .or_else(|| self.arg_str("cmd"))
            .or_else(|| self.arg_str("script"))
            .or_else(|| self.args.as_whole_str())
    }

    /// Returns the paths a write or patch call touched, as the call spelled them.
    ///
    /// Reads `file_path`/`filePath`/`target_file`/`path`/`notebook_path` arguments, the `changes` list of Codex file
    /// changes, and the `*** Add File:`/`*** Update File:`/`*** Delete File:` headers of an
    /// `apply_patch` body.
    pub fn touched_paths(&self) -> Vec<&str> {
        if !self.kind.writes_files() {
            return Vec::new();
        }
        let mut paths = Vec::new();
        for key in [
            "file_path",
            "filePath",
            "target_file",
            "path",
            "notebook_path",
            "filename",
        ] {
            if let Some(p) = self.arg_str(key) {
                paths.push(p);
            }
        }
        if self.args.contains_key("changes") {
            match self.args.get("changes") {
                Some(Value::Array(changes)) => {
                    paths.extend(changes.iter().filter_map(|c| c.get("path")?.as_str()));
                }
                Some(Value::Object(changes)) => paths.extend(changes.keys().map(String::as_str)),
                _ => {}
            }
        }
        let patch = self
            .arg_str("input")
            .or_else(|| self.arg_str("patch"))
            .or_else(|| self.args.as_whole_str());
        if let Some(patch) = patch {
            paths.extend(patch_paths(patch));
        }
        paths
    }
}

/// Returns the file paths named in the headers of an `apply_patch` body.
fn patch_paths(patch: &str) -> impl Iterator<Item = &str> {
    patch.lines().filter_map(|line| {
        let line = line.trim_end_matches('\r');
        [
            "*** Add File: ",
            "*** Update File: ",
            "*** Delete File: ",
            "*** Move to: ",
        ]
        .iter()
        .find_map(|prefix| line.strip_prefix(prefix))
        .map(str::trim)
        .filter(|p| !p.is_empty())
    })
}

/// The result a tool call produced.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolResult {
    /// The id of the call this result answers.
    pub call_id: String,
    /// The text the tool returned.
    pub output: Output,
    /// What became of the call.
    pub outcome: Outcome,
}

/// What became of a tool call.
///
/// Structured outcomes from the log win; for text-only results the bracket-prefix convention of
/// the validator spec decides (decision G6, see [`Outcome::from_text`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum Outcome {
    /// The call completed successfully.
    Ok,
    /// The call ran and failed, with its exit code when the log recorded one.
    Failed {
        /// The process exit code, when known.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        exit_code: Option<i32>,
    },
    /// The call was refused by a permission rule or a person.
    Denied,
    /// The call ran out of time.
    TimedOut,
    /// The tool reported an error (not an exit code).
    Error,
}

impl Outcome {
    /// Returns true when the call completed successfully.
    pub fn is_success(self) -> bool {
        matches!(self, Outcome::Ok)
    }

    /// Classifies a text-only result by the bracket-prefix convention: `[EXIT n]`, `[ERROR]`,
    /// `[TIMEOUT]` and `[DENIED]` mark failures; anything else, the empty text included, is a
    /// success.
    pub fn from_text(text: &str) -> Outcome {
        let t = text.trim_start();
        if let Some(rest) = t.strip_prefix("[EXIT") {
            let code = rest
                .trim_start_matches([' ', ':', '='])
                .split(|c: char| !(c.is_ascii_digit() || c == '-'))
                .next()
                .and_then(|n| n.parse().ok());
            Outcome::Failed { exit_code: code }
        } else if t.starts_with("[ERROR]") {
            Outcome::Error
        } else if t.starts_with("[TIMEOUT]") {
            Outcome::TimedOut
        } else if t.starts_with("[DENIED]") {
            Outcome::Denied
        } else {
            Outcome::Ok
        }
    }

    /// Returns the outcome of a process that exited with `code`.
    pub fn from_exit_code(code: i64) -> Outcome {
        if code == 0 {
            Outcome::Ok
        } else {
            Outcome::Failed {
                exit_code: i32::try_from(code).ok(),
            }
        }
    }

    /// Returns a short lowercase label (`ok`, `failed (exit 1)`, `denied`, ...).
    pub fn label(self) -> String {
        match self {
            Outcome::Ok => "ok".to_owned(),
            Outcome::Failed {
                exit_code: Some(code),
            } => format!("failed (exit {code})"),
            Outcome::Failed { exit_code: None } => "failed".to_owned(),
            Outcome::Denied => "denied".to_owned(),
            Outcome::TimedOut => "timed out".to_owned(),
            Outcome::Error => "error".to_owned(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn bracket_prefixes_classify_text_results() {
        assert_eq!(
            Outcome::from_text("[EXIT 2] boom"),
            Outcome::Failed { exit_code: Some(2) }
        );
        assert_eq!(
            Outcome::from_text("[EXIT] boom"),
            Outcome::Failed { exit_code: None }
        );
        assert_eq!(Outcome::from_text("  [ERROR] no"), Outcome::Error);
        assert_eq!(Outcome::from_text("[TIMEOUT] slow"), Outcome::TimedOut);
        assert_eq!(Outcome::from_text("[DENIED] nope"), Outcome::Denied);
        assert_eq!(Outcome::from_text(""), Outcome::Ok);
        assert_eq!(Outcome::from_text("ok [EXIT 1]"), Outcome::Ok);
    }

    #[test]
    fn codex_argv_commands_read_as_their_script() {
        let call = ToolCall {
            call_id: "c".into(),
            name: "shell".into(),
            kind: ToolKind::Shell,
            args: json!({"command": ["bash", "-lc", "cargo test"]}).into(),
        };
        assert_eq!(call.command(), Some("cargo test"));
        assert_eq!(call.key_arg(), Some("cargo test"));
    }

    #[test]
    fn patch_headers_name_touched_paths() {
        let call = ToolCall {
            call_id: "c".into(),
            name: "apply_patch".into(),
            kind: ToolKind::PatchFile,
            args: json!({"input": "*** Begin Patch\n*** Add File: a.txt\n+x\n*** Update File: src/b.rs\r\n*** End Patch"}).into(),
        };
        assert_eq!(call.touched_paths(), vec!["a.txt", "src/b.rs"]);
    }
}
