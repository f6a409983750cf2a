//! Detecting a log's format from the first lines of its content.

use std::path::Path;

use crate::error::Error;
use crate::session::Format;

/// How many lines of the prefix are looked at before giving up.
const MAX_LINES: usize = 64;

/// Record types of Codex rollouts, `codex exec --json` streams, and legacy Codex rollouts whose
/// lines are bare response items.
const CODEX_TYPES: &[&str] = &[
    "session_meta",
    "response_item",
    "event_msg",
    "turn_context",
    "compacted",
    "thread.started",
    "turn.started",
    "turn.completed",
    "turn.failed",
    "item.started",
    "item.updated",
    "item.completed",
    "function_call",
    "function_call_output",
    "custom_tool_call",
    "custom_tool_call_output",
    "local_shell_call",
    "reasoning",
];

/// Record types of Claude Code session logs and `stream-json` output.
const CLAUDE_TYPES: &[&str] = &[
    "user",
    "assistant",
    "system",
    "progress",
    "summary",
    "file-history-snapshot",
    "queue-operation",
    "result",
];

/// Returns the format of a log whose first bytes are `prefix`.
pub(crate) fn detect(prefix: &[u8], path: &Path) -> Result<Format, Error> {
    let text = String::from_utf8_lossy(prefix);
    let first = text.trim_start().chars().next();
    if first == Some('[') || (first == Some('{') && super::chat::is_wrapped(prefix)) {
        return Ok(Format::Chat);
    }
    let mut seen = 0;
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        // The last line of the prefix may be cut short; it is only looked at when the prefix is
        // the whole file.
        if lines.peek().is_none() && prefix.len() >= crate::read::SNIFF_LEN {
            break;
        }
        seen += 1;
        if seen > MAX_LINES {
            break;
        }
        if let Ok(serde_json::Value::Object(record)) = serde_json::from_str(line)
            && let Some(format) = classify(&record)
        {
            return Ok(format);
        }
    }
    // A first line longer than the prefix: decide by the keys it starts with.
    if seen == 0 {
        for (needle, format) in [
            ("\"vouch\"", Format::Vouch),
            ("\"payload\"", Format::Codex),
            ("\"sessionId\"", Format::ClaudeCode),
            ("\"parentUuid\"", Format::ClaudeCode),
            ("\"role\"", Format::Chat),
        ] {
            if text.contains(needle) {
                return Ok(format);
            }
        }
    }
    Err(Error::UnknownFormat {
        path: path.to_owned(),
        reason: "no line looks like a Claude Code, Codex, chat-message or vouch log".into(),
    })
}

fn classify(record: &serde_json::Map<String, serde_json::Value>) -> Option<Format> {
    let has = |key: &str| record.contains_key(key);
    if has("vouch") {
        return Some(Format::Vouch);
    }
    if has("messages") && record.len() <= 4 {
        return Some(Format::Chat);
    }
    let kind = record.get("type").and_then(serde_json::Value::as_str);
    if let Some(kind) = kind {
        if CODEX_TYPES.contains(&kind) && (has("payload") || !has("role")) {
            return Some(Format::Codex);
        }
        let claude_keys = has("sessionId") || has("session_id") || has("parentUuid");
        if CLAUDE_TYPES.contains(&kind) && (claude_keys || has("message")) {
            return Some(Format::ClaudeCode);
        }
        if kind == "message" && has("role") {
            // A legacy Codex rollout line: a bare response item.
            return Some(Format::Codex);
        }
    }
    if has("instructions") && kind.is_none() && !has("role") {
        // The first line of a legacy Codex rollout: `{"id", "timestamp", "instructions"}`.
        return Some(Format::Codex);
    }
    if has("role") {
        return Some(Format::Chat);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> Option<Format> {
        detect(s.as_bytes(), Path::new("x")).ok()
    }

    #[test]
    fn detects_each_format() {
        assert_eq!(d(r#"{"vouch":1,"type":"session"}"#), Some(Format::Vouch));
        assert_eq!(
            d(
                "{\"type\":\"file-history-snapshot\",\"messageId\":\"m\"}\n{\"type\":\"user\",\"sessionId\":\"s\",\"message\":{}}"
            ),
            Some(Format::ClaudeCode)
        );
        assert_eq!(
            d(r#"{"type":"system","subtype":"init","session_id":"s"}"#),
            Some(Format::ClaudeCode)
        );
        assert_eq!(
            d(r#"{"type":"session_meta","payload":{}}"#),
            Some(Format::Codex)
        );
        assert_eq!(
            d(r#"{"type":"thread.started","thread_id":"t"}"#),
            Some(Format::Codex)
        );
        assert_eq!(
            d(r#"{"id":"x","timestamp":"t","instructions":null}"#),
            Some(Format::Codex)
        );
        assert_eq!(d(r#"{"role":"user","content":"hi"}"#), Some(Format::Chat));
        assert_eq!(d(r#"  [{"role":"user"}]"#), Some(Format::Chat));
        assert_eq!(
            d(r#"{"messages":[{"role":"user","content":"x"}]}"#),
            Some(Format::Chat)
        );
        assert_eq!(d(r#"{"hello":"world"}"#), None);
        assert_eq!(d("not json"), None);
    }
}
