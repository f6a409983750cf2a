//! A brownfield run's start (`Brownfield`): its entry points join the task, the convention
//! profile an earlier run wrote joins every agent's instructions, and the recon brief's
//! `in_scope_files` seed the change envelope — beside `SystemPrompt` and
//! `Security.ChangeEnvelope`.

use std::path::Path;

use crate::config::RunConfig;

/// What a run starts with.
pub(crate) struct Start {
    /// The globs agents may write (anywhere when empty).
    pub(crate) envelope: Vec<String>,
    /// The text before every agent's instructions.
    pub(crate) system: Option<String>,
    entry_points: Vec<String>,
}

impl Start {
    /// Returns the task with the entry points the configuration names.
    pub(crate) fn task(&self, task: &str) -> String {
        if self.entry_points.is_empty() {
            task.to_owned()
        } else {
            format!("{task}\n\nEntry points: {}", self.entry_points.join(", "))
        }
    }
}

/// Reads what a run of `config` in `workdir` starts with.
pub(crate) fn start(config: &RunConfig, workdir: &Path) -> Start {
    let mut envelope = config.envelope.clone();
    let mut system = config.system_prompt.clone();
    let mut entry_points = Vec::new();
    if let Some(b) = &config.brownfield {
        entry_points.clone_from(&b.entry_points);
        if let Some(profile) = &b.convention_profile
            && let Ok(text) = std::fs::read_to_string(workdir.join(profile))
        {
            let block = format!("PROJECT CONVENTIONS ({}):\n{text}", profile.display());
            system = Some(match system {
                Some(s) => format!("{s}\n\n{block}"),
                None => block,
            });
        }
        if b.seed_envelope
            && let Some(brief) = &b.discovery_brief
            && let Ok(text) = std::fs::read_to_string(workdir.join(brief))
            && let Ok(value) = serde_json::from_str::<serde_json::Value>(&text)
        {
            let files: Vec<String> = value
                .get("in_scope_files")
                .and_then(serde_json::Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|f| f.as_str().map(str::to_owned))
                .collect();
            if !files.is_empty() {
                envelope.extend(files);
                // The run's own artifacts stay writable.
                envelope.push(".fuseraft/**".to_owned());
            }
        }
    }
    Start {
        envelope,
        system,
        entry_points,
    }
}
