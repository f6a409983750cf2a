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
/// however the agent spells it ([`script`]), and a file call's `file_path` or `path` falls back
/// to the path vouch reads from any agent's arguments, so one test reads every agent's log.
pub fn value<'c>(call: &'c ToolCall, key: &str) -> Option<Cow<'c, str>> {
    if matches!(key, "command" | "cmd")
        && call.kind == ToolKind::Shell
        && let Some(command) = call.command()
    {
        return Some(script(command));
    }
    // A top-level string is read from the arguments' text, which spares parsing them.
    if !key.contains('.')
        && let Some(s) = call.args.get_str(key)
    {
        return Some(Cow::Borrowed(s));
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

/// The shells whose `-c` wrapper [`script`] removes.
const SHELLS: &[&str] = &["sh", "bash", "zsh", "dash", "ksh"];

/// Returns the script a shell command runs, as a test compares it: a `bash -lc '<script>'`
/// wrapper (any of [`SHELLS`], by path too, with `-c` among its flags) is taken off and its
/// quoting undone, the ends are trimmed, and runs of blanks outside quotes become one space —
/// so Codex's `bash -lc 'npm  test'` and Claude Code's `npm test` read alike.
pub fn script(command: &str) -> Cow<'_, str> {
    let trimmed = command.trim();
    let inner = unwrap_shell(trimmed);
    let text = inner.as_deref().unwrap_or(trimmed);
    match collapse_blanks(text) {
        Some(collapsed) => Cow::Owned(collapsed),
        None if inner.is_some() => Cow::Owned(text.to_owned()),
        None => Cow::Borrowed(trimmed),
    }
}

/// Returns the script of `<shell> [-flags] -c '<script>'`, when `command` is exactly that.
fn unwrap_shell(command: &str) -> Option<String> {
    if !SHELLS.iter().any(|s| command.contains(s)) {
        return None;
    }
    let (program, mut rest) = command.split_once([' ', '\t'])?;
    let name = program.rsplit('/').next().unwrap_or(program);
    if !SHELLS.contains(&name) {
        return None;
    }
    let mut has_c = false;
    loop {
        rest = rest.trim_start();
        let Some(flags) = rest.strip_prefix('-') else {
            break;
        };
        let end = flags.find([' ', '\t'])?;
        let (flags, after) = flags.split_at(end);
        if flags.is_empty() || !flags.chars().all(|c| c.is_ascii_alphabetic()) {
            return None;
        }
        has_c |= flags.contains('c');
        rest = after;
    }
    if !has_c {
        return None;
    }
    let (word, after) = shell_word(rest)?;
    after.trim().is_empty().then_some(word)
}

/// Reads one shell word from the start of `text` (quotes undone), returning it and the rest;
/// `None` when a quote is left open.
fn shell_word(text: &str) -> Option<(String, &str)> {
    let mut word = String::new();
    let mut chars = text.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            ' ' | '\t' | '\n' => return Some((word, &text[i..])),
            '\'' => loop {
                match chars.next()? {
                    (_, '\'') => break,
                    (_, c) => word.push(c),
                }
            },
            '"' => loop {
                match chars.next()? {
                    (_, '"') => break,
                    (_, '\\') => match chars.next()? {
                        (_, c @ ('"' | '\\' | '$' | '`')) => word.push(c),
                        (_, '\n') => {}
                        (_, c) => {
                            word.push('\\');
                            word.push(c);
                        }
                    },
                    (_, c) => word.push(c),
                }
            },
            '\\' => match chars.next() {
                Some((_, '\n')) | None => {}
                Some((_, c)) => word.push(c),
            },
            c => word.push(c),
        }
    }
    Some((word, ""))
}

/// Returns `text` with runs of spaces and tabs outside quotes made one space, or `None` when
/// there are none to collapse.
fn collapse_blanks(text: &str) -> Option<String> {
    if !text.contains("  ") && !text.contains('\t') {
        return None;
    }
    let mut out = String::with_capacity(text.len());
    let mut quote: Option<char> = None;
    let mut escaped = false;
    let mut changed = false;
    let mut last_blank = false;
    for c in text.chars() {
        let blank = quote.is_none() && !escaped && (c == ' ' || c == '\t');
        if blank {
            if last_blank {
                changed = true;
                continue;
            }
            changed |= c == '\t';
            out.push(' ');
        } else {
            out.push(c);
            match (quote, c) {
                _ if escaped => escaped = false,
                (Some('\''), '\'') | (Some('"'), '"') => quote = None,
                (None, '\'' | '"') => quote = Some(c),
                (None | Some('"'), '\\') => escaped = true,
                _ => {}
            }
        }
        last_blank = blank;
    }
    changed.then_some(out)
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

    #[test]
    fn scripts_come_out_of_their_shell_wrappers_with_blanks_collapsed() {
        let cases = [
            (r"bash -lc 'cargo test'", "cargo test"),
            (r#"/bin/zsh -l -c "npm   test""#, "npm test"),
            (r"sh -c 'echo '\''hi'\'''", "echo 'hi'"),
            (r#"bash -lc "echo \"a  b\"""#, r#"echo "a  b""#),
            (
                "  npm   test\t -- --watch=false ",
                "npm test -- --watch=false",
            ),
            ("echo 'a   b'  c", "echo 'a   b' c"),
            ("bash script.sh", "bash script.sh"),
            ("bash -lc 'a' extra", "bash -lc 'a' extra"),
            ("bash -lc 'unterminated", "bash -lc 'unterminated"),
            ("python -c 'print(1)'", "python -c 'print(1)'"),
            ("", ""),
        ];
        for (command, expected) in cases {
            assert_eq!(script(command), expected, "{command}");
        }
    }

    proptest::proptest! {
        #[test]
        fn scripts_never_panic_and_their_blanks_are_settled(command in r#"[ a-z'"\\\t-]{0,40}"#) {
            let once = script(&command).into_owned();
            proptest::prop_assert_eq!(collapse_blanks(&once), None);
        }
    }
}
