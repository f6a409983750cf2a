//! `vouch session receipts`: every shell command of a session, with its receipt and whether
//! strict evidence counts it.

use std::io::Write;

use clap::Args;
use serde::Serialize;
use vouch_evidence::{ArtifactPaths, EvidenceView, Origin, Receipt, passing_run};

use crate::commands::format::Format;
use crate::commands::log_input::{LogArgs, load};
use crate::error::CommandError;
use crate::ui::Ui;

/// List a session's shell commands with their receipts and strict verdicts
///
/// For every shell call of the session (subagents' included): the command, its exit code, when
/// it started and ended, the call it answers, the size and SHA-256 of its output — and whether
/// strict evidence counts it as a passing run (exit 0 with its own status, tests actually run),
/// or why not. Results that answer no call of their own are listed as ignored.
///
/// `--format json` prints `{"receipts": [...], "ignored": [...]}`.
#[derive(Debug, Args)]
pub(crate) struct ReceiptsArgs {
    #[command(flatten)]
    log: LogArgs,

    /// Output format (what `json` prints: docs/json-output.md)
    #[arg(long, value_enum, default_value = "human")]
    format: Format,
}

/// A receipt as JSON.
#[derive(Serialize)]
struct Row<'a> {
    command: &'a str,
    exit_code: Option<i64>,
    succeeded: bool,
    call_id: Option<&'a str>,
    line: Option<u64>,
    started_at: Option<&'a str>,
    ended_at: Option<&'a str>,
    duration_ms: Option<u64>,
    output_bytes: Option<u64>,
    output_sha256: Option<&'a str>,
    output_tail: Option<&'a str>,
    /// Strict evidence counts it as a passing run.
    passing: bool,
    /// Why it does not, when it does not.
    rejected: Option<String>,
}

#[derive(Serialize)]
struct Document<'a> {
    receipts: Vec<Row<'a>>,
    ignored: &'a [String],
}

/// Runs `vouch session receipts`.
pub(crate) fn run(args: &ReceiptsArgs, ui: &mut Ui) -> Result<u8, CommandError> {
    let loaded = load(&args.log, ui)?;
    let view = EvidenceView::new(&loaded.session, ".", ArtifactPaths::default());
    let receipts = view.call_receipts(view.all_calls());
    let verdicts: Vec<Result<(), String>> = receipts
        .kept
        .iter()
        .map(|(r, s)| passing_run(r, s).map_err(|why| why.to_string()))
        .collect();
    match args.format {
        Format::Human => {
            let (mut out, styles) = ui.human();
            for ((receipt, _), verdict) in receipts.kept.iter().zip(&verdicts) {
                let (mark, style) = match verdict {
                    Ok(()) => ("✓", styles.pass),
                    Err(_) => ("✗", styles.fail),
                };
                writeln!(out, "{style}{mark}{style:#} {receipt}{}", facts(receipt))?;
                if let Err(why) = verdict {
                    writeln!(out, "  {}does not count: {why}{:#}", styles.dim, styles.dim)?;
                }
            }
            if receipts.kept.is_empty() {
                writeln!(out, "no shell commands")?;
            }
            for line in &receipts.ignored {
                writeln!(out, "{}ignored:{:#} {line}", styles.warning, styles.warning)?;
            }
        }
        Format::Json => {
            let rows = receipts
                .kept
                .iter()
                .zip(&verdicts)
                .map(|((r, _), verdict)| Row {
                    command: &r.run.command,
                    exit_code: r.run.exit_code,
                    succeeded: r.run.succeeded,
                    call_id: r.run.receipt.call_id.as_deref(),
                    line: match r.origin {
                        Origin::Session { line } => line,
                        Origin::ChangeLog { .. } => None,
                    },
                    started_at: r.run.receipt.started_at.as_deref(),
                    ended_at: r.run.receipt.ended_at.as_deref(),
                    duration_ms: r.run.receipt.duration_ms,
                    output_bytes: r.run.receipt.output_bytes,
                    output_sha256: r.run.output_sha256.as_deref(),
                    output_tail: r.run.receipt.output_tail.as_deref(),
                    passing: verdict.is_ok(),
                    rejected: verdict.clone().err(),
                })
                .collect();
            let doc = Document {
                receipts: rows,
                ignored: &receipts.ignored,
            };
            serde_json::to_writer_pretty(&mut ui.out, &doc).map_err(std::io::Error::from)?;
            ui.out.write_all(b"\n")?;
        }
    }
    Ok(loaded.code)
}

/// Returns ` — exit 0, 1.2 s, 2,345 bytes` for the facts the receipt holds.
fn facts(receipt: &Receipt) -> String {
    let mut parts = Vec::new();
    if let Some(code) = receipt.run.exit_code {
        parts.push(format!("exit {code}"));
    }
    if let Some(ms) = receipt.run.receipt.duration_ms {
        parts.push(format!("{}.{} s", ms / 1000, ms % 1000 / 100));
    }
    if let Some(bytes) = receipt.run.receipt.output_bytes {
        parts.push(format!("{bytes} bytes of output"));
    }
    if parts.is_empty() {
        String::new()
    } else {
        format!(" — {}", parts.join(", "))
    }
}
