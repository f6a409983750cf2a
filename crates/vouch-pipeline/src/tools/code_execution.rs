//! fuseraft's `CodeExecution` plugin, as vouch runs it: `code_execution_sandbox_run` runs a
//! snippet under the run's own confinement (the rules, the environment and the receipt of
//! `shell_run`) — not in a Docker container; `code_execution_check_docker` says so. The REPL
//! functions are not offered.

use serde_json::Value;

use crate::tools::{ToolContext, ToolOutput, snippet, text_arg};

/// Runs one of the code-execution tools.
pub(super) fn run(name: &str, args: &Value, cx: &ToolContext) -> ToolOutput {
    match name {
        "code_execution_check_docker" => ToolOutput::ok(format!(
            "vouch runs code_execution_sandbox_run under the run's own confinement, without Docker: {}.",
            snippet::LANGUAGES
        )),
        _ => match (text_arg(args, "language"), text_arg(args, "code")) {
            (Ok(language), Ok(code)) => snippet::run(language, code, None, cx),
            (Err(e), _) | (_, Err(e)) => e,
        },
    }
}
