//! A coding agent's turn as evidence: the files its log says it wrote or patched, every command
//! with a receipt built from the log (as `vouch session receipts` builds them), every MCP call —
//! the effects the runner records in the change log's turn entry, as it records its own tools'.

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
                if let Some(r) = view.receipt_of(call) {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A Claude Code log: a write beneath the working directory, a failing command, an MCP call
    /// and a write outside.
    const LOG: &str = r#"{"type":"user","sessionId":"s","uuid":"u0","timestamp":"2026-11-25T08:00:00.000Z","message":{"role":"user","content":"fix it"}}
{"type":"assistant","sessionId":"s","uuid":"u1","timestamp":"2026-11-25T08:00:01.000Z","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Write","input":{"file_path":"/w/src/lib.rs","content":"x"}}]}}
{"type":"user","sessionId":"s","uuid":"u2","timestamp":"2026-11-25T08:00:02.000Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"File created"}]}}
{"type":"assistant","sessionId":"s","uuid":"u3","timestamp":"2026-11-25T08:00:03.000Z","message":{"id":"m2","role":"assistant","content":[{"type":"tool_use","id":"t2","name":"Bash","input":{"command":"cargo test"}}]}}
{"type":"user","sessionId":"s","uuid":"u4","timestamp":"2026-11-25T08:00:05.000Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t2","content":"test result: FAILED. 1 failed","is_error":true}]}}
{"type":"assistant","sessionId":"s","uuid":"u5","timestamp":"2026-11-25T08:00:06.000Z","message":{"id":"m3","role":"assistant","content":[{"type":"tool_use","id":"t3","name":"mcp__github__create_pull_request","input":{"title":"fix"}}]}}
{"type":"user","sessionId":"s","uuid":"u6","timestamp":"2026-11-25T08:00:07.000Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t3","content":"opened #7"}]}}
{"type":"assistant","sessionId":"s","uuid":"u7","timestamp":"2026-11-25T08:00:08.000Z","message":{"id":"m4","role":"assistant","content":[{"type":"tool_use","id":"t4","name":"Edit","input":{"file_path":"/etc/hosts","old_string":"a","new_string":"b"}}]}}
{"type":"user","sessionId":"s","uuid":"u8","timestamp":"2026-11-25T08:00:09.000Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t4","content":"Updated"}]}}
"#;

    #[test]
    fn a_cli_log_s_calls_become_the_change_log_s_effects() {
        let options = vouch_session::ReadOptions {
            format: Some(vouch_session::Format::ClaudeCode),
            ..vouch_session::ReadOptions::default()
        };
        let session = vouch_session::read_from(LOG.as_bytes(), "log", &options)
            .expect("a Claude Code log")
            .session;
        let effects = effects(&session, Path::new("/w"), "2026-11-25T09:00:00Z");
        assert_eq!(effects.len(), 4, "{effects:?}");
        assert_eq!(effects[0], Effect::Wrote("src/lib.rs".into()));
        let Effect::Ran(r) = &effects[1] else {
            panic!("{effects:?}");
        };
        assert_eq!(r.command, "cargo test");
        // Claude Code logs a failure, not its exit code: none is made up.
        assert_eq!(r.exit_code, None);
        assert_eq!(r.call_id.as_deref(), Some("t2"));
        assert_eq!(r.started_at, "2026-11-25T08:00:03Z");
        assert_eq!(r.duration, Duration::from_secs(2));
        assert_eq!(
            effects[2],
            Effect::Tool(ToolCallRun::new(
                "mcp__github__create_pull_request",
                serde_json::json!({"title": "fix"}),
                false
            ))
        );
        // A write outside the working directory is recorded as the log names it.
        assert_eq!(effects[3], Effect::Wrote("/etc/hosts".into()));
    }
}
