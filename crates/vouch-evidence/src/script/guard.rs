//! The limits vouch puts on a command before the shell parser sees it.
//!
//! brush-parser reads bash faithfully but was not built for hostile input: under fuzzing it
//! panicked, backtracked exponentially and allocated without end on a few shapes of text. A
//! command outside these limits is unreadable — which never counts as evidence — and each
//! limit is far beyond what an honest command needs (decision D74).

/// The longest command text analysed.
const MAX_LEN: usize = 256 * 1024;
/// The deepest bracket nesting analysed: the parser recurses per level.
const MAX_NESTING: usize = 64;
/// The most `((` (arithmetic commands, or subshells opened twice) analysed: the parser
/// backtracks exponentially over unclosed ones.
const MAX_DOUBLE_PARENS: usize = 6;
/// The most parentheses (or brackets) left unclosed: the parser backtracks exponentially
/// over them.
const MAX_UNCLOSED: usize = 3;
/// How many `bash -c '…'` layers are unwrapped.
const MAX_SHELL_DEPTH: usize = 8;

/// Returns the text the parser may be given — `text` with `\r\n` line endings made `\n` —
/// or why it may not: a command `depth` layers of `bash -c` deep.
pub(super) fn admit(text: &str, depth: usize) -> Result<String, String> {
    if text.len() > MAX_LEN {
        return Err(format!(
            "it is longer than {} KiB, more than vouch reads",
            MAX_LEN / 1024
        ));
    }
    if depth > MAX_SHELL_DEPTH {
        return Err(format!(
            "it wraps shells in shells more than {MAX_SHELL_DEPTH} deep"
        ));
    }
    let text = text.replace("\r\n", "\n");
    if text.contains('\r') {
        return Err("it holds a carriage return outside a line ending".to_owned());
    }
    if nesting(&text) > MAX_NESTING {
        return Err(format!(
            "it nests brackets more than {MAX_NESTING} deep, more than vouch reads"
        ));
    }
    if double_parens(&text) > MAX_DOUBLE_PARENS {
        return Err(format!(
            "it opens `((` more than {MAX_DOUBLE_PARENS} times, more than vouch reads"
        ));
    }
    if let Some(number) = huge_descriptor(&text) {
        return Err(format!(
            "it redirects a file descriptor numbered {number}, more than bash allows"
        ));
    }
    Lexer::new(&text).run()?;
    Ok(text)
}

/// A pass over the text as bash's lexer sees it — quotes, comments, here-docs — that checks
/// every quote and here-doc ends, every here-doc has a plain delimiter, and few brackets are
/// left open.
struct Lexer<'t> {
    bytes: &'t [u8],
    at: usize,
    /// Here-docs whose bodies start at the next line: delimiter, and whether `<<-`.
    pending: Vec<(&'t [u8], bool)>,
    parens: usize,
    brackets: usize,
}

impl<'t> Lexer<'t> {
    fn new(text: &'t str) -> Lexer<'t> {
        Lexer {
            bytes: text.as_bytes(),
            at: 0,
            pending: Vec::new(),
            parens: 0,
            brackets: 0,
        }
    }

    fn run(mut self) -> Result<(), String> {
        self.lex(false)?;
        if let Some((delimiter, _)) = self.pending.first() {
            return Err(format!(
                "its here-doc `<<{}` has no body",
                String::from_utf8_lossy(delimiter)
            ));
        }
        if self.parens.max(self.brackets) > MAX_UNCLOSED {
            return Err(format!(
                "it leaves more than {MAX_UNCLOSED} parentheses or brackets unclosed"
            ));
        }
        Ok(())
    }

    /// Reads commands up to the end, or, `inside` a command substitution, up to the `)` that
    /// closes it.
    fn lex(&mut self, inside: bool) -> Result<(), String> {
        let start = self.at;
        let mut depth = 0usize;
        let mut word_start = true;
        while let Some(&b) = self.bytes.get(self.at) {
            self.at += 1;
            match b {
                b'\\' => self.at += 1,
                b'\'' => self.quoted(b'\'', false)?,
                b'"' => self.quoted(b'"', true)?,
                b'`' => self.quoted(b'`', true)?,
                b'$' if self.bytes.get(self.at) == Some(&b'\'') => {
                    self.at += 1;
                    self.quoted(b'\'', true)?;
                }
                b'#' if word_start => {
                    while self.bytes.get(self.at).is_some_and(|&c| c != b'\n') {
                        self.at += 1;
                    }
                }
                b'<' if self.bytes.get(self.at) == Some(&b'<') => self.here_doc()?,
                b'\n' => self.bodies()?,
                b'(' => {
                    depth += 1;
                    self.parens += 1;
                }
                b')' => {
                    if inside && depth == 0 {
                        return Ok(());
                    }
                    depth = depth.saturating_sub(1);
                    self.parens = self.parens.saturating_sub(1);
                }
                b'[' => self.brackets += 1,
                b']' => self.brackets = self.brackets.saturating_sub(1),
                _ => {}
            }
            word_start = b.is_ascii_whitespace() || matches!(b, b';' | b'&' | b'|' | b'(' | b')');
        }
        if inside {
            return Err(format!(
                "its command substitution opened at byte {} never closes",
                start.saturating_sub(2)
            ));
        }
        Ok(())
    }

    /// Skips a quoted text up to its closing `quote` (escapes honoured where `escapes`).
    fn quoted(&mut self, quote: u8, escapes: bool) -> Result<(), String> {
        let start = self.at - 1;
        while let Some(&c) = self.bytes.get(self.at) {
            self.at += 1;
            if escapes && c == b'\\' {
                self.at += 1;
            } else if c == quote {
                return Ok(());
            } else if quote == b'"'
                && c == b'$'
                && self.bytes.get(self.at) == Some(&b'(')
                && self.bytes.get(self.at + 1) != Some(&b'(')
            {
                // A command substitution inside double quotes is read as commands: its
                // here-docs and quotes are bash's to end, not the string's.
                self.at += 1;
                self.lex(true)?;
            }
        }
        Err(format!(
            "its quote `{}` opened at byte {start} never closes",
            char::from(quote)
        ))
    }

    /// Reads the delimiter after `<<` (the first `<` read): a name, bare or quoted.
    fn here_doc(&mut self) -> Result<(), String> {
        let start = self.at - 1;
        self.at += 1;
        if self.bytes.get(self.at) == Some(&b'<') {
            // `<<<`: a here-string, whose word the main loop reads.
            self.at += 1;
            return Ok(());
        }
        let strip_tabs = self.bytes.get(self.at) == Some(&b'-');
        if strip_tabs {
            self.at += 1;
        }
        while matches!(self.bytes.get(self.at), Some(b' ' | b'\t')) {
            self.at += 1;
        }
        let quote = match self.bytes.get(self.at) {
            Some(&q @ (b'\'' | b'"')) => {
                self.at += 1;
                Some(q)
            }
            Some(b'\\') => {
                self.at += 1;
                None
            }
            _ => None,
        };
        let name_start = self.at;
        while self
            .bytes
            .get(self.at)
            .is_some_and(|&c| c.is_ascii_alphanumeric() || c == b'_')
        {
            self.at += 1;
        }
        let name = &self.bytes[name_start..self.at];
        let closed = match quote {
            Some(q) if self.bytes.get(self.at) == Some(&q) => {
                self.at += 1;
                true
            }
            Some(_) => false,
            None => true,
        };
        if name.is_empty() || !closed {
            return Err(format!(
                "its here-doc at byte {start} has no plain delimiter after `<<` (a name, bare or quoted)"
            ));
        }
        self.pending.push((name, strip_tabs));
        Ok(())
    }

    /// At a line end: skips the bodies of the here-docs opened on the line.
    fn bodies(&mut self) -> Result<(), String> {
        for (delimiter, strip_tabs) in std::mem::take(&mut self.pending) {
            loop {
                let Some(&_) = self.bytes.get(self.at) else {
                    return Err(format!(
                        "its here-doc `<<{}` never ends",
                        String::from_utf8_lossy(delimiter)
                    ));
                };
                let end = self.bytes[self.at..]
                    .iter()
                    .position(|&c| c == b'\n')
                    .map_or(self.bytes.len(), |p| self.at + p);
                let mut line = &self.bytes[self.at..end];
                if strip_tabs {
                    while let [b'\t', rest @ ..] = line {
                        line = rest;
                    }
                }
                self.at = (end + 1).min(self.bytes.len());
                if line == delimiter {
                    break;
                }
                if end == self.bytes.len() {
                    return Err(format!(
                        "its here-doc `<<{}` never ends",
                        String::from_utf8_lossy(delimiter)
                    ));
                }
            }
        }
        Ok(())
    }
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
mod tests {
    use super::*;

    #[test]
    fn honest_commands_are_admitted() {
        for text in [
            "cargo test",
            "git commit -m \"$(cat <<'EOF'\nFix add: it's done\n\nEOF\n)\"",
            "cat <<-EOF > out.txt\n\tit's fine\n\tEOF\ncargo test",
            "python - <<PY\nprint('(')\nPY\npytest",
            "grep x <<< \"$y\" && echo $'it\\'s' # (((",
            "case $x in a) echo ok ;; esac",
            "cd app\r\ncargo test\r\n",
        ] {
            assert!(admit(text, 0).is_ok(), "{text}: {:?}", admit(text, 0));
        }
    }

    #[test]
    fn each_limit_says_why() {
        for (text, why) in [
            ("echo 'open", "never closes"),
            ("echo \"open", "never closes"),
            ("cat <<EOF\nbody", "never ends"),
            ("cat <<EOF", "no body"),
            ("cat << ;", "no plain delimiter"),
            ("cat <<'EOF\nx", "no plain delimiter"),
            ("((((((((((((((x", "((` more than"),
            ("a[#$1a[#$1a[#$1a[#$1", "unclosed"),
            ("t<<\r ", "carriage return"),
            ("\"$(cat <<\t$( x)\"", "no plain delimiter"),
            ("echo \"$(cat <<EOF\nx\n)\"", "never ends"),
            ("x 77777777777<> y", "descriptor"),
        ] {
            let err = admit(text, 0).expect_err(text);
            assert!(err.contains(why), "{text}: {err}");
        }
        assert!(admit("true", MAX_SHELL_DEPTH + 1).is_err());
    }
}
