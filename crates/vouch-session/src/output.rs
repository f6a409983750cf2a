//! The text a tool returned: held in memory when short, as a preview plus a byte range into the
//! log file when long, so that reading a 350 MB log does not hold 350 MB of tool output.

use std::borrow::Cow;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use serde::Deserialize;

use crate::error::Error;

/// Outputs up to this many bytes are kept whole in memory.
pub const INLINE_LIMIT: usize = 512;

/// How many bytes of a long output are kept in memory as its preview.
pub const PREVIEW_LEN: usize = 64;

/// The text a tool call returned.
///
/// Short outputs are held whole. Long outputs read from a file are held as a preview of their
/// first [`PREVIEW_LEN`] bytes and the [`Span`] of the JSON value in the log that holds the full
/// text; [`Output::load`] (or [`crate::Session::output_text`]) reads it back.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Output {
    text: Box<str>,
    span: Packed,
}

/// An `Option<Span>` in sixteen bytes rather than twenty-four: a session holds one per result.
/// The length and encoding share a word (`len << 1 | encoding`); zero means no span (a JSON
/// value is never empty).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct Packed {
    offset: u64,
    len_encoding: u64,
}

impl Packed {
    const NONE: Packed = Packed {
        offset: 0,
        len_encoding: 0,
    };

    fn new(span: Option<Span>) -> Packed {
        match span {
            Some(span) if span.len > 0 && span.len < (1 << 63) => {
                let encoding = match span.encoding {
                    Encoding::JsonString => 0,
                    Encoding::ContentBlocks => 1,
                };
                Packed {
                    offset: span.offset,
                    len_encoding: span.len << 1 | encoding,
                }
            }
            _ => Packed::NONE,
        }
    }

    fn get(self) -> Option<Span> {
        (self.len_encoding != 0).then_some(Span {
            offset: self.offset,
            len: self.len_encoding >> 1,
            encoding: if self.len_encoding & 1 == 0 {
                Encoding::JsonString
            } else {
                Encoding::ContentBlocks
            },
        })
    }

    fn is_none(self) -> bool {
        self.len_encoding == 0
    }
}

/// A byte range of a JSON value inside a log file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    /// Offset of the value's first byte from the start of the file.
    pub offset: u64,
    /// Length of the value in bytes.
    pub len: u64,
    /// How the value's bytes turn into text.
    pub encoding: Encoding,
}

/// How the JSON value of a [`Span`] turns into text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    /// A JSON string literal.
    JsonString,
    /// A JSON string, or an array of content blocks whose `text` fields are joined by newlines
    /// (the shape of Claude's `tool_result.content` and of Codex's output items).
    ContentBlocks,
}

impl Encoding {
    /// Decodes a JSON value of this encoding into its text.
    pub fn decode(self, json: &str) -> Result<String, serde_json::Error> {
        match self {
            Encoding::JsonString => serde_json::from_str::<String>(json),
            Encoding::ContentBlocks => content_blocks_text(json),
        }
    }
}

/// Decodes a string or an array of `{type, text}` blocks into text. Blocks without text (images)
/// are skipped.
fn content_blocks_text(json: &str) -> Result<String, serde_json::Error> {
    #[derive(Deserialize)]
    struct Block<'a> {
        #[serde(borrow)]
        text: Option<Cow<'a, str>>,
    }
    let trimmed = json.trim_start();
    if trimmed.starts_with('[') {
        let blocks: Vec<Block<'_>> = serde_json::from_str(json)?;
        let mut out = String::new();
        for text in blocks.iter().filter_map(|b| b.text.as_deref()) {
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str(text);
        }
        Ok(out)
    } else if trimmed.starts_with("null") {
        Ok(String::new())
    } else {
        serde_json::from_str::<String>(json)
    }
}

impl Output {
    /// Returns an output held whole in memory.
    pub fn inline(text: impl Into<Box<str>>) -> Output {
        Output {
            text: text.into(),
            span: Packed::NONE,
        }
    }

    /// Returns an output for `text` that lives at `span` in the source file: whole when short,
    /// a preview plus the span when longer than [`INLINE_LIMIT`].
    pub fn spilled(text: &str, span: Span) -> Output {
        if text.len() <= INLINE_LIMIT {
            return Output::inline(text);
        }
        Output {
            text: preview_of(text).into(),
            span: Packed::new(Some(span)),
        }
    }

    /// Returns the output held in a JSON value of the log: decoded whole when short; when long
    /// and `span` is given, only its first bytes are decoded, the rest stays in the file.
    pub(crate) fn from_json(json: &str, span: Option<Span>) -> Result<Output, serde_json::Error> {
        if let (Some(span), true) = (span, json.starts_with('"')) {
            // Only as much of the literal is decoded as tells a short output (held whole) from
            // a long one (held as its preview): the rest of a long one stays in the file.
            let (mut prefix, whole) = if surely_longer(json, INLINE_LIMIT) {
                (decode_prefix(json, PREVIEW_LEN).0, false)
            } else {
                decode_prefix(json, INLINE_LIMIT + 1)
            };
            if whole && prefix.len() <= INLINE_LIMIT {
                return Ok(Output::inline(prefix));
            }
            prefix.truncate(preview_of(&prefix).len());
            return Ok(Output {
                text: prefix.into_boxed_str(),
                span: Packed::new(Some(span)),
            });
        }
        let text = Encoding::ContentBlocks.decode(json)?;
        Ok(match span {
            Some(span) => Output::spilled(&text, span),
            None => Output::inline(text),
        })
    }

    /// Returns an output made of a preview and the place of the full text.
    pub fn from_parts(preview: impl Into<Box<str>>, span: Option<Span>) -> Output {
        Output {
            text: preview.into(),
            span: Packed::new(span),
        }
    }

    /// Returns the full text when it is held in memory, `None` when only a preview is.
    pub fn text(&self) -> Option<&str> {
        self.span.is_none().then_some(&*self.text)
    }

    /// Returns the text held in memory: the whole output, or its first bytes for long outputs.
    pub fn preview(&self) -> &str {
        &self.text
    }

    /// Returns where the full text lives when it is not held in memory.
    pub fn span(&self) -> Option<Span> {
        self.span.get()
    }

    /// Returns true when the full text is held in memory.
    pub fn is_complete(&self) -> bool {
        self.span.is_none()
    }

    /// Returns true when the output is empty.
    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }

    /// Returns the full text, reading it from `source` (the log file the output was read from)
    /// when only a preview is held in memory.
    pub fn load(&self, source: Option<&Path>) -> Result<Cow<'_, str>, Error> {
        let Some(span) = self.span.get() else {
            return Ok(Cow::Borrowed(&self.text));
        };
        let Some(path) = source else {
            return Err(Error::Unavailable {
                reason: "the output was read from a stream that cannot be read again".into(),
            });
        };
        read_span(path, span).map(Cow::Owned)
    }
}

/// Reads and decodes the JSON value at `span` in the file at `path`.
pub(crate) fn read_span(path: &Path, span: Span) -> Result<String, Error> {
    let io = |source| Error::Io {
        path: path.to_owned(),
        source,
    };
    let changed = || Error::Unavailable {
        reason: format!("`{}` changed since it was read", path.display()),
    };
    let mut file = File::open(path).map_err(io)?;
    file.seek(SeekFrom::Start(span.offset)).map_err(io)?;
    let len = usize::try_from(span.len).map_err(|_| Error::Unavailable {
        reason: format!("a span of {} bytes does not fit in memory", span.len),
    })?;
    let mut buf = vec![0; len];
    file.read_exact(&mut buf).map_err(io)?;
    let json = std::str::from_utf8(&buf).map_err(|_| changed())?;
    span.encoding.decode(json).map_err(|_| changed())
}

/// Returns the first [`PREVIEW_LEN`] bytes of `text`, cut at a character boundary.
pub(crate) fn preview_of(text: &str) -> &str {
    if text.len() <= PREVIEW_LEN {
        return text;
    }
    let mut end = PREVIEW_LEN;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// Returns true when the JSON string literal `json` surely decodes to more than `limit` bytes of
/// text: each backslash starts an escape of at most six bytes that gives at least one byte, so
/// any stretch of the literal gives at least its length less five bytes a backslash in it.
/// Counting backslashes is far cheaper than decoding, and stops as soon as a stretch from the
/// start tells.
fn surely_longer(json: &str, limit: usize) -> bool {
    let inner = json.len().saturating_sub(2);
    if inner <= limit {
        return false;
    }
    if inner / 6 > limit {
        return true;
    }
    let body = json.as_bytes().get(1..).unwrap_or_default();
    let mut escapes = 0;
    // Counted 64 bytes at a time, a loop the compiler vectorises: a search per backslash would
    // start over every few bytes in a tool's output.
    for (k, chunk) in body.chunks(64).enumerate() {
        // The first `64 * k` bytes hold `escapes` backslashes.
        if (64 * k).saturating_sub(5 * escapes) > limit {
            return true;
        }
        // At most 64 a chunk: a byte counter, sixteen lanes to a vector.
        let n = chunk.iter().fold(0u8, |n, &b| n + u8::from(b == b'\\'));
        escapes += usize::from(n);
    }
    inner.saturating_sub(5 * escapes) > limit
}

/// Decodes the start of a JSON string literal (`json` starts with its opening quote and has
/// been validated as JSON) until at least `max` bytes of text are produced. Returns the text
/// and whether the whole string was decoded.
pub(crate) fn decode_prefix(json: &str, max: usize) -> (String, bool) {
    let bytes = json.as_bytes();
    let mut out = String::with_capacity(max + 4);
    let mut i = 1;
    loop {
        // Copy the run of plain characters up to the next quote or backslash, or up to `max`.
        let want = max.saturating_sub(out.len());
        let next = memchr::memchr2(b'"', b'\\', &bytes[i..]).map_or(bytes.len(), |n| i + n);
        if next - i >= want {
            let mut end = i + want;
            while !json.is_char_boundary(end) {
                end += 1;
            }
            out.push_str(&json[i..end]);
            if end < next || bytes.get(end) != Some(&b'"') {
                return (out, false);
            }
            return (out, true);
        }
        out.push_str(&json[i..next]);
        match bytes.get(next) {
            Some(b'\\') => {
                let (c, used) = escape(&bytes[next + 1..]);
                out.push(c);
                i = next + 1 + used;
            }
            Some(_) => return (out, true),
            None => return (out, false),
        }
    }
}

/// Decodes the escape after a backslash; returns the character and the bytes it used.
fn escape(rest: &[u8]) -> (char, usize) {
    let hex = |b: &[u8]| -> Option<u32> {
        let s = std::str::from_utf8(b.get(..4)?).ok()?;
        u32::from_str_radix(s, 16).ok()
    };
    match rest.first() {
        Some(b'n') => ('\n', 1),
        Some(b't') => ('\t', 1),
        Some(b'r') => ('\r', 1),
        Some(b'b') => ('\u{8}', 1),
        Some(b'f') => ('\u{c}', 1),
        Some(b'u') => {
            let Some(first) = hex(&rest[1..]) else {
                return ('\u{fffd}', 1);
            };
            if (0xD800..0xDC00).contains(&first)
                && rest.get(5..7) == Some(b"\\u")
                && let Some(second) = hex(&rest[7..]).filter(|s| (0xDC00..0xE000).contains(s))
            {
                let c = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00);
                return (char::from_u32(c).unwrap_or('\u{fffd}'), 11);
            }
            (char::from_u32(first).unwrap_or('\u{fffd}'), 5)
        }
        Some(&other) => (char::from(other), 1),
        None => ('\u{fffd}', 0),
    }
}

/// Returns the span of `raw` inside `line`, which starts `line_offset` bytes into the file.
///
/// `raw` must be a slice of `line` (a value deserialized by borrowing from it); when it is not,
/// `None`.
pub(crate) fn span_within(
    line: &str,
    line_offset: u64,
    raw: &str,
    encoding: Encoding,
) -> Option<Span> {
    let start = (raw.as_ptr() as usize).checked_sub(line.as_ptr() as usize)?;
    (start + raw.len() <= line.len()).then(|| Span {
        offset: line_offset + start as u64,
        len: raw.len() as u64,
        encoding,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::value::RawValue;

    #[test]
    fn literals_near_the_inline_limit_are_told_apart_exactly() {
        let span = Span {
            offset: 10,
            len: 0,
            encoding: Encoding::ContentBlocks,
        };
        for (text, inline) in [
            ("a".repeat(INLINE_LIMIT), true),
            ("a".repeat(INLINE_LIMIT + 1), false),
            ("\n".repeat(INLINE_LIMIT), true),
            ("\n".repeat(INLINE_LIMIT + 1), false),
            ("é".repeat(INLINE_LIMIT / 2), true),
        ] {
            let json = serde_json::to_string(&text).unwrap();
            let span = Span {
                len: json.len() as u64,
                ..span
            };
            let out = Output::from_json(&json, Some(span)).unwrap();
            assert_eq!(out.is_complete(), inline, "{} bytes", text.len());
            assert_eq!(out, Output::spilled(&text, span));
            assert_eq!(out.span().is_some(), !inline);
        }
        assert!(surely_longer(
            &format!("\"{}\"", "a".repeat(600)),
            INLINE_LIMIT
        ));
        assert!(!surely_longer(
            &format!("\"{}\"", "\\n".repeat(300)),
            INLINE_LIMIT
        ));
    }

    #[test]
    fn previews_cut_at_char_boundaries() {
        let text = "é".repeat(300);
        let p = preview_of(&text);
        assert!(p.len() <= PREVIEW_LEN);
        assert!(p.len() >= PREVIEW_LEN - 1);
    }

    #[test]
    fn content_blocks_join_text_and_skip_images() {
        let json = r#"[{"type":"text","text":"a"},{"type":"image","source":{}},{"type":"text","text":"b"}]"#;
        assert_eq!(Encoding::ContentBlocks.decode(json).unwrap(), "a\nb");
        assert_eq!(
            Encoding::ContentBlocks.decode(r#""plain""#).unwrap(),
            "plain"
        );
    }

    #[test]
    fn long_outputs_keep_a_preview_and_load_back() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log");
        let text = "x\n".repeat(1000);
        let json = serde_json::to_string(&text).unwrap();
        std::fs::write(&path, format!("prefix {json} suffix")).unwrap();
        let span = Span {
            offset: 7,
            len: json.len() as u64,
            encoding: Encoding::JsonString,
        };
        let raw: Box<RawValue> = serde_json::from_str(&json).unwrap();
        let out = Output::from_json(raw.get(), Some(span)).unwrap();
        assert!(!out.is_complete());
        assert_eq!(out.preview().len(), PREVIEW_LEN);
        assert_eq!(out.load(Some(&path)).unwrap(), text);
        assert!(out.load(None).is_err());
        assert_eq!(Output::spilled(&text, span), out);
    }

    #[test]
    fn prefix_decoding_handles_surrogate_pairs() {
        let (text, complete) = decode_prefix(r#""a\ud83d\ude00b\u00e9\"""#, 100);
        assert_eq!(text, "a😀bé\"");
        assert!(complete);
    }

    proptest! {
        #[test]
        fn prefix_decoding_agrees_with_serde(s in "\\PC*|[\"\\\\\n\t\u{1}é😀a]{0,600}", max in 1usize..700) {
            let json = serde_json::to_string(&s).unwrap();
            let (prefix, complete) = decode_prefix(&json, max);
            prop_assert!(s.starts_with(&prefix));
            prop_assert_eq!(complete, prefix.len() == s.len());
            prop_assert!(complete || prefix.len() >= max);
        }

        #[test]
        fn surely_longer_is_never_wrong(
            s in prop_oneof![
                "[\"\\\\\n\t\u{1}\u{7f}é😀a-z ]{0,900}",
                // Mostly six-byte escapes: the literal is six times its text.
                "[\u{1}\u{2}a]{0,900}",
            ],
            limit in 0usize..700,
        ) {
            let json = serde_json::to_string(&s).unwrap();
            prop_assert!(!surely_longer(&json, limit) || s.len() > limit);
        }
    }
}
