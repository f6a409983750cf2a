//! The run's sandbox (`Security.Sandbox`, `WritePaths`, `ReadPaths`, `Network`): what every
//! command and stdio MCP server of the run may reach, set up once when the run starts. `on`
//! (the default) fails closed: a machine that cannot enforce it refuses the run and says what
//! is missing; `best-effort` and `off` run, and the journal records what was not enforced.

use std::path::Path;

use vouch_process::Sandbox;

use crate::config::{RunConfig, SandboxMode};
use crate::error::RunError;
use crate::journal::Record;

/// Returns the sandbox of a run of `config` in `workdir` (its state in `state_dir`), and the
/// journal record saying how it stands; a sandbox `on` that this machine cannot enforce is an
/// error.
pub(crate) fn sandbox(
    config: &RunConfig,
    workdir: &Path,
    state_dir: &Path,
) -> Result<(Option<Sandbox>, Record), RunError> {
    let policy = &config.sandbox;
    let mode = policy.mode;
    if mode == SandboxMode::Off {
        return Ok((
            None,
            Record::Sandbox {
                mode: mode.name().to_owned(),
                missing: vec!["the kernel confines nothing: `Security.Sandbox: off`".to_owned()],
            },
        ));
    }
    // The commands' temporary files go to a folder of the run's own.
    let tmp = state_dir.join("tmp");
    std::fs::create_dir_all(&tmp)
        .map_err(|e| RunError::Io(format!("cannot make {}: {e}", tmp.display())))?;
    let resolve = |p: &std::path::PathBuf| {
        if p.is_absolute() {
            p.clone()
        } else {
            workdir.join(p)
        }
    };
    let mut write = vec![workdir.to_owned(), tmp];
    write.extend(policy.write.iter().map(resolve));
    let sandbox = Sandbox::new(write)
        .reading(policy.read.iter().map(resolve).collect())
        .network(policy.network)
        .best_effort(mode == SandboxMode::BestEffort);
    let missing = vouch_process::support().missing(&sandbox);
    if mode == SandboxMode::On && !missing.is_empty() {
        return Err(RunError::Io(format!(
            "the sandbox cannot be enforced on this machine: {}; write `Security.Sandbox: best-effort` (or `off`) to run without it",
            missing.join("; ")
        )));
    }
    Ok((
        Some(sandbox),
        Record::Sandbox {
            mode: mode.name().to_owned(),
            missing,
        },
    ))
}
