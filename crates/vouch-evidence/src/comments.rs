//! Source text with its comments blanked, by file type: what an assertion pattern should be
//! matched against, so that `// assert_eq!(sum, 4)` is not an assertion.
//!
//! Comments become spaces (newlines are kept, so line numbers hold); string literals are left
//! as they are, so `"http://…"` is not cut. Python's docstrings (triple-quoted strings) and
//! Ruby's `=begin`/`=end` blocks count as comments.

/// The comment syntaxes of a language.
#[derive(Debug, Clone, Copy, Default)]
struct Syntax {
    /// `//` line comments.
    slashes: bool,
    /// `/* … */` block comments.
    block: bool,
    /// `#` line comments.
    hash: bool,
    /// `--` line comments.
    dashes: bool,
    /// `'…'` is a string (not a character literal or a lifetime).
    single_quote_strings: bool,
    /// `` `…` `` is a string.
    backtick_strings: bool,
    /// Triple-quoted strings are docstrings, blanked like comments (Python).
    docstrings: bool,
}

fn syntax(path: &str) -> Syntax {
    let ext = path
        .rsplit('/')
        .next()
        .and_then(|name| name.rsplit_once('.'))
        .map(|(_, e)| e.to_ascii_lowercase())
        .unwrap_or_default();
    let c_like = Syntax {
        slashes: true,
        block: true,
        ..Syntax::default()
    };
    match ext.as_str() {
        "rs" | "c" | "h" | "cc" | "cpp" | "cxx" | "hpp" | "java" | "kt" | "kts" | "scala"
        | "cs" | "swift" | "dart" | "groovy" | "gradle" | "zig" | "v" | "sol" => c_like,
        "go" => Syntax {
            backtick_strings: true,
            ..c_like
        },
        "js" | "jsx" | "ts" | "tsx" | "mjs" | "cjs" | "mts" | "cts" | "vue" | "svelte" => Syntax {
            single_quote_strings: true,
            backtick_strings: true,
            ..c_like
        },
        "php" => Syntax {
            single_quote_strings: true,
            hash: true,
            ..c_like
        },
        "py" | "pyi" => Syntax {
            hash: true,
            single_quote_strings: true,
            docstrings: true,
            ..Syntax::default()
        },
        "rb" | "sh" | "bash" | "zsh" | "pl" | "pm" | "t" | "r" | "ex" | "exs" | "jl" | "nim"
        | "cr" | "coffee" | "cmake" | "yaml" | "yml" | "toml" | "ps1" => Syntax {
            hash: true,
            single_quote_strings: true,
            ..Syntax::default()
        },
        "sql" | "lua" | "hs" | "elm" | "ada" | "adb" => Syntax {
            dashes: true,
            single_quote_strings: true,
            block: ext == "sql",
            ..Syntax::default()
        },
        // An unknown language: every common line and block comment.
        _ => Syntax {
            slashes: true,
            block: true,
            hash: true,
            ..Syntax::default()
        },
    }
}

/// Returns `text` (the contents of the file at `path`) with its comments blanked.
pub fn strip_comments(path: &str, text: &str) -> String {
    let syntax = syntax(path);
    let ruby = path.to_ascii_lowercase().ends_with(".rb");
    let bytes = text.as_bytes();
    let mut out: Vec<u8> = Vec::with_capacity(bytes.len());
    let mut i = 0;
    let mut line_start = true;
    while i < bytes.len() {
        let rest = &bytes[i..];
        let b = bytes[i];
        // Ruby's =begin … =end block, at the start of a line.
        if ruby && line_start && rest.starts_with(b"=begin") {
            let end = find(bytes, i, b"\n=end").map_or(bytes.len(), |e| {
                let after = e + 5;
                find(bytes, after, b"\n").unwrap_or(bytes.len())
            });
            blank(&mut out, &bytes[i..end]);
            i = end;
            continue;
        }
        if syntax.docstrings && (rest.starts_with(b"\"\"\"") || rest.starts_with(b"'''")) {
            let quote = &rest[..3];
            let end = find(bytes, i + 3, quote).map_or(bytes.len(), |e| e + 3);
            blank(&mut out, &bytes[i..end]);
            i = end;
            line_start = false;
            continue;
        }
        let line_comment = (syntax.slashes && rest.starts_with(b"//"))
            || (syntax.hash && b == b'#')
            || (syntax.dashes && rest.starts_with(b"--"));
        if line_comment {
            let end = find(bytes, i, b"\n").unwrap_or(bytes.len());
            blank(&mut out, &bytes[i..end]);
            i = end;
            continue;
        }
        if syntax.block && rest.starts_with(b"/*") {
            let end = find(bytes, i + 2, b"*/").map_or(bytes.len(), |e| e + 2);
            blank(&mut out, &bytes[i..end]);
            i = end;
            continue;
        }
        let quote = b == b'"'
            || (b == b'\'' && syntax.single_quote_strings)
            || (b == b'`' && syntax.backtick_strings);
        if quote {
            let end = string_end(bytes, i, b);
            out.extend_from_slice(&bytes[i..end]);
            i = end;
            line_start = false;
            continue;
        }
        if b == b'\'' {
            // A character literal ('x', '\n', '\''), kept whole so that '"' opens no string.
            let end = char_literal_end(bytes, i).unwrap_or(i + 1);
            out.extend_from_slice(&bytes[i..end]);
            i = end;
            line_start = false;
            continue;
        }
        out.push(b);
        line_start = b == b'\n';
        i += 1;
    }
    // Only ASCII bytes were replaced, by ASCII, so the text is still UTF-8.
    String::from_utf8(out).unwrap_or_default()
}

/// Returns where `needle` starts in `bytes` at or after `from`.
fn find(bytes: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    bytes
        .get(from..)?
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|p| p + from)
}

/// Appends `span` with every character but newlines turned into spaces (one space per byte,
/// so multi-byte characters become several spaces and the result stays UTF-8).
fn blank(out: &mut Vec<u8>, span: &[u8]) {
    out.extend(span.iter().map(|&b| if b == b'\n' { b'\n' } else { b' ' }));
}

/// Returns the index after the string opened by `quote` at `start`: its closing quote, the
/// end of the line for an unclosed `"` or `'`, or the end of the text.
fn string_end(bytes: &[u8], start: usize, quote: u8) -> usize {
    let mut i = start + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'\n' if quote != b'`' => return i,
            c if c == quote => return i + 1,
            _ => i += 1,
        }
    }
    bytes.len()
}

/// Returns the index after a character literal at `start`, `None` when `'` opens none (a
/// lifetime).
fn char_literal_end(bytes: &[u8], start: usize) -> Option<usize> {
    let rest = bytes.get(start + 1..)?;
    if rest.first() == Some(&b'\\') {
        let close = rest.iter().skip(2).take(10).position(|&b| b == b'\'')?;
        return Some(start + 1 + 2 + close + 1);
    }
    // One character of up to four bytes, then the closing quote.
    (1..=4)
        .find(|&n| rest.get(n) == Some(&b'\'') && std::str::from_utf8(&rest[..n]).is_ok())
        .map(|n| start + 1 + n + 1)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn comments_are_blanked_by_language() {
        let rs = "fn t() {\n    // assert_eq!(1, 2);\n    let url = \"http://x\"; /* assert!(x) */\n    let c = '\"';\n}\n";
        let out = strip_comments("src/lib.rs", rs);
        assert!(!out.contains("assert"), "{out}");
        assert!(out.contains("\"http://x\""));
        assert_eq!(out.lines().count(), rs.lines().count());
        let py = "def test_x():\n    \"\"\"assert nothing\"\"\"\n    # assert f() == 1\n    print('# not a comment')\n";
        let out = strip_comments("tests/test_x.py", py);
        assert!(!out.contains("assert"), "{out}");
        assert!(out.contains("'# not a comment'"));
        let js = "test('a', () => {\n  // expect(f()).toBe(1)\n  const s = `//${x}`;\n});\n";
        let out = strip_comments("a.test.js", js);
        assert!(!out.contains("expect"), "{out}");
        assert!(out.contains("`//${x}`"));
        let sql = "-- assert\nSELECT '--' AS x;\n";
        assert_eq!(
            strip_comments("t.sql", sql),
            "         \nSELECT '--' AS x;\n"
        );
        let rb = "=begin\nexpect(1)\n=end\nit { expect(x).to eq 1 }\n";
        assert_eq!(
            strip_comments("spec/a_spec.rb", rb)
                .matches("expect")
                .count(),
            1
        );
    }

    proptest! {
        #[test]
        fn stripping_keeps_lines_and_never_panics(text in "\\PC{0,300}", ext in "(rs|py|js|sql|rb|txt|go)") {
            let out = strip_comments(&format!("f.{ext}"), &text);
            prop_assert_eq!(out.matches('\n').count(), text.matches('\n').count());
        }
    }
}
