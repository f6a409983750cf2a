//! What every tool call runs within: the confined working directory and the shell's rules.

use std::time::Duration;

use regex::Regex;
use vouch_llm::HttpProvider;
use vouch_process::EnvPolicy;

use crate::workspace::Workspace;

/// The rules of `shell_run`: which commands may run, for how long, what output is kept, and
/// which environment variables they get.
#[derive(Debug, Clone)]
pub struct ShellPolicy {
    /// A command must match one of these to run (any command when empty).
    pub allow: Vec<Regex>,
    /// A command matching one of these never runs (deny wins over allow).
    pub deny: Vec<Regex>,
    /// How long a command may run before its process group is killed.
    pub timeout: Duration,
    /// How many bytes of a command's output are kept (head and tail).
    pub output_cap: usize,
    /// The environment commands get: the base allowlist, `Security.PassEnv`, never the
    /// models' keys.
    pub env: EnvPolicy,
    /// The kernel's confinement of every command (`Security.Sandbox`); `None` when off.
    pub sandbox: Option<vouch_process::Sandbox>,
}

impl Default for ShellPolicy {
    fn default() -> ShellPolicy {
        ShellPolicy {
            allow: Vec::new(),
            deny: Vec::new(),
            timeout: Duration::from_secs(300),
            output_cap: 64 * 1024,
            env: EnvPolicy {
                pass: Vec::new(),
                hidden: [HttpProvider::OpenAi, HttpProvider::Anthropic]
                    .map(|p| p.default_key_env().to_owned())
                    .to_vec(),
            },
            sandbox: None,
        }
    }
}

/// What the `Http` plugin may reach (`Security.HttpAllowedHosts`, `AllowPrivateHosts`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HttpRules {
    /// The hosts requests may reach; any public host when empty (`*.example.com` for a domain).
    pub allowed_hosts: Vec<String>,
    /// Private, loopback and link-local addresses too.
    pub allow_private: bool,
}

/// Where and under which rules a tool call runs.
#[derive(Debug, Clone)]
pub struct ToolContext {
    /// The confined working directory.
    pub workspace: Workspace,
    /// The shell's rules.
    pub shell: ShellPolicy,
    /// How many characters of a file or listing a result shows before it is cut.
    pub result_cap: usize,
    /// Turns true when the run is interrupted: a running command is stopped.
    pub cancel: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
    /// The run's change log, which `changes_read` shows.
    pub change_log: Option<std::path::PathBuf>,
    /// The run's id, whose change-log entries `changes_read` shows.
    pub run_id: Option<String>,
    /// The run's scratchpad file, in its state directory.
    pub scratchpad: Option<std::path::PathBuf>,
    /// What `Http` may reach.
    pub http: HttpRules,
}

impl ToolContext {
    /// Returns true once the run is interrupted.
    pub fn cancelled(&self) -> bool {
        self.cancel
            .as_ref()
            .is_some_and(|f| f.load(std::sync::atomic::Ordering::SeqCst))
    }
}
