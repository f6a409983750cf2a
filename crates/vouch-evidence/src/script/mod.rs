//! A recorded shell command read as bash reads it: which programs it runs, and which of them
//! must have succeeded when the whole command exited 0 — the ones whose exit status is the
//! command's own. `npm test || true` runs `npm test` but exits 0 whatever it did; strict
//! evidence needs to tell that from `npm test`.
//!
//! The parse is brush-parser's (bash syntax: pipelines, `&&`/`||`, subshells, `[[ ]]`,
//! here-docs, `$'…'`). The walk over its tree lives in [`walk`]; how one simple command is
//! read (assignments, wrappers such as `env` and `timeout`, `bash -lc '…'`) in [`words`].

mod walk;
mod words;

use std::fmt;

/// The longest command text analysed; a longer one is unreadable (fail closed).
const MAX_LEN: usize = 256 * 1024;
/// The deepest bracket nesting analysed: the parser recurses per level.
const MAX_NESTING: usize = 64;
/// The most `((` (arithmetic commands, or subshells opened twice) analysed: the parser
/// backtracks exponentially over unclosed ones.
const MAX_DOUBLE_PARENS: usize = 6;
/// The most parentheses (or brackets) left unclosed that the parser is given: it backtracks
/// exponentially over them, and such a command is rarely what anyone meant.
const MAX_UNCLOSED_PARENS: usize = 3;
/// How many `bash -c '…'` layers are unwrapped.
const MAX_SHELL_DEPTH: usize = 8;

/// Programs that print their arguments.
pub(crate) const ECHOES: &[&str] = &["echo", "printf", "yes", "figlet", "banner"];

/// A shell command, analysed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Script {
    text: String,
    claims: Vec<Claim>,
    writes: Vec<String>,
    unreadable: Option<String>,
}

/// A program a script runs: what a report may claim it ran.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Claim {
    /// Its words, quotes removed, with leading variable assignments and transparent wrappers
    /// (`env`, `timeout 60`, `nice`, `command`, `exec`) dropped.
    pub words: Vec<String>,
    /// Why its exit status does not decide the script's (`` `|| true` runs when it fails``);
    /// `None` when it does: the script exiting 0 means it succeeded.
    pub masked: Option<String>,
    /// Whether it reads text the script itself holds on its standard input (a here-doc or a
    /// here-string).
    pub reads_inline_text: bool,
    /// Whether it runs inside another command's words (`$(…)`, `<(…)`): an input to that
    /// command, whose status is lost but does not stand for the script's.
    pub inner: bool,
}

impl Claim {
    /// Returns its words joined by single spaces (`cargo test --workspace`).
    pub fn text(&self) -> String {
        self.words.join(" ")
    }

    /// Returns the program's name without its directory (`echo` for `/bin/echo`).
    pub fn program(&self) -> &str {
        self.words
            .first()
            .map_or("", |w| w.rsplit('/').next().unwrap_or(w))
    }

    /// Returns its arguments.
    pub fn args(&self) -> &[String] {
        self.words.get(1..).unwrap_or_default()
    }

    /// Returns true when the program prints its own arguments (`echo`, `printf`): whatever
    /// command it names, it runs none.
    pub fn echoes(&self) -> bool {
        ECHOES.contains(&self.program())
    }
}

impl Script {
    /// Parses and analyses `text`. Never fails: a text that cannot be parsed is a script with a
    /// reason in [`Script::unreadable`] and no claims.
    pub fn parse(text: &str) -> Script {
        let ((claims, writes), unreadable) = match analyse(text) {
            Ok(walked) => (walked, None),
            Err(reason) => ((Vec::new(), Vec::new()), Some(reason)),
        };
        Script {
            text: text.to_owned(),
            claims,
            writes,
            unreadable,
        }
    }

    /// Returns the text as recorded.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Returns every program it runs, in order.
    pub fn claims(&self) -> &[Claim] {
        &self.claims
    }

    /// Returns the files it writes, as spelled: redirection targets (`> out.txt`), `tee`
    /// arguments, the destination of `cp`, `mv`, `install`, `ln`, `rsync`, and `dd of=`.
    pub fn writes(&self) -> &[String] {
        &self.writes
    }

    /// Returns why it could not be read, `None` when it could.
    pub fn unreadable(&self) -> Option<&str> {
        self.unreadable.as_deref()
    }

    /// Returns the programs that must have succeeded when the script exited 0.
    pub fn guaranteed(&self) -> impl Iterator<Item = &Claim> {
        self.claims.iter().filter(|c| c.masked.is_none())
    }

    /// Returns the first program whose status the script masks, `None` when none is; the
    /// inputs computed inside other commands' words (`$(…)`) aside.
    pub fn first_masked(&self) -> Option<&Claim> {
        self.claims.iter().find(|c| c.masked.is_some() && !c.inner)
    }

    /// Returns true when the script runs something and its exit status is that of every
    /// program it runs: it could be read, and nothing in it is masked (inputs computed inside
    /// other commands' words aside).
    pub fn status_is_own(&self) -> bool {
        self.unreadable.is_none()
            && self.claims.iter().any(|c| !c.inner)
            && self.first_masked().is_none()
    }

    /// Returns true when this script, having exited 0, shows that every program `reported`
    /// runs succeeded: `reported` runs something, and each of its programs is one this script
    /// runs with its status unmasked (same words; `cd`, assignments and wrappers aside).
    pub fn backs(&self, reported: &Script) -> bool {
        !reported.claims.is_empty()
            && reported
                .claims
                .iter()
                .all(|r| self.guaranteed().any(|c| c.words == r.words))
    }
}

impl fmt::Display for Script {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// Parses `text` and walks it.
fn analyse(text: &str) -> Result<(Vec<Claim>, Vec<String>), String> {
    Ok(walk::program(&analyse_nested(text, 0)?, 0))
}

/// Parses `text`, a script `depth` layers of `bash -c` deep, within the limits vouch reads.
fn analyse_nested(text: &str, depth: usize) -> Result<brush_parser::ast::Program, String> {
    if text.len() > MAX_LEN {
        return Err(format!(
            "it is longer than {} KiB, more than vouch reads",
            MAX_LEN / 1024
        ));
    }
    if nesting(text) > MAX_NESTING {
        return Err(format!(
            "it nests brackets more than {MAX_NESTING} deep, more than vouch reads"
        ));
    }
    if let Some(at) = odd_here_doc(text) {
        return Err(format!(
            "its here-doc at byte {at} has no plain delimiter after `<<` (a name, bare or quoted)"
        ));
    }
    if unclosed_parens(text) > MAX_UNCLOSED_PARENS {
        return Err(format!(
            "it leaves more than {MAX_UNCLOSED_PARENS} parentheses or brackets unclosed"
        ));
    }
    if double_parens(text) > MAX_DOUBLE_PARENS {
        return Err(format!(
            "it opens `((` more than {MAX_DOUBLE_PARENS} times, more than vouch reads"
        ));
    }
    if depth > MAX_SHELL_DEPTH {
        return Err(format!(
            "it wraps shells in shells more than {MAX_SHELL_DEPTH} deep"
        ));
    }
    if let Some(number) = huge_descriptor(text) {
        return Err(format!(
            "it redirects a file descriptor numbered {number}, more than bash allows"
        ));
    }
    // Windows line endings are line endings; a carriage return anywhere else made the
    // parser's here-doc reader loop without end under fuzzing.
    let text = text.replace("\r\n", "\n");
    if text.contains('\r') {
        return Err("it holds a carriage return outside a line ending".to_owned());
    }
    // The parser is another crate's: should it panic on an input nobody foresaw, the command
    // is unreadable (fail closed) rather than the gate crashing.
    std::panic::catch_unwind(|| {
        let options = brush_parser::ParserOptions::default();
        let mut parser =
            brush_parser::Parser::new(std::io::BufReader::new(text.as_bytes()), &options);
        parser.parse_program()
    })
    .map_err(|_| "bash's grammar as vouch reads it fails on it".to_owned())?
    .map_err(|e| format!("bash cannot parse it ({e})"))
}

/// Returns a run of digits right before a redirection that no file descriptor can have (the
/// parser cannot hold it), `None` when there is none.
fn huge_descriptor(text: &str) -> Option<&str> {
    let bytes = text.as_bytes();
    let mut start = None;
    for (i, &b) in bytes.iter().enumerate() {
        if b.is_ascii_digit() {
            start.get_or_insert(i);
            continue;
        }
        if let Some(s) = start.take()
            && (b == b'<' || b == b'>')
            && i - s >= 10
        {
            return text.get(s..i);
        }
    }
    None
}

/// Returns where a here-doc's `<<` (or `<<-`) is followed by anything but a plain delimiter —
/// a name, bare or quoted (`EOF`, `'EOF'`, `"EOF"`, `\EOF`) — `<<<` (a here-string) aside.
/// Others are rare in commands and made the parser allocate without end under fuzzing.
fn odd_here_doc(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let is_name = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut i = 0;
    while i + 1 < bytes.len() {
        if !(bytes[i] == b'<' && bytes[i + 1] == b'<') {
            i += 1;
            continue;
        }
        if bytes.get(i + 2) == Some(&b'<') {
            i += 3;
            continue;
        }
        let mut j = i + 2;
        if bytes.get(j) == Some(&b'-') {
            j += 1;
        }
        while matches!(bytes.get(j), Some(b' ' | b'\t')) {
            j += 1;
        }
        let quote = match bytes.get(j) {
            Some(&q @ (b'\'' | b'"')) => Some(q),
            Some(b'\\') => {
                j += 1;
                None
            }
            _ => None,
        };
        if quote.is_some() {
            j += 1;
        }
        let start = j;
        while bytes.get(j).copied().is_some_and(is_name) {
            j += 1;
        }
        if j == start {
            return Some(i);
        }
        if let Some(q) = quote {
            if bytes.get(j) != Some(&q) {
                return Some(i);
            }
            j += 1;
        }
        i = j;
    }
    None
}

/// Returns how many `(` or `[` (whichever more) are still open at the end of `text`, quoted
/// text and comments aside (a `)` with none open, as in a `case` pattern, closes nothing).
fn unclosed_parens(text: &str) -> usize {
    let mut open = 0usize;
    let mut brackets = 0usize;
    let mut chars = text.chars();
    let mut at_word_start = true;
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                chars.next();
            }
            '\'' => {
                for q in chars.by_ref() {
                    if q == '\'' {
                        break;
                    }
                }
            }
            '"' => {
                while let Some(q) = chars.next() {
                    match q {
                        '\\' => {
                            chars.next();
                        }
                        '"' => break,
                        _ => {}
                    }
                }
            }
            '#' if at_word_start => {
                for q in chars.by_ref() {
                    if q == '\n' {
                        break;
                    }
                }
            }
            '(' => open += 1,
            ')' => open = open.saturating_sub(1),
            '[' => brackets += 1,
            ']' => brackets = brackets.saturating_sub(1),
            _ => {}
        }
        at_word_start = c.is_whitespace() || matches!(c, ';' | '&' | '|' | '(' | ')');
    }
    open.max(brackets)
}

/// Returns how many `((` open in `text`, `$((` (arithmetic expansion) aside.
fn double_parens(text: &str) -> usize {
    let bytes = text.as_bytes();
    let mut count = 0;
    let mut i = 0;
    while i + 1 < bytes.len() {
        if bytes[i] == b'(' && bytes[i + 1] == b'(' && (i == 0 || bytes[i - 1] != b'$') {
            count += 1;
            i += 2;
        } else {
            i += 1;
        }
    }
    count
}

/// Returns the deepest nesting of brackets in `text`, quotes ignored (an over-estimate, which
/// is the safe side of a limit).
fn nesting(text: &str) -> usize {
    let (mut depth, mut max) = (0usize, 0usize);
    for b in text.bytes() {
        match b {
            b'(' | b'{' | b'[' | b'`' => {
                depth += 1;
                max = max.max(depth);
            }
            b')' | b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    max
}

#[cfg(test)]
mod tests;
