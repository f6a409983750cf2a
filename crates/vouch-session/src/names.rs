//! The tool names the agents vouch reads use most, shared by every call that bears one: a
//! session of a hundred thousand calls would otherwise hold a hundred thousand copies of
//! `Bash`.

use std::borrow::Cow;

/// Built-in tool names of Claude Code, Codex, Gemini CLI, opencode and Cursor, in byte order.
static KNOWN: [&str; 52] = [
    "Agent",
    "Bash",
    "BashOutput",
    "Edit",
    "ExitPlanMode",
    "Glob",
    "Grep",
    "KillShell",
    "LS",
    "MultiEdit",
    "NotebookEdit",
    "NotebookRead",
    "Read",
    "Skill",
    "SlashCommand",
    "Task",
    "TodoWrite",
    "WebFetch",
    "WebSearch",
    "Write",
    "apply_patch",
    "bash",
    "edit",
    "exec_command",
    "glob",
    "google_web_search",
    "grep",
    "list",
    "list_directory",
    "local_shell",
    "patch",
    "read",
    "read_file",
    "read_many_files",
    "replace",
    "run_shell_command",
    "save_memory",
    "search_file_content",
    "shell",
    "shell_command",
    "task",
    "todoread",
    "todowrite",
    "update_plan",
    "view_image",
    "web_fetch",
    "web_search",
    "webfetch",
    "write",
    "write_file",
    "write_stdin",
    "write_todos",
];

/// Returns the static copy of `name` when it is a known one.
fn known(name: &str) -> Option<&'static str> {
    KNOWN.binary_search(&name).ok().map(|i| KNOWN[i])
}

/// Returns `name` as a tool call's name: borrowed when it is a known one, else a copy.
pub(crate) fn tool_name(name: &str) -> Cow<'static, str> {
    known(name).map_or_else(|| Cow::Owned(name.to_owned()), Cow::Borrowed)
}

/// Returns `name`, a name of its own, as a tool call's name: borrowed when it is a known one.
pub(crate) fn owned_tool_name(name: String) -> Cow<'static, str> {
    known(&name).map_or(Cow::Owned(name), Cow::Borrowed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_list_is_in_byte_order_and_each_name_is_found() {
        assert!(KNOWN.windows(2).all(|w| w[0] < w[1]));
        for name in KNOWN {
            assert!(matches!(tool_name(name), Cow::Borrowed(n) if n == name));
        }
        assert!(
            matches!(tool_name("mcp__github__search"), Cow::Owned(n) if n == "mcp__github__search")
        );
        assert!(matches!(tool_name("bash2"), Cow::Owned(_)));
        assert!(matches!(
            owned_tool_name("shell".into()),
            Cow::Borrowed("shell")
        ));
        assert!(matches!(owned_tool_name("shell2".into()), Cow::Owned(n) if n == "shell2"));
    }
}
