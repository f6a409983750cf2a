//! Detecting a log's format from the first lines of its content, by asking each format's
//! descriptor in the registry's order: a whole-document test, then each line against every
//! format's sure test before any weak one, then the keys of a first line too long to parse.

use std::path::Path;

use crate::error::Error;
use crate::readers::descriptor::{Descriptor, Match};
use crate::readers::registry::{self, DESCRIPTORS};
use crate::session::Format;
use crate::source::SNIFF_LEN;

/// How many lines of the prefix are looked at before giving up.
const MAX_LINES: usize = 64;

/// Returns the format of a log whose first bytes are `prefix`.
pub(crate) fn detect(prefix: &[u8], path: &Path) -> Result<Format, Error> {
    if let Some(d) = DESCRIPTORS.iter().find(|d| (d.sniff.document)(prefix)) {
        return Ok(d.format);
    }
    let text = String::from_utf8_lossy(prefix);
    let mut seen = 0;
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        // The last line of the prefix may be cut short; it is only looked at when the prefix is
        // the whole file.
        if lines.peek().is_none() && prefix.len() >= SNIFF_LEN {
            break;
        }
        seen += 1;
        if seen > MAX_LINES {
            break;
        }
        if let Ok(serde_json::Value::Object(record)) = serde_json::from_str(line)
            && let Some(format) = best(|d| (d.sniff.record)(&record))
        {
            return Ok(format);
        }
    }
    // A first line longer than the prefix: decide by the keys it holds.
    if seen == 0
        && let Some(format) = best(|d| {
            d.sniff
                .keys
                .iter()
                .filter(|(key, _)| text.contains(key))
                .map(|&(_, m)| m)
                .max()
                .unwrap_or(Match::No)
        })
    {
        return Ok(format);
    }
    let mut labels: Vec<(Format, &str)> = DESCRIPTORS.iter().map(|d| (d.format, d.label)).collect();
    labels.sort_by_key(|(f, _)| Format::ALL.iter().position(|a| a == f));
    let labels: Vec<&str> = labels.into_iter().map(|(_, l)| l).collect();
    Err(Error::UnknownFormat {
        path: path.to_owned(),
        reason: format!("no line looks like {}", any_of(&labels)),
    })
}

/// Returns true when a log of `format` that starts with `prefix` may hold no events: it is one
/// document of the format, or every line of its prefix is surely a record of the format (a
/// Claude Code file of summaries alone, a Codex rollout that ended before its first message).
pub(crate) fn allows_empty(prefix: &[u8], format: Format) -> bool {
    let descriptor = registry::descriptor(format);
    if (descriptor.sniff.document)(prefix) {
        return true;
    }
    let text = String::from_utf8_lossy(prefix);
    let mut lines = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .peekable();
    let mut seen = 0;
    while let Some(line) = lines.next() {
        if lines.peek().is_none() && prefix.len() >= SNIFF_LEN {
            break;
        }
        match serde_json::from_str(line) {
            Ok(serde_json::Value::Object(record))
                if (descriptor.sniff.record)(&record) == Match::Sure =>
            {
                seen += 1;
            }
            _ => return false,
        }
    }
    seen > 0
}

/// Returns the first format (in registry order) sure of the line, else the first weakly so.
fn best(test: impl Fn(&Descriptor) -> Match) -> Option<Format> {
    let answers: Vec<(Format, Match)> = DESCRIPTORS.iter().map(|d| (d.format, test(d))).collect();
    [Match::Sure, Match::Weak]
        .into_iter()
        .find_map(|want| answers.iter().find(|(_, m)| *m == want).map(|(f, _)| *f))
}

/// Returns `a A, B, C or D log` for the labels given.
fn any_of(labels: &[&str]) -> String {
    match labels {
        [] => "a log".to_owned(),
        [one] => format!("a {one} log"),
        [rest @ .., last] => format!("a {} or {last} log", rest.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> Option<Format> {
        detect(s.as_bytes(), Path::new("x")).ok()
    }

    #[test]
    fn claude_code_files_of_summaries_or_snapshots_alone_are_claude_code() {
        assert_eq!(
            d(
                r#"{"type":"summary","summary":"Fixing the login bug","leafUuid":"0b5e2a1c-1f2e-4d3c-9b8a-7f6e5d4c3b2a"}"#
            ),
            Some(Format::ClaudeCode)
        );
        assert_eq!(
            d(
                r#"{"type":"file-history-snapshot","messageId":"3b1e","snapshot":{"messageId":"3b1e","trackedFileBackups":{}},"isSnapshotUpdate":false}"#
            ),
            Some(Format::ClaudeCode)
        );
        // A summary-like record without Claude Code's keys is not taken for one.
        assert_eq!(d(r#"{"type":"summary","summary":"x"}"#), None);
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
        assert_eq!(
            d(r#"{"type":"init","timestamp":"t","session_id":"s","model":"gemini-2.5-pro"}"#),
            Some(Format::Gemini),
            "a Gemini CLI stream is not taken for Codex or Claude Code"
        );
        assert_eq!(
            d(r#"{"type":"message","role":"user","content":"hi","timestamp":"t"}"#),
            Some(Format::Gemini)
        );
        assert_eq!(
            d(r#"{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}"#),
            Some(Format::Codex)
        );
        assert_eq!(
            d("{\n  \"sessionId\": \"s\",\n  \"projectHash\": \"p\",\n  \"messages\": []\n}"),
            Some(Format::Gemini)
        );
        assert_eq!(
            d(
                r#"{"sessionId":"s","projectHash":"p","startTime":"t","lastUpdated":"t","kind":"main"}"#
            ),
            Some(Format::Gemini)
        );
        assert_eq!(
            d(r#"{"info":{"id":"ses_1"},"messages":[{"info":{"role":"user"},"parts":[]}]}"#),
            Some(Format::Opencode)
        );
        assert_eq!(
            d(r#"{"role":"user","message":{"content":[{"type":"text","text":"hi"}]}}"#),
            Some(Format::Cursor),
            "a Cursor transcript is not taken for chat messages"
        );
        assert_eq!(d(r#"{"hello":"world"}"#), None);
        assert_eq!(d("not json"), None);
    }
}
