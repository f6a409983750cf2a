//! `vouch sandbox check`: what this machine's kernel enforces on the commands agents run, and
//! the proof — a write outside, a read of a denied file and a connection out, each tried from
//! inside the sandbox.

use std::io::Write;
use std::time::Duration;

use clap::{Args, Subcommand};
use serde::Serialize;
use vouch_process::{EnvPolicy, Options, Sandbox};

use crate::commands::format::Format;
use crate::error::CommandError;
use crate::exit_codes;
use crate::ui::Ui;

/// The kernel's confinement of what agents run
#[derive(Debug, Subcommand)]
pub(crate) enum SandboxCommand {
    /// Show what this machine enforces, and prove it from inside the sandbox
    ///
    /// Probes Landlock (files and TCP, ABI 4 or later) and user and network namespaces
    /// (`unshare --user --net`), then runs three commands in a sandbox that may write only in
    /// a temporary folder: one writes outside it, one reads a file outside the readable
    /// folders, one connects to a TCP listener of this machine. Each must be refused.
    ///
    /// Exit codes: 0 everything enforced and every attempt refused, 1 something missing or an
    /// attempt went through. `--format json` prints `{"landlock_abi", "network_namespace",
    /// "missing": [...], "attempts": [{"attempt", "refused", "detail"}]}`.
    Check(CheckArgs),
}

/// Arguments of `vouch sandbox check`.
#[derive(Debug, Args)]
pub(crate) struct CheckArgs {
    /// Output format (what `json` prints: docs/json-output.md)
    #[arg(long, value_enum, default_value = "human")]
    format: Format,
}

#[derive(Serialize)]
struct Tried {
    attempt: &'static str,
    refused: bool,
    detail: String,
}

/// Runs `vouch sandbox ...`.
pub(crate) fn run(command: &SandboxCommand, ui: &mut Ui) -> Result<u8, CommandError> {
    let SandboxCommand::Check(args) = command;
    let support = vouch_process::support();
    let missing = support.missing(&Sandbox::default());
    let root = tempfile::tempdir()
        .map_err(|e| CommandError::input(format!("cannot make a temporary folder: {e}")))?;
    let inside = root.path().join("inside");
    let outside = root.path().join("outside");
    std::fs::create_dir_all(&inside).and_then(|()| std::fs::create_dir_all(&outside))?;
    let secret = outside.join("secret.txt");
    std::fs::write(&secret, "a secret")?;
    let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
    let port = listener.local_addr()?.port();
    let target = outside.join("written.txt");
    let attempts = [
        (
            "write outside the folder",
            format!("echo x > {}", target.display()),
        ),
        (
            "read a file outside the readable folders",
            format!("cat {}", secret.display()),
        ),
        (
            "connect out over TCP",
            format!("exec 3<>/dev/tcp/127.0.0.1/{port} && echo connected"),
        ),
    ];
    let sandbox = Sandbox::new(vec![inside.clone()]).best_effort(true);
    let mut results = Vec::new();
    for (attempt, script) in attempts {
        let mut cmd = std::process::Command::new("bash");
        cmd.arg("-c").arg(&script).current_dir(&inside);
        EnvPolicy::default().apply(&mut cmd);
        let done = vouch_process::run(
            cmd,
            &Options::new(Duration::from_secs(10))
                .merged()
                .sandboxed(sandbox.clone()),
        )
        .map_err(|e| CommandError::input(format!("the sandbox could not run a command: {e}")))?;
        let output = done.stdout_text();
        let went_through = match attempt {
            "write outside the folder" => target.exists(),
            "read a file outside the readable folders" => output.contains("a secret"),
            _ => output.contains("connected"),
        };
        results.push(Tried {
            attempt,
            refused: !went_through,
            detail: output.trim().lines().last().unwrap_or_default().to_owned(),
        });
    }
    let held = missing.is_empty() && results.iter().all(|a| a.refused);
    match args.format {
        Format::Json => {
            let doc = serde_json::json!({
                "landlock_abi": support.landlock_abi,
                "network_namespace": support.unshare.is_some(),
                "missing": missing,
                "attempts": results,
            });
            serde_json::to_writer_pretty(&mut ui.out, &doc).map_err(std::io::Error::from)?;
            writeln!(ui.out)?;
        }
        Format::Human => {
            let out = &mut ui.out;
            match support.landlock_abi {
                Some(abi) => writeln!(out, "Landlock: ABI {abi}")?,
                None => writeln!(out, "Landlock: not available")?,
            }
            writeln!(
                out,
                "network namespace: {}",
                if support.unshare.is_some() {
                    "yes (unshare --user --net)"
                } else {
                    "no"
                }
            )?;
            for m in &missing {
                writeln!(out, "missing: {m}")?;
            }
            for a in &results {
                writeln!(
                    out,
                    "{} {}{}",
                    if a.refused {
                        "✓ refused:"
                    } else {
                        "✗ went through:"
                    },
                    a.attempt,
                    if a.detail.is_empty() {
                        String::new()
                    } else {
                        format!(" ({})", a.detail)
                    }
                )?;
            }
            writeln!(
                out,
                "{}",
                if held {
                    "the sandbox holds"
                } else {
                    "the sandbox does NOT hold here"
                }
            )?;
        }
    }
    Ok(if held {
        exit_codes::PASS
    } else {
        exit_codes::CHECK_FAILED
    })
}
