//! `Agents[].Cli`: an agent that is a coding agent's CLI — Claude Code, Codex or Gemini CLI —
//! run headless for each of its turns, with its own `Model`, extra `Args`, `TimeoutSeconds`
//! and `Permissions` (the CLI's own permission or sandbox mode).

use std::time::Duration;

use vouch_gate::yaml::{Location, Map, Reader};

/// Which coding agent's CLI.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CliKind {
    /// Claude Code (`claude`).
    ClaudeCode,
    /// Codex CLI (`codex`).
    Codex,
    /// Gemini CLI (`gemini`).
    Gemini,
}

impl CliKind {
    /// The name a pipeline file gives it.
    pub fn name(self) -> &'static str {
        match self {
            CliKind::ClaudeCode => "claude-code",
            CliKind::Codex => "codex",
            CliKind::Gemini => "gemini",
        }
    }

    /// The executable looked for on `PATH`.
    pub fn program(self) -> &'static str {
        match self {
            CliKind::ClaudeCode => "claude",
            CliKind::Codex => "codex",
            CliKind::Gemini => "gemini",
        }
    }

    /// The product, for messages.
    pub fn product(self) -> &'static str {
        match self {
            CliKind::ClaudeCode => "Claude Code",
            CliKind::Codex => "Codex CLI",
            CliKind::Gemini => "Gemini CLI",
        }
    }

    /// The CLI's own flag for its permission or sandbox mode, the modes it documents, and the
    /// default vouch chooses: edit files in the working directory and run commands without
    /// asking (and, for Codex, no network from its commands).
    pub fn permissions(self) -> (&'static str, &'static [&'static str], &'static str) {
        match self {
            CliKind::ClaudeCode => (
                "--permission-mode",
                &[
                    "default",
                    "acceptEdits",
                    "plan",
                    "bypassPermissions",
                    "dontAsk",
                ],
                "acceptEdits",
            ),
            CliKind::Codex => (
                "--sandbox",
                &["read-only", "workspace-write", "danger-full-access"],
                "workspace-write",
            ),
            CliKind::Gemini => ("--approval-mode", &["default", "auto_edit", "yolo"], "yolo"),
        }
    }

    /// Returns the CLI a journal names by [`CliKind::name`].
    pub(crate) fn from_name(name: &str) -> Option<CliKind> {
        [CliKind::ClaudeCode, CliKind::Codex, CliKind::Gemini]
            .into_iter()
            .find(|k| k.name() == name)
    }

    /// Reads a `Cli` value.
    fn parse(s: &str) -> Option<CliKind> {
        match s.to_ascii_lowercase().as_str() {
            "claude-code" | "claude" | "claudecode" => Some(CliKind::ClaudeCode),
            "codex" => Some(CliKind::Codex),
            "gemini" | "gemini-cli" => Some(CliKind::Gemini),
            _ => None,
        }
    }
}

/// An agent that is a coding agent's CLI.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct CliAgent {
    /// `Cli`.
    pub kind: CliKind,
    /// `Model`: the CLI's own model name (`--model`), when given.
    pub model: Option<String>,
    /// `Args`: extra arguments, after vouch's.
    pub args: Vec<String>,
    /// `TimeoutSeconds`: how long one turn may run (default 900 s).
    pub timeout: Duration,
    /// `Permissions`: the CLI's own permission or sandbox mode.
    pub permissions: String,
}

/// The keys only a CLI agent has.
pub(super) const CLI_KEYS: &[&str] = &["Cli", "Args", "TimeoutSeconds", "Permissions"];

/// The keys of a model agent that mean nothing for a CLI agent, which uses its own tools and
/// keeps its own conversation.
const MODEL_ONLY: &[&str] = &[
    "Tools",
    "Plugins",
    "Capabilities",
    "MaxToolCallsPerTurn",
    "FunctionChoice",
    "Isolation",
    "ContextWindow",
    "MaxInTurnToolPairs",
    "SubAgentModel",
    "SubAgentPlugins",
    "SubAgentMaxToolCalls",
];

/// Reads the CLI keys of an agent mapping: `Some` when it has `Cli` (its `Model` taken as the
/// CLI's own model name); CLI keys on a model agent and model keys on a CLI agent are errors.
pub(super) fn cli(r: &mut Reader, m: &mut Map<'_>) -> Option<CliAgent> {
    let Some((node, path)) = m.get("Cli") else {
        for key in &CLI_KEYS[1..] {
            if let Some((n, pp)) = m.get(key) {
                r.error(
                    Location::of(n),
                    &pp,
                    format!("`{key}` is a key of an agent that is a coding agent's CLI"),
                    Some("add `Cli: claude-code`, `codex` or `gemini`, or remove it".into()),
                );
            }
        }
        return None;
    };
    let named = r.string(node, &path)?;
    let Some(kind) = CliKind::parse(&named) else {
        r.error(
            Location::of(node),
            &path,
            format!("unknown coding agent CLI `{named}`"),
            Some("`claude-code`, `codex` or `gemini`".into()),
        );
        return None;
    };
    for key in MODEL_ONLY {
        if let Some((n, pp)) = m.get(key) {
            r.error(
                Location::of(n),
                &pp,
                format!(
                    "`{key}` has no meaning for a {} agent: it uses its own tools and keeps its own conversation",
                    kind.product()
                ),
                Some("remove it".into()),
            );
        }
    }
    let model = m.get("Model").and_then(|(n, pp)| r.string(n, &pp));
    let args = m
        .get("Args")
        .map(|(n, pp)| r.strings(n, &pp).into_iter().map(|(s, _)| s).collect())
        .unwrap_or_default();
    let timeout = m
        .get("TimeoutSeconds")
        .and_then(|(n, pp)| r.positive(n, &pp))
        .map_or(Duration::from_secs(900), |s| {
            Duration::from_secs(u64::from(s))
        });
    let (flag, modes, default) = kind.permissions();
    let permissions = match m.get("Permissions") {
        Some((n, pp)) => match r.string(n, &pp) {
            Some(p) if modes.contains(&p.as_str()) => p,
            Some(p) => {
                r.error(
                    Location::of(n),
                    &pp,
                    format!(
                        "{} has no permission mode `{p}` (its `{flag}`)",
                        kind.product()
                    ),
                    Some(modes.join(", ")),
                );
                default.to_owned()
            }
            None => default.to_owned(),
        },
        None => default.to_owned(),
    };
    Some(CliAgent {
        kind,
        model,
        args,
        timeout,
        permissions,
    })
}
