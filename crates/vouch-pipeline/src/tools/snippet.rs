//! A code snippet in a named interpreter, run as a `shell_run` command — the same rules, the
//! same confinement, the same receipt as any command an agent writes. `Probe` and
//! `CodeExecution` run their code this way.

use serde_json::json;

use crate::tools::{ToolContext, ToolOutput, shell_run};

/// The languages a snippet may be in.
pub(super) const LANGUAGES: &str = "bash, sh, python, javascript (node), go";

/// Returns the shell command that runs `code` in `language` (in `directory`, relative to the
/// working directory, when given), or why it cannot.
pub(super) fn command(
    language: &str,
    code: &str,
    directory: Option<&str>,
) -> Result<String, String> {
    // A delimiter the code cannot hold, so the code reaches the interpreter unchanged.
    let mut tag = String::from("VOUCH_SNIPPET");
    while code.contains(&tag) {
        tag.push('_');
    }
    let heredoc = |interpreter: &str| format!("{interpreter} <<'{tag}'\n{code}\n{tag}");
    let run = match language.trim().to_ascii_lowercase().as_str() {
        "bash" | "shell" => heredoc("bash -s"),
        "sh" => heredoc("sh -s"),
        "python" | "python3" | "py" => heredoc("python3 -"),
        "javascript" | "js" | "node" => heredoc("node -"),
        "go" | "golang" => format!(
            "vouch_go=$(mktemp -d) && cat > \"$vouch_go/main.go\" <<'{tag}'\n{code}\n{tag}\ngo run \"$vouch_go/main.go\"; vouch_status=$?; rm -rf \"$vouch_go\"; exit $vouch_status"
        ),
        other => return Err(format!("vouch runs snippets in {LANGUAGES}, not `{other}`")),
    };
    Ok(
        match directory
            .map(str::trim)
            .filter(|d| !d.is_empty() && *d != ".")
        {
            Some(dir) => format!("cd {} && {run}", vouch_process::shell_quote(dir)),
            None => run,
        },
    )
}

/// Runs `code` in `language` as a command of the run.
pub(super) fn run(
    language: &str,
    code: &str,
    directory: Option<&str>,
    cx: &ToolContext,
) -> ToolOutput {
    if let Some(dir) = directory
        && let Err(why) = cx.workspace.resolve(dir, crate::workspace::Access::Read)
    {
        return ToolOutput::denied(why);
    }
    match command(language, code, directory) {
        Ok(command) => shell_run::run(&json!({"command": command}), cx),
        Err(why) => ToolOutput::error(why),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snippets_become_heredocs_the_code_cannot_close() {
        let c = command("python", "print('VOUCH_SNIPPET')", None).unwrap_or_default();
        assert!(c.starts_with("python3 - <<'VOUCH_SNIPPET_'\n"), "{c}");
        assert!(command("cobol", "x", None).is_err());
        let c = command("bash", "ls", Some("sub dir")).unwrap_or_default();
        assert!(c.starts_with("cd 'sub dir' && bash -s"), "{c}");
    }
}
