//! The pipeline runner's parts: the confined working directory its agents work in, and the
//! tools they call there, each answering in the validator spec's text convention and reporting
//! what it did for the change log the runner keeps.
//!
//! # Overview
//!
//! - [`Workspace`]: resolves every path an agent names inside the run's working directory, or
//!   refuses it (`..`, absolute paths and links that lead out, the run's own state, deny
//!   globs).
//! - [`tools::call`]: runs one tool call (`read_file`, `list_files`, `search`, `write_file`,
//!   `patch_file`, `delete_file`, `shell_run`, `git_commit`, `handoff`) and answers a
//!   [`tools::ToolOutput`].
//!
//! ```
//! use vouch_pipeline::tools::{self, ShellPolicy, ToolContext};
//! use vouch_pipeline::Workspace;
//!
//! let dir = tempfile::tempdir()?;
//! let cx = ToolContext {
//!     workspace: Workspace::new(dir.path(), &[], &[])?,
//!     shell: ShellPolicy::default(),
//!     result_cap: 10_000,
//!     cancel: None,
//!     change_log: None,
//!     run_id: None,
//!     scratchpad: None,
//!     http: tools::HttpRules::default(),
//! };
//! let wrote = tools::call("write_file", &serde_json::json!({"path": "a.txt", "content": "hi"}), &cx);
//! assert_eq!(wrote.text, "wrote 2 bytes to a.txt");
//! let escaped = tools::call("read_file", &serde_json::json!({"path": "../etc/passwd"}), &cx);
//! assert!(escaped.text.starts_with("[DENIED]"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![deny(missing_docs)]

mod approval;
mod brownfield;
mod cli_agent;
mod config;
mod confine;
mod conversation;
mod error;
mod fallover;
mod journal;
pub mod mcp;
pub mod models;
mod progress;
mod record;
mod replay;
mod run;
mod selector;
mod state;
mod steering;
mod subagent;
pub mod tools;
mod turn;
mod verify;
mod view;
mod workspace;

pub use approval::ApprovalMode;
#[doc(hidden)]
pub use cli_agent::record_turn_for_bench;
pub use config::{
    AgentConfig, Brownfield, Budget, CliAgent, CliKind, Compaction, ContextWindow, Isolation,
    ModelConfig, Provider, RunConfig, SandboxMode, SandboxPolicy, SubAgent, lint,
};
pub use error::RunError;
pub use models::Models;
pub use progress::Progress;
pub use record::{Call, RunRecord, TurnRecord, read_run};
pub use run::{Ended, RunOptions, Summary, resume, run};
pub use state::{RunFiles, run_dir, state_root};
pub use verify::{VerifiedRun, verify_run};
pub use workspace::{Access, Opened, Refused, Workspace};
