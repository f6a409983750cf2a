//! Which calls a tool name in a test names: the name itself (any case), and its aliases across
//! agents — `Bash` is Claude Code's `Bash`, Codex's `exec_command` and `shell`, an
//! orchestrator's `shell_run`. Names vouch does not know (MCP tools, custom tools) match
//! themselves only.

use crate::assertions::error::PatternError;
use vouch_evidence::{Call, CallIndex};
use vouch_session::{ToolCall, ToolKind};

/// Groups of names that mean the same tool; the first is the name shown.
const ALIASES: &[&[&str]] = &[
    &["Read", "read_file", "view", "read"],
    &["Write", "write_file", "create_file", "write"],
    &[
        "Edit",
        "edit_file",
        "patch_file",
        "apply_patch",
        "str_replace_editor",
        "edit",
    ],
    &["MultiEdit", "multi_edit"],
    &[
        "Bash",
        "execute_command",
        "shell",
        "shell_run",
        "exec_command",
        "local_shell",
        "run_command",
        "bash",
    ],
    &["Glob", "glob_files", "glob"],
    &["Grep", "search_files", "grep"],
    &["Task", "Agent", "spawn_agent", "task"],
    &["WebFetch", "web_fetch", "fetch"],
    &["WebSearch", "web_search"],
    &["NotebookEdit", "notebook_edit"],
    &["AskUserQuestion", "ask_user", "ask_user_question"],
    &["TodoWrite", "todo_write", "update_plan"],
    &["KillShell", "kill_shell", "KillBash"],
    &["TaskOutput", "task_output", "BashOutput"],
    &["Skill", "skill"],
    &["GitCommit", "git_commit"],
];

/// The alias group of `name` (case-insensitive), if it has one.
fn group(name: &str) -> Option<usize> {
    ALIASES
        .iter()
        .position(|names| names.iter().any(|n| n.eq_ignore_ascii_case(name)))
}

/// The alias group of a call: by its name; else, for an orchestrator's `Server-tool` name, by
/// the part after the last `-`, `.` or `__`; else by its kind where the kind is one tool.
fn call_group(call: &ToolCall) -> Option<usize> {
    group(&call.name)
        .or_else(|| {
            let tail = call
                .name
                .rsplit(['-', '.'])
                .next()
                .map(|t| t.rsplit("__").next().unwrap_or(t))?;
            (tail != call.name).then(|| group(tail)).flatten()
        })
        .or_else(|| match call.kind {
            ToolKind::Shell => group("Bash"),
            ToolKind::WriteFile => group("Write"),
            ToolKind::PatchFile => group("Edit"),
            ToolKind::ReadFile => group("Read"),
            ToolKind::GitCommit => group("GitCommit"),
            _ => None,
        })
}

/// Returns the tool name of a namespaced name (`mcp__server__tool` → `tool`), if it is one.
fn short_name(name: &str) -> Option<&str> {
    name.rsplit_once("__")
        .map(|(_, tail)| tail)
        .filter(|t| !t.is_empty())
}

/// A tool as a test names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolName {
    written: String,
    group: Option<usize>,
}

impl ToolName {
    /// Reads a tool name; empty names are refused.
    pub fn new(written: &str) -> Result<ToolName, PatternError> {
        let written = written.trim();
        if written.is_empty() {
            return Err(PatternError::new("a tool name is empty"));
        }
        Ok(ToolName {
            written: written.to_owned(),
            group: group(written),
        })
    }

    /// Returns the name as written.
    pub fn as_str(&self) -> &str {
        &self.written
    }

    /// Returns true when `call` is a call of this tool: by its full name, by its short name
    /// (`js` names Codex's `mcp__node_repl__js`, `create_issue` Claude Code's
    /// `mcp__github__create_issue`), or by alias.
    pub fn matches(&self, call: &ToolCall) -> bool {
        call.name.eq_ignore_ascii_case(&self.written)
            || short_name(&call.name).is_some_and(|s| s.eq_ignore_ascii_case(&self.written))
            || (self.group.is_some() && self.group == call_group(call))
    }

    /// Returns, for each tool of `index` (built from `calls`), whether it is this tool: the
    /// name is looked up once per distinct tool, not once per call.
    pub fn select(&self, index: &CallIndex<'_>, calls: &[Call<'_>]) -> Vec<bool> {
        index
            .positions
            .iter()
            .map(|at| at.first().is_some_and(|&i| self.matches(calls[i].call)))
            .collect()
    }

    /// Returns the positions in `calls` of this tool's calls, ascending.
    pub fn positions(&self, index: &CallIndex<'_>, calls: &[Call<'_>]) -> Vec<usize> {
        let chosen: Vec<&Vec<usize>> = self
            .select(index, calls)
            .into_iter()
            .zip(&index.positions)
            .filter_map(|(yes, at)| yes.then_some(at))
            .collect();
        match chosen.as_slice() {
            [] => Vec::new(),
            [one] => (*one).clone(),
            many => {
                let mut all: Vec<usize> = many.iter().flat_map(|at| at.iter().copied()).collect();
                all.sort_unstable();
                all
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use vouch_session::Args;

    use super::*;

    fn call(name: &str, kind: ToolKind) -> ToolCall {
        ToolCall {
            call_id: "c".into(),
            name: name.to_owned().into(),
            kind,
            args: Args::from_json("{}"),
        }
    }

    #[test]
    fn names_match_across_agents() {
        let bash = ToolName::new("bash").unwrap();
        assert!(bash.matches(&call("Bash", ToolKind::Shell)));
        assert!(bash.matches(&call("exec_command", ToolKind::Shell)));
        assert!(bash.matches(&call("Shell-shell_run", ToolKind::Shell)));
        assert!(!bash.matches(&call("Read", ToolKind::ReadFile)));
        let write = ToolName::new("write_file").unwrap();
        assert!(write.matches(&call("Write", ToolKind::WriteFile)));
        assert!(write.matches(&call("FileSystem-write_file", ToolKind::WriteFile)));
        let grep = ToolName::new("Grep").unwrap();
        assert!(!grep.matches(&call("Glob", ToolKind::Search)));
        let js = ToolName::new("js").unwrap();
        assert!(js.matches(&call("mcp__node_repl__js", ToolKind::Other)));
        assert!(!js.matches(&call("mcp__node_repl__json", ToolKind::Other)));
        let full = ToolName::new("mcp__node_repl__js").unwrap();
        assert!(full.matches(&call("mcp__node_repl__js", ToolKind::Other)));
        let mcp = ToolName::new("mcp__github__create_issue").unwrap();
        assert!(mcp.matches(&call("mcp__github__create_issue", ToolKind::Other)));
        assert!(!mcp.matches(&call("mcp__github__list_issues", ToolKind::Other)));
        assert!(ToolName::new(" ").is_err());
    }
}
