//! Walking an indexed line value by value. Every step checks what serde_json would: the
//! grammar between marks (only whitespace, or one number or literal where a value stands).

use std::borrow::Cow;

use super::{Declined, Index, Scan, check};

/// Containers deeper than this are left to serde_json (whose own limit is 128).
const MAX_DEPTH: usize = 100;

/// A position in an indexed line.
pub(crate) struct Cursor<'i, 'a, 's> {
    index: &'i Index<'a, 's>,
    pos: usize,
}

/// A scalar value: a number, `true`, `false` or `null`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Scalar<'a> {
    Null,
    Bool(bool),
    /// The number's text, checked against JSON's grammar.
    Number(&'a str),
}

/// The kind of the value at the cursor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    String,
    Object,
    Array,
    Scalar,
}

impl<'i, 'a, 's> Cursor<'i, 'a, 's> {
    /// Returns a cursor at the start of the line.
    pub(crate) fn new(index: &'i Index<'a, 's>) -> Self {
        Cursor { index, pos: 0 }
    }

    fn bytes(&self) -> &'a [u8] {
        self.index.text.as_bytes()
    }

    /// Steps over whitespace; returns the byte there.
    fn peek_byte(&mut self) -> Scan<u8> {
        let bytes = self.bytes();
        while let Some(&b) = bytes.get(self.pos) {
            if !matches!(b, b' ' | b'\t' | b'\n' | b'\r') {
                return Ok(b);
            }
            self.pos += 1;
        }
        Err(Declined)
    }

    /// Steps over `byte` (after whitespace), or fails.
    fn expect(&mut self, byte: u8) -> Scan<()> {
        check(self.peek_byte()? == byte)?;
        self.pos += 1;
        Ok(())
    }

    /// Returns the kind of the next value.
    pub(crate) fn kind(&mut self) -> Scan<Kind> {
        Ok(match self.peek_byte()? {
            b'"' => Kind::String,
            b'{' => Kind::Object,
            b'[' => Kind::Array,
            b'}' | b']' | b':' | b',' => return Err(Declined),
            _ => Kind::Scalar,
        })
    }

    /// Returns true when nothing but whitespace is left.
    pub(crate) fn at_end(&mut self) -> bool {
        self.peek_byte().is_err()
    }

    /// Reads a string's raw text, between its quotes, as it stands in the line.
    pub(crate) fn raw_string(&mut self) -> Scan<&'a str> {
        self.expect(b'"')?;
        let close = self.index.next_mark(self.pos).ok_or(Declined)?;
        check(self.bytes()[close] == b'"')?;
        let text = self.index.text.get(self.pos..close).ok_or(Declined)?;
        self.pos = close + 1;
        Ok(text)
    }

    /// Reads a string, decoded: borrowed from the line when it holds no escape.
    pub(crate) fn string(&mut self) -> Scan<Cow<'a, str>> {
        let start = self.pos;
        let raw = self.raw_string()?;
        if !self
            .index
            .has_backslash(self.pos - 1 - raw.len(), self.pos - 1)
        {
            return Ok(Cow::Borrowed(raw));
        }
        let literal = self
            .index
            .text
            .get(self.peek_start(start)..self.pos)
            .ok_or(Declined)?;
        serde_json::from_str::<String>(literal)
            .map(Cow::Owned)
            .map_err(|_| Declined)
    }

    /// Returns where the value that starts at or after `from` (after whitespace) starts.
    fn peek_start(&self, from: usize) -> usize {
        let bytes = self.bytes();
        let mut at = from;
        while matches!(bytes.get(at), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            at += 1;
        }
        at
    }

    /// Reads a number, `true`, `false` or `null`.
    pub(crate) fn scalar(&mut self) -> Scan<Scalar<'a>> {
        let start = self.peek_start(self.pos);
        let end = self.index.next_mark(start).unwrap_or(self.index.text.len());
        let text = self
            .index
            .text
            .get(start..end)
            .ok_or(Declined)?
            .trim_end_matches([' ', '\t', '\n', '\r']);
        let scalar = match text {
            "null" => Scalar::Null,
            "true" => Scalar::Bool(true),
            "false" => Scalar::Bool(false),
            _ if is_number(text.as_bytes()) => Scalar::Number(text),
            _ => return Err(Declined),
        };
        self.pos = start + text.len();
        Ok(scalar)
    }

    /// Reads `null` (true) or a value of another kind, which stays unread (false).
    pub(crate) fn null(&mut self) -> Scan<bool> {
        if self.kind()? != Kind::Scalar {
            return Ok(false);
        }
        let before = self.pos;
        if self.scalar()? == Scalar::Null {
            return Ok(true);
        }
        self.pos = before;
        Ok(false)
    }

    /// Steps over one value; returns its text (without the whitespace around it).
    pub(crate) fn skip(&mut self) -> Scan<&'a str> {
        let start = self.peek_start(self.pos);
        self.skip_at(0)?;
        self.index.text.get(start..self.pos).ok_or(Declined)
    }

    /// Steps over the value of `key`, a key of the object being read that the caller does not
    /// read; declines the line when the key holds an escape, since decoded it might be one the
    /// caller reads. (serde_json does not decode the keys of a value it steps over, so keys
    /// deeper down are taken as they are.)
    pub(crate) fn skip_other(&mut self, key: &str) -> Scan<()> {
        let start = key.as_ptr().addr() - self.index.text.as_ptr().addr();
        check(!self.index.has_backslash(start, start + key.len()))?;
        self.skip().map(drop)
    }

    fn skip_at(&mut self, depth: usize) -> Scan<()> {
        match self.kind()? {
            Kind::String => self.raw_string().map(drop),
            Kind::Scalar => self.scalar().map(drop),
            Kind::Object if depth < MAX_DEPTH => self.object(|c, _| c.skip_at(depth + 1)),
            Kind::Array if depth < MAX_DEPTH => self.array(|c| c.skip_at(depth + 1)),
            Kind::Object | Kind::Array => Err(Declined),
        }
    }

    /// Reads an object, handing each key, as it stands in the line, and the cursor at its value
    /// to `each`, which must read or skip the value. A key that equals one the caller reads
    /// holds no escape; the caller steps over the others with [`Cursor::skip_other`].
    pub(crate) fn object(
        &mut self,
        mut each: impl FnMut(&mut Self, &'a str) -> Scan<()>,
    ) -> Scan<()> {
        self.items(b'{', b'}', |c| {
            let key = c.raw_string()?;
            c.expect(b':')?;
            each(c, key)
        })
    }

    /// Reads an array, handing the cursor at each element to `each`, which must read or skip
    /// it.
    pub(crate) fn array(&mut self, each: impl FnMut(&mut Self) -> Scan<()>) -> Scan<()> {
        self.items(b'[', b']', each)
    }

    /// Reads `open`, items separated by commas (each read by `each`), and `close`.
    fn items(
        &mut self,
        open: u8,
        close: u8,
        mut each: impl FnMut(&mut Self) -> Scan<()>,
    ) -> Scan<()> {
        self.expect(open)?;
        if self.peek_byte()? == close {
            self.pos += 1;
            return Ok(());
        }
        loop {
            each(self)?;
            match self.peek_byte()? {
                b',' => self.pos += 1,
                b if b == close => {
                    self.pos += 1;
                    return Ok(());
                }
                _ => return Err(Declined),
            }
        }
    }
}

/// Returns true when `text` is a JSON number: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`.
pub(crate) fn is_number(text: &[u8]) -> bool {
    let digits = |s: &[u8]| s.iter().take_while(|b| b.is_ascii_digit()).count();
    let mut s = text.strip_prefix(b"-").unwrap_or(text);
    match s.first() {
        Some(b'0') => s = &s[1..],
        Some(b'1'..=b'9') => s = &s[digits(s)..],
        _ => return false,
    }
    if let Some(rest) = s.strip_prefix(b".") {
        let n = digits(rest);
        if n == 0 {
            return false;
        }
        s = &rest[n..];
    }
    if let Some(rest) = s.strip_prefix(b"e").or_else(|| s.strip_prefix(b"E")) {
        let rest = rest
            .strip_prefix(b"+")
            .or_else(|| rest.strip_prefix(b"-"))
            .unwrap_or(rest);
        let n = digits(rest);
        if n == 0 {
            return false;
        }
        s = &rest[n..];
    }
    s.is_empty()
}
