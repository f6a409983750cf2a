//! Parameter expectations: each a key path into the call's arguments (`edits.0.new_string`)
//! and a matcher of the value found there.

use std::borrow::Cow;
use std::fmt;

use serde_json::Value;
use vouch_session::{ToolCall, ToolKind};

use crate::assertions::matcher::Matcher;

/// One expected parameter.
#[derive(Debug, Clone)]
pub struct Param {
    /// The key path as written (`edits.0.new_string`).
    pub key: String,
    /// The matcher.
    pub matcher: Matcher,
}

/// Expected parameters: all must match.
#[derive(Debug, Clone, Default)]
pub struct Params(pub Vec<Param>);

impl Params {
    /// Returns true when every parameter of `call` matches.
    pub fn matches(&self, call: &ToolCall) -> bool {
        self.0
            .iter()
            .all(|p| value(call, &p.key).is_some_and(|v| p.matcher.matches(&v)))
    }

    /// Returns true when there is no expectation.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl fmt::Display for Params {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, p) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{} {}", p.key, p.matcher)?;
        }
        Ok(())
    }
}

/// Returns the value at `key` (a dotted path; numbers index lists) in the call's arguments, as
/// text (strings as they are, anything else as JSON). A shell call's `command` is the script
/// however the agent spells it (Codex's `["bash", "-lc", "…"]` gives `…`), and a file call's
/// `file_path` or `path` falls back to the path vouch reads from any agent's arguments, so one
/// test reads every agent's log.
pub fn value<'c>(call: &'c ToolCall, key: &str) -> Option<Cow<'c, str>> {
    if matches!(key, "command" | "cmd") && call.kind == ToolKind::Shell {
        // The script, however the agent spells it.
        if let Some(command) = call.command() {
            return Some(Cow::Borrowed(command));
        }
    }
    let mut at = call.args.value();
    let mut found = true;
    for segment in key.split('.') {
        let next = match at {
            Value::Object(map) => map.get(segment),
            Value::Array(items) => segment.parse::<usize>().ok().and_then(|i| items.get(i)),
            _ => None,
        };
        match next {
            Some(v) => at = v,
            None => {
                found = false;
                break;
            }
        }
    }
    if found {
        return Some(match at {
            Value::String(s) => Cow::Borrowed(s.as_str()),
            other => Cow::Owned(other.to_string()),
        });
    }
    match (key, call.kind) {
        ("file_path" | "path", ToolKind::ReadFile | ToolKind::WriteFile | ToolKind::PatchFile) => {
            call.touched_paths().first().map(|p| Cow::Borrowed(*p))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use vouch_session::Args;

    use super::*;

    fn call(kind: ToolKind, args: Value) -> ToolCall {
        ToolCall {
            call_id: "c".into(),
            name: "t".into(),
            kind,
            args: Args::from_value(args),
        }
    }

    #[test]
    fn dotted_paths_and_fallbacks() {
        let c = call(
            ToolKind::PatchFile,
            json!({"file_path": "/p/a.rs", "edits": [{"new_string": "x", "n": 3}]}),
        );
        assert_eq!(value(&c, "edits.0.new_string").as_deref(), Some("x"));
        assert_eq!(value(&c, "edits.0.n").as_deref(), Some("3"));
        assert_eq!(value(&c, "edits.1.new_string"), None);
        assert_eq!(value(&c, "path").as_deref(), Some("/p/a.rs"));
        let codex = call(
            ToolKind::Shell,
            json!({"command": ["bash", "-lc", "cargo test"]}),
        );
        assert_eq!(value(&codex, "command").as_deref(), Some("cargo test"));
        assert_eq!(value(&codex, "command.0").as_deref(), Some("bash"));
    }
}
