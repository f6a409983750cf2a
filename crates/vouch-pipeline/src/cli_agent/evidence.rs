//! A coding agent's turn as evidence: the files its log says it wrote or patched, every command
//! with a receipt built from the log (as `vouch session receipts` builds them), every MCP call —
//! the effects the runner records in the change log's turn entry, as it records its own tools'.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use vouch_evidence::{ArtifactPaths, EvidenceView, ToolCallRun};
use vouch_session::{Session, ToolKind};

use crate::tools::{Effect, Receipt};

/// Returns the effects of the calls of `session` (a coding agent's turn, its subagents'
/// included), in the order they were made; paths beneath `workdir` are made relative to it.
/// `at` stands for a command's start when the log gives none.
pub(crate) fn effects(session: &Session, workdir: &Path, at: &str) -> Vec<Effect> {
    let view = EvidenceView::new(session, workdir, ArtifactPaths::default());
    let calls = view.all_calls();
    let mut receipts: BTreeMap<String, vouch_evidence::Receipt> = view
        .call_receipts(calls)
        .kept
        .into_iter()
        .filter_map(|(r, _)| Some((r.run.receipt.call_id.clone()?, r)))
        .collect();
    let mut out: Vec<Effect> = Vec::new();
    for call in calls {
        let c = call.call;
        match c.kind {
            ToolKind::WriteFile | ToolKind::PatchFile if call.succeeded() => {
                for path in c.touched_paths() {
                    let path = relative(path, workdir);
                    if !out
                        .iter()
                        .any(|e| matches!(e, Effect::Wrote(p) if *p == path))
                    {
                        out.push(Effect::Wrote(path));
                    }
                }
            }
            ToolKind::Shell => {
                if let Some(r) = receipts.remove(&c.call_id) {
                    out.push(Effect::Ran(receipt(r, at)));
                }
            }
            _ if c.name.starts_with("mcp__") => out.push(Effect::Tool(ToolCallRun::new(
                c.name.clone(),
                c.args.value().clone(),
                !call.succeeded(),
            ))),
            _ => {}
        }
    }
    out
}

/// Returns `path` relative to `workdir` when beneath it, else as the log gives it.
fn relative(path: &str, workdir: &Path) -> String {
    Path::new(path)
        .strip_prefix(workdir)
        .ok()
        .and_then(|p| p.to_str())
        .filter(|p| !p.is_empty())
        .unwrap_or(path)
        .to_owned()
}

/// Returns the runner's receipt of a command a log recorded.
fn receipt(r: vouch_evidence::Receipt, at: &str) -> Receipt {
    let run = r.run;
    let output_len = run.receipt.output_bytes.unwrap_or(run.output.len() as u64);
    Receipt {
        exit_code: run.exit_code.and_then(|c| i32::try_from(c).ok()),
        timed_out: false,
        duration: Duration::from_millis(run.receipt.duration_ms.unwrap_or(0)),
        output_len,
        output_sha256: run
            .output_sha256
            .unwrap_or_else(|| crate::tools::sha256_hex(run.output.as_bytes())),
        output: run.output,
        started_at: run.receipt.started_at.unwrap_or_else(|| at.to_owned()),
        call_id: run.receipt.call_id,
        command: run.command,
        escaped: Vec::new(),
    }
}
