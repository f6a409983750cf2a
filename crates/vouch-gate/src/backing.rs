//! Whether a command a report names was really run: a recorded command backs it when one
//! contains the other, or when they share a significant token.

/// Words too common in test commands to tie a reported command to a recorded one.
pub(crate) const COMMON_WORDS: &[&str] = &[
    "test",
    "tests",
    "cargo",
    "npm",
    "npx",
    "yarn",
    "pnpm",
    "node",
    "python",
    "python3",
    "pytest",
    "dotnet",
    "make",
    "bash",
    "build",
    "check",
    "exec",
    "echo",
    "then",
    "with",
    "--nocapture",
];

/// Returns true when the recorded command `recorded` backs the reported command `reported`:
/// one contains the other, or they share a significant token.
pub(crate) fn backs(recorded: &str, reported: &str) -> bool {
    let (r, p) = (normalize(recorded), normalize(reported));
    if r.contains(&p) || p.contains(&r) {
        return true;
    }
    let recorded_tokens: Vec<&str> = tokens(&r).collect();
    tokens(&p)
        .filter(|t| significant(t))
        .any(|t| recorded_tokens.contains(&t))
}

fn normalize(command: &str) -> String {
    command
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

fn tokens(command: &str) -> impl Iterator<Item = &str> {
    command
        .split(|c: char| c.is_whitespace() || "'\"`;&|()<>=,:".contains(c))
        .map(|t| t.trim_matches(|c: char| c == '.' || c == ':'))
        .filter(|t| !t.is_empty())
}

fn significant(token: &str) -> bool {
    token.chars().count() >= 4 && !token.starts_with('-') && !COMMON_WORDS.contains(&token)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reported_commands_need_a_significant_shared_token() {
        assert!(backs(
            "cargo test test_add_command -- --nocapture",
            "cargo test test_add_command"
        ));
        assert!(backs(
            "cd app && cargo test test_add_command",
            "cargo test test_add_command -- --nocapture"
        ));
        assert!(!backs(
            "go test ./...",
            "cargo test test_add_command -- --nocapture"
        ));
        assert!(!backs("cargo test", "npm test -- --runInBand"));
        assert!(backs(
            "pytest -q tests/test_api.py",
            "python -m pytest tests/test_api.py::test_list"
        ));
    }
}
