//! Splitting a byte stream into lines without copying them: large blocks are read, lines are
//! handed out as slices of the block, and a line longer than a block grows the buffer.

use std::io::{self, Read};

/// Bytes read at a time: small logs start small, large ones grow to the larger block.
const FIRST_BLOCK: usize = 16 << 10;
const BLOCK: usize = 1 << 20;

/// One line of a log, without its line ending.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Line<'a> {
    /// The line's bytes, without `\n` or `\r\n`.
    pub(crate) bytes: &'a [u8],
    /// The 1-based line number.
    pub(crate) number: u64,
    /// The offset of the line's first byte from the start of the stream.
    pub(crate) offset: u64,
    /// False for a last line that has no newline: possibly torn, if the file is still being
    /// written.
    pub(crate) terminated: bool,
}

/// Hands out the lines of a reader one at a time.
#[derive(Debug)]
pub(crate) struct LineReader<R> {
    inner: R,
    buf: Vec<u8>,
    /// Start of the unconsumed bytes in `buf`.
    start: usize,
    /// End of the valid bytes in `buf`.
    end: usize,
    /// Offset in the stream of `buf[0]`.
    base: u64,
    number: u64,
    eof: bool,
}

impl<R: Read> LineReader<R> {
    /// Returns a line reader over `inner`.
    #[cfg(test)]
    pub(crate) fn new(inner: R) -> LineReader<R> {
        LineReader::starting_at(inner, 0, 1)
    }

    /// Returns a line reader over `inner`, whose first byte is at `offset` of the whole stream
    /// and whose first line is line `line`.
    pub(crate) fn starting_at(inner: R, offset: u64, line: u64) -> LineReader<R> {
        LineReader {
            inner,
            buf: Vec::new(),
            start: 0,
            end: 0,
            base: offset,
            number: line.saturating_sub(1),
            eof: false,
        }
    }

    /// Returns the next line, or `None` at the end of the stream.
    pub(crate) fn next_line(&mut self) -> io::Result<Option<Line<'_>>> {
        let mut searched = self.start;
        loop {
            if let Some(pos) = memchr::memchr(b'\n', &self.buf[searched..self.end]) {
                let nl = searched + pos;
                return Ok(Some(self.take(nl, nl + 1, true)));
            }
            searched = self.end;
            if self.eof {
                if self.start == self.end {
                    return Ok(None);
                }
                let end = self.end;
                return Ok(Some(self.take(end, end, false)));
            }
            searched -= self.start;
            self.fill()?;
            searched += self.start;
        }
    }

    /// Consumes the bytes up to `next` and returns the line `start..line_end`.
    fn take(&mut self, line_end: usize, next: usize, terminated: bool) -> Line<'_> {
        let start = self.start;
        self.start = next;
        self.number += 1;
        let mut bytes = &self.buf[start..line_end];
        if terminated && bytes.last() == Some(&b'\r') {
            bytes = &bytes[..bytes.len() - 1];
        }
        Line {
            bytes,
            number: self.number,
            offset: self.base + start as u64,
            terminated,
        }
    }

    /// Moves the unconsumed bytes to the front and reads another block after them.
    fn fill(&mut self) -> io::Result<()> {
        if self.start > 0 {
            self.buf.copy_within(self.start..self.end, 0);
            self.base += self.start as u64;
            self.end -= self.start;
            self.start = 0;
        }
        let block = (self.buf.len() * 2).clamp(FIRST_BLOCK, BLOCK);
        if self.buf.len() < self.end + block {
            self.buf.resize(self.end + block, 0);
        }
        loop {
            match self.inner.read(&mut self.buf[self.end..]) {
                Ok(0) => {
                    self.eof = true;
                    return Ok(());
                }
                Ok(n) => {
                    self.end += n;
                    return Ok(());
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(input: &[u8]) -> Vec<(String, u64, u64, bool)> {
        let mut r = LineReader::new(input);
        let mut out = Vec::new();
        while let Some(l) = r.next_line().unwrap() {
            out.push((
                String::from_utf8_lossy(l.bytes).into_owned(),
                l.number,
                l.offset,
                l.terminated,
            ));
        }
        out
    }

    #[test]
    fn splits_lf_and_crlf_and_marks_an_unterminated_tail() {
        let got = lines(b"a\r\nbb\n\nccc");
        assert_eq!(
            got,
            vec![
                ("a".into(), 1, 0, true),
                ("bb".into(), 2, 3, true),
                (String::new(), 3, 6, true),
                ("ccc".into(), 4, 7, false),
            ]
        );
    }

    #[test]
    fn lines_longer_than_a_block_grow_the_buffer() {
        let mut input = vec![b'x'; 3 * BLOCK + 17];
        input.push(b'\n');
        input.extend_from_slice(b"tail\n");
        let got = lines(&input);
        assert_eq!(got.len(), 2);
        assert_eq!(got[0].0.len(), 3 * BLOCK + 17);
        assert_eq!(got[1], ("tail".into(), 2, 3 * BLOCK as u64 + 18, true));
    }

    #[test]
    fn empty_input_has_no_lines() {
        assert!(lines(b"").is_empty());
    }

    proptest::proptest! {
        #[test]
        fn rejoined_lines_give_back_the_input(input in proptest::collection::vec(
            proptest::prop_oneof![proptest::prelude::Just(b'\n'), proptest::prelude::Just(b'a'), proptest::prelude::Just(b'\r')], 0..200)) {
            let got = lines(&input);
            // Offsets point at each line's bytes, and every byte is in exactly one line or
            // line ending.
            for (text, _, offset, _) in &got {
                let offset = usize::try_from(*offset).unwrap();
                proptest::prop_assert_eq!(&input[offset..offset + text.len()], text.as_bytes());
            }
            let newlines = memchr::memchr_iter(b'\n', &input).count();
            let expected = newlines + usize::from(!input.is_empty() && input.last() != Some(&b'\n'));
            proptest::prop_assert_eq!(got.len(), expected);
        }
    }
}
