//! `git_commit`: every change of the working directory committed, as the agent's work — by
//! git under the runner's terms, not the repository's. The repository's own configuration is
//! written by whoever controls the working directory, so nothing in it may run: hooks
//! (`core.hooksPath` to an empty place, `--no-verify`), filter drivers (each one configured is
//! blanked), the file-system monitor, signing programs. Git gets the minimal environment (no
//! model keys, no tokens), and each git call is kept with its receipt in the run's journal.

use std::process::Command;
use std::time::Duration;

use serde_json::Value;
use vouch_process::{EnvPolicy, Options};

use crate::tools::intent::{Intent, Settled};
use crate::tools::shell_run::receipt;
use crate::tools::{Change, Effect, Prepared, ToolContext, ToolOutput, text_arg};

/// How long one git call may take.
const GIT_TIMEOUT: Duration = Duration::from_secs(60);

/// A commit about to be made.
#[derive(Debug, Clone)]
pub struct Plan {
    head: Option<String>,
    message: String,
}

/// Plans committing every change with `message`.
pub(super) fn plan(args: &Value, cx: &ToolContext) -> Prepared {
    let message = match text_arg(args, "message") {
        Ok(m) if !m.trim().is_empty() => m,
        Ok(_) => return Prepared::Done(ToolOutput::error("`message` is empty")),
        Err(e) => return Prepared::Done(e),
    };
    match head(cx) {
        Ok(head) => Prepared::Change(Change::Commit(Plan {
            head,
            message: message.to_owned(),
        })),
        Err(e) => Prepared::Done(e),
    }
}

impl Plan {
    /// Returns what the journal keeps of the commit.
    pub(crate) fn intent(&self) -> Intent {
        Intent::Commit {
            head: self.head.clone(),
            message: self.message.clone(),
        }
    }

    /// Stages every change of the working directory and commits it.
    pub(crate) fn apply(self, cx: &ToolContext) -> ToolOutput {
        let mut receipts = Vec::new();
        let mut step = |args: &[&str]| -> Result<String, ToolOutput> {
            let (done, shown) = git(cx, args)?;
            let out = done.stdout_text();
            receipts.push(receipt(&shown, &done));
            if done.succeeded() {
                Ok(out)
            } else {
                Err(ToolOutput::error(format!(
                    "`{shown}` failed: {}",
                    out.trim()
                )))
            }
        };
        let made = step(&["add", "-A", "--", "."])
            .and_then(|_| step(&["commit", "-q", "--no-verify", "-m", &self.message]))
            .and_then(|_| step(&["rev-parse", "HEAD"]));
        let mut out = match made {
            Ok(hash) => {
                let hash = hash.trim().to_owned();
                ToolOutput::ok(format!("committed {hash}")).with(Effect::Committed(hash))
            }
            Err(e) => e,
        };
        out.effects
            .splice(0..0, receipts.into_iter().map(Effect::Git));
        out
    }
}

/// Finds whether the commit of `message` on `head` was made.
pub(crate) fn settle(cx: &ToolContext, head_before: Option<&str>, message: &str) -> Settled {
    let now = match head(cx) {
        Ok(now) => now,
        Err(e) => return Settled::Neither(e),
    };
    if now.as_deref() == head_before {
        return Settled::NotMade;
    }
    let Some(hash) = now else {
        return Settled::Neither(ToolOutput::error(
            "the run stopped while this call committed, and the repository has no commit now",
        ));
    };
    let shown = git(cx, &["log", "-1", "--format=%P%n%B", &hash]).ok();
    let made = shown.as_ref().is_some_and(|(done, _)| {
        let text = done.stdout_text();
        let (parents, body) = text.split_once('\n').unwrap_or((&text, ""));
        parents.trim() == head_before.unwrap_or("") && body.trim_end() == message.trim_end()
    });
    if made {
        Settled::Made(ToolOutput::ok(format!("committed {hash}")).with(Effect::Committed(hash)))
    } else {
        Settled::Neither(ToolOutput::error(
            "the run stopped while this call committed, and HEAD is now a commit it did not make: look at `git log` before going on",
        ))
    }
}

/// Returns the commit `HEAD` names, `None` in a repository without commits.
fn head(cx: &ToolContext) -> Result<Option<String>, ToolOutput> {
    let (done, _) = git(cx, &["rev-parse", "--verify", "-q", "HEAD"])?;
    match done.exit_code {
        Some(0) => Ok(Some(done.stdout_text().trim().to_owned())),
        Some(1) => Ok(None),
        _ => Err(ToolOutput::error(format!(
            "this is not a git repository, or git cannot read it: {}",
            done.stdout_text().trim()
        ))),
    }
}

/// Runs git with `args` in the working directory under the runner's terms; returns what
/// became of it and the command as the receipt names it.
fn git(cx: &ToolContext, args: &[&str]) -> Result<(vouch_process::Finished, String), ToolOutput> {
    let root = cx.workspace.root();
    let mut cmd = Command::new("git");
    EnvPolicy {
        pass: Vec::new(),
        hidden: Vec::new(),
    }
    .apply(&mut cmd);
    cmd.env("GIT_TERMINAL_PROMPT", "0")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .current_dir(root);
    for setting in overrides(root) {
        cmd.arg("-c").arg(setting);
    }
    cmd.args(args);
    let shown = format!(
        "git {}",
        args.iter()
            .map(|a| vouch_process::shell_quote(a))
            .collect::<Vec<_>>()
            .join(" ")
    );
    match vouch_process::run(cmd, &Options::new(GIT_TIMEOUT).merged().hunt_escapes()) {
        Ok(done) => Ok((done, shown)),
        Err(e) => Err(ToolOutput::error(format!("git could not start: {e}"))),
    }
}

/// Returns the `-c` settings that keep the repository's configuration from running anything:
/// hooks, the file-system monitor and signing off, and every configured filter driver blank.
fn overrides(root: &std::path::Path) -> Vec<String> {
    let mut settings: Vec<String> = [
        "core.hooksPath=/dev/null",
        "core.fsmonitor=false",
        "core.pager=cat",
        "commit.gpgSign=false",
        "gpg.program=false",
        "core.sshCommand=false",
        "credential.helper=",
        "protocol.allow=never",
    ]
    .map(str::to_owned)
    .to_vec();
    // Reading the configuration runs nothing; the drivers it names are blanked one by one.
    let mut list = Command::new("git");
    EnvPolicy::default().apply(&mut list);
    list.env("GIT_CONFIG_NOSYSTEM", "1")
        .current_dir(root)
        .args(["config", "--name-only", "--get-regexp", r"^filter\."]);
    if let Ok(done) = vouch_process::run(list, &Options::new(GIT_TIMEOUT)) {
        let names = done.stdout_text();
        let mut drivers: Vec<&str> = names
            .lines()
            .filter_map(|key| {
                key.strip_prefix("filter.")?
                    .rsplit_once('.')
                    .map(|(d, _)| d)
            })
            .collect();
        drivers.sort_unstable();
        drivers.dedup();
        for d in drivers {
            for (key, value) in [
                ("clean", ""),
                ("smudge", ""),
                ("process", ""),
                ("required", "false"),
            ] {
                settings.push(format!("filter.{d}.{key}={value}"));
            }
        }
    }
    settings
}
