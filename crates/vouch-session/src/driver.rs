//! The one line driver every format reader is fed by: the stream is cut into blocks of whole
//! lines, each block is split into lines in one place (line endings, blank lines, the torn last
//! line of a file still being written, invalid UTF-8), and each line goes either to a format's
//! stateful [`LineSink`] on this thread, or to a [`LineParser`] whose lines parse on worker
//! threads and are applied here in their original order. Serial parsing is the parallel path
//! with one worker: the same blocks, the same splitting, the same handling of bad lines.
//!
//! Parsing (JSON decoding) is nearly all of the work of reading a large log and needs no state
//! but the line, so it spreads over cores; applying (linking results to calls, merging split
//! records) is cheap and keeps its order.

use std::collections::BTreeMap;
use std::io::{self, Read};
use std::sync::mpsc;

use crate::error::{Diagnostic, DiagnosticKind, Error};
use crate::source::{Input, ReadOptions};

/// Bytes read per block (a longer line makes a longer block). The first block is small, so
/// that small logs cost small buffers.
const FIRST_BLOCK: usize = 16 << 10;
const BLOCK: usize = 512 << 10;

/// Blocks read ahead beyond one per worker: with one, a worker waited now and then while this
/// thread waited for the oldest block (two: 8 % less wall on the 394 MB log, 0.8 MiB more).
const SPARE_BLOCKS: usize = 2;

/// Why a single line could not be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LineError {
    /// What was wrong.
    pub(crate) reason: String,
    /// The 1-based column, when known.
    pub(crate) column: Option<u64>,
}

impl LineError {
    /// Returns a line error for a shape problem.
    pub(crate) fn shape(reason: impl Into<String>) -> LineError {
        LineError {
            reason: reason.into(),
            column: None,
        }
    }
}

impl LineError {
    /// Returns the line error for a JSON error on the whole line.
    pub(crate) fn json(e: &serde_json::Error) -> LineError {
        let kind = if e.is_syntax() || e.is_eof() {
            "not JSON"
        } else {
            "unexpected shape"
        };
        LineError {
            reason: format!("{kind}: {}", bare_reason(e)),
            column: (e.column() > 0).then(|| e.column() as u64),
        }
    }

    /// Returns an error unless `line` holds a JSON object: every line-oriented format is one
    /// object per line, and serde would otherwise read an array as a struct's fields.
    pub(crate) fn expect_object(line: &str) -> Result<(), LineError> {
        if line.trim_start().starts_with('{') {
            return Ok(());
        }
        // A line that is not JSON is reported as such; JSON of another kind is a shape error.
        serde_json::from_str::<serde::de::IgnoredAny>(line).map_err(|e| LineError::json(&e))?;
        Err(LineError::shape(
            "unexpected shape: a line must hold a JSON object",
        ))
    }

    /// Returns the line error for a JSON error inside the value under `key`.
    pub(crate) fn nested(key: &str, e: &serde_json::Error) -> LineError {
        LineError {
            reason: format!("unexpected shape in `{key}`: {}", bare_reason(e)),
            column: None,
        }
    }
}

impl From<serde_json::Error> for LineError {
    fn from(e: serde_json::Error) -> LineError {
        LineError::json(&e)
    }
}

/// Returns serde_json's message without the " at line L column C" it appends.
fn bare_reason(e: &serde_json::Error) -> String {
    let reason = e.to_string();
    match reason.rfind(" at line ") {
        Some(i) => reason[..i].to_owned(),
        None => reason,
    }
}

/// A format reader that takes one line at a time, in order, on the reading thread.
pub(crate) trait LineSink {
    /// Takes one non-blank line; `offset` is its position in the stream.
    fn line(&mut self, text: &str, number: u64, offset: u64) -> Result<(), LineError>;
}

/// A format whose lines parse independently of each other.
pub(crate) trait LineParser: Sync {
    /// What one line parses into.
    type Item: Send;
    /// State a worker keeps across the lines of one block.
    type Scratch: Default;

    /// Parses one non-blank line that starts `offset` bytes into the stream.
    fn parse(
        &self,
        scratch: &mut Self::Scratch,
        text: &str,
        offset: u64,
    ) -> Result<Self::Item, LineError>;
}

/// A run of whole lines.
struct Block {
    index: usize,
    offset: u64,
    /// A buffer whose first `len` bytes are the block's (buffers keep their length between
    /// blocks, so that reading into one never fills it with zeros first).
    bytes: Vec<u8>,
    len: usize,
    /// False when the block is the end of the stream and its last line has no newline.
    terminated: bool,
}

/// One line of a block.
struct RawLine<'b> {
    /// The line's bytes, without `\n` or `\r\n`.
    bytes: &'b [u8],
    /// The line's number within its block, from 0.
    number: u64,
    /// Its offset in the stream.
    offset: u64,
    /// False for a last line with no newline: possibly torn.
    terminated: bool,
}

/// Splits a block into its lines, blank ones included; returns them and the block's line count
/// through `each`.
fn split(block: &Block, mut each: impl FnMut(RawLine<'_>)) -> u64 {
    let bytes = block.text();
    let mut start = 0;
    let mut number = 0;
    while start < bytes.len() {
        let (end, next, terminated) = match memchr::memchr(b'\n', &bytes[start..]) {
            Some(i) => (start + i, start + i + 1, true),
            None => (bytes.len(), bytes.len(), block.terminated),
        };
        let mut line = &bytes[start..end];
        if terminated && line.last() == Some(&b'\r') {
            line = &line[..line.len() - 1];
        }
        each(RawLine {
            bytes: line,
            number,
            offset: block.offset + start as u64,
            terminated,
        });
        start = next;
        number += 1;
    }
    number
}

/// Why a line could not be used.
enum Fail {
    Bad(LineError),
    InvalidUtf8,
}

/// Returns the text of a non-blank line, `None` for a blank one.
fn text_of<'b>(line: &RawLine<'b>) -> Option<Result<&'b str, Fail>> {
    if line.bytes.iter().all(u8::is_ascii_whitespace) {
        return None;
    }
    // Every byte of a log passes here: a vector check is several times std's.
    Some(simdutf8::basic::from_utf8(line.bytes).map_err(|_| Fail::InvalidUtf8))
}

/// Records what became of line `number`: nothing when it was used, else a skipped line (or,
/// for invalid UTF-8 inside the file, an error: the file is not a text log).
fn settle(
    result: Result<(), Fail>,
    number: u64,
    terminated: bool,
    diagnostics: &mut Diagnostics<'_>,
) -> Result<(), Error> {
    diagnostics.saw_line();
    let e = match result {
        Ok(()) => return Ok(()),
        Err(Fail::Bad(e)) => e,
        Err(Fail::InvalidUtf8) if !terminated => LineError::shape("not valid UTF-8"),
        Err(Fail::InvalidUtf8) => return Err(diagnostics.invalid_utf8(number)),
    };
    diagnostics.bad_line(number, terminated, e)
}

/// Feeds every non-blank line of `reader` to `sink`, in order; returns the skipped lines.
pub(crate) fn drive(
    mut reader: impl Read,
    input: &Input<'_>,
    options: &ReadOptions,
    sink: &mut impl LineSink,
) -> Result<Vec<Diagnostic>, Error> {
    let mut diagnostics = Diagnostics::new(input, options);
    let mut blocks = BlockReader::new(&mut reader, input);
    let mut first_line = input.start.line;
    let mut buffer = Vec::new();
    while let Some(block) = blocks.next_block(buffer)? {
        let mut failed = Ok(());
        let count = split(&block, |line| {
            if failed.is_err() {
                return;
            }
            let Some(text) = text_of(&line) else { return };
            let number = first_line + line.number;
            let result = text.and_then(|t| sink.line(t, number, line.offset).map_err(Fail::Bad));
            failed = settle(result, number, line.terminated, &mut diagnostics);
        });
        failed?;
        first_line += count;
        buffer = block.bytes;
    }
    diagnostics.finish()
}

/// One parsed line.
struct Parsed<T> {
    /// The line's number within its block, from 0.
    number: u64,
    terminated: bool,
    result: Result<T, Fail>,
}

/// The parsed lines of a block, and its buffer for reuse.
struct Done<T> {
    index: usize,
    lines: Vec<Parsed<T>>,
    /// How many lines the block holds, blank ones included.
    line_count: u64,
    bytes: Vec<u8>,
}

/// Parses every non-blank line of `reader` with `parser` (in parallel when the stream is longer
/// than one block) and hands the results to `apply` in order. Returns the skipped lines.
pub(crate) fn drive_parallel<P: LineParser>(
    mut reader: impl Read,
    input: &Input<'_>,
    options: &ReadOptions,
    parser: &P,
    mut apply: impl FnMut(P::Item, u64) -> Result<(), LineError>,
) -> Result<Vec<Diagnostic>, Error> {
    let mut diagnostics = Diagnostics::new(input, options);
    let mut blocks = BlockReader::new(&mut reader, input);
    let mut first_line = input.start.line;
    let mut apply_block = |done: Done<P::Item>, diagnostics: &mut Diagnostics<'_>| {
        let base = first_line;
        first_line += done.line_count;
        apply_block(done, base, diagnostics, &mut apply)
    };
    let Some(first) = blocks.next_block(Vec::new())? else {
        return diagnostics.finish();
    };
    let workers = rayon::current_num_threads();
    if first.terminated && !blocks.at_end() && workers > 1 {
        tracing::debug!(workers, "parsing blocks in parallel");
        parallel(
            first,
            &mut blocks,
            parser,
            workers + SPARE_BLOCKS,
            &mut |done| apply_block(done, &mut diagnostics),
        )?;
    } else {
        let mut next = Some(first);
        let mut lines = Vec::new();
        while let Some(block) = next {
            let done = parse_block(parser, block, lines);
            let buffer;
            (buffer, lines) = apply_block(done, &mut diagnostics)?;
            next = blocks.next_block(buffer)?;
        }
    }
    diagnostics.finish()
}

/// Parses blocks on the worker pool while this thread reads them and applies what was parsed,
/// in order, keeping at most `ahead` blocks parsed or in parsing beyond the next to apply.
fn parallel<P: LineParser>(
    first: Block,
    blocks: &mut BlockReader<'_, impl Read>,
    parser: &P,
    ahead: usize,
    apply: &mut impl FnMut(Done<P::Item>) -> Result<Recycled<P::Item>, Error>,
) -> Result<(), Error> {
    // A parse that panicked sends `None`: the read stops with an error instead of waiting.
    let (done_tx, done_rx) = mpsc::channel::<Option<Done<P::Item>>>();
    rayon::in_place_scope(|scope| {
        let spawn = |block: Block, lines: Vec<Parsed<P::Item>>| {
            let tx = done_tx.clone();
            scope.spawn(move |_| {
                let done = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    parse_block(parser, block, lines)
                }));
                let _ = tx.send(done.ok());
            });
        };
        let mut pending: BTreeMap<usize, Done<P::Item>> = BTreeMap::new();
        let mut next = 0;
        let mut free: Vec<Recycled<P::Item>> = Vec::new();
        let mut take = |done: Option<Done<P::Item>>,
                        pending: &mut BTreeMap<usize, Done<P::Item>>,
                        free: &mut Vec<Recycled<P::Item>>,
                        next: &mut usize| {
            let done = done.ok_or_else(worker_gone)?;
            pending.insert(done.index, done);
            while let Some(done) = pending.remove(next) {
                free.push(apply(done)?);
                *next += 1;
            }
            Ok::<(), Error>(())
        };
        spawn(first, Vec::new());
        let mut sent = 1;
        loop {
            let (bytes, lines) = free.pop().unwrap_or_default();
            let Some(block) = blocks.next_block(bytes)? else {
                break;
            };
            spawn(block, lines);
            sent += 1;
            while let Ok(done) = done_rx.try_recv() {
                take(done, &mut pending, &mut free, &mut next)?;
            }
            while sent - next > ahead {
                let done = done_rx.recv().map_err(|_| worker_gone())?;
                take(done, &mut pending, &mut free, &mut next)?;
            }
        }
        while next < sent {
            let done = done_rx.recv().map_err(|_| worker_gone())?;
            take(done, &mut pending, &mut free, &mut next)?;
        }
        Ok(())
    })
}

fn worker_gone() -> Error {
    Error::Unavailable {
        reason: "a reading thread stopped unexpectedly".into(),
    }
}

/// Parses every non-blank line of a block into `lines` (an emptied list whose room is reused).
fn parse_block<P: LineParser>(
    parser: &P,
    block: Block,
    mut lines: Vec<Parsed<P::Item>>,
) -> Done<P::Item> {
    let mut scratch = P::Scratch::default();
    lines.clear();
    let line_count = split(&block, |line| {
        if let Some(text) = text_of(&line) {
            let result = text.and_then(|t| {
                parser
                    .parse(&mut scratch, t, line.offset)
                    .map_err(Fail::Bad)
            });
            lines.push(Parsed {
                number: line.number,
                terminated: line.terminated,
                result,
            });
        }
    });
    Done {
        index: block.index,
        lines,
        line_count,
        bytes: block.bytes,
    }
}

/// A block's buffer and its list of parsed lines, emptied for the next block: reusing them
/// spares growing a list of large items again for every block.
type Recycled<T> = (Vec<u8>, Vec<Parsed<T>>);

/// Applies a parsed block whose first line is line `base`; returns its buffers for reuse.
fn apply_block<T>(
    mut done: Done<T>,
    base: u64,
    diagnostics: &mut Diagnostics<'_>,
    apply: &mut impl FnMut(T, u64) -> Result<(), LineError>,
) -> Result<Recycled<T>, Error> {
    for line in done.lines.drain(..) {
        let number = line.number + base;
        let result = line
            .result
            .and_then(|item| apply(item, number).map_err(Fail::Bad));
        settle(result, number, line.terminated, diagnostics)?;
    }
    Ok((done.bytes, done.lines))
}

/// Cuts a stream into blocks of whole lines.
struct BlockReader<'r, R> {
    reader: &'r mut R,
    input: &'r Input<'r>,
    carry: Vec<u8>,
    offset: u64,
    index: usize,
    eof: bool,
    /// Bytes to read at once; doubles up to [`BLOCK`].
    block: usize,
}

impl<'r, R: Read> BlockReader<'r, R> {
    fn new(reader: &'r mut R, input: &'r Input<'r>) -> Self {
        BlockReader {
            reader,
            input,
            carry: Vec::new(),
            offset: input.start.offset,
            index: 0,
            eof: false,
            block: FIRST_BLOCK,
        }
    }

    fn at_end(&self) -> bool {
        self.eof && self.carry.is_empty()
    }

    /// Returns the next block, reading into `buffer`; `None` at the end of the stream.
    fn next_block(&mut self, mut buffer: Vec<u8>) -> Result<Option<Block>, Error> {
        let mut filled = self.carry.len();
        // Where the reads stop: a recycled buffer may be longer than a block.
        let mut end = filled + self.block;
        room(&mut buffer, end);
        buffer[..filled].copy_from_slice(&self.carry);
        self.carry.clear();
        loop {
            if filled >= BLOCK || self.eof {
                if let Some(last) = memchr::memrchr(b'\n', &buffer[..filled]) {
                    self.carry.extend_from_slice(&buffer[last + 1..filled]);
                    return Ok(Some(self.block(buffer, last + 1, true)));
                }
                if self.eof {
                    return Ok((filled > 0).then(|| self.block(buffer, filled, false)));
                }
            }
            if filled == end {
                // The first blocks growing to full size, or a line longer than a block.
                self.block = (self.block * 2).min(BLOCK);
                end = filled + self.block;
                room(&mut buffer, end);
            }
            match self.reader.read(&mut buffer[filled..end]) {
                Ok(0) => self.eof = true,
                Ok(n) => filled += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(Error::io(&self.input.display, e)),
            }
        }
    }

    fn block(&mut self, bytes: Vec<u8>, len: usize, terminated: bool) -> Block {
        let block = Block {
            index: self.index,
            offset: self.offset,
            bytes,
            len,
            terminated,
        };
        self.index += 1;
        self.offset += len as u64;
        block
    }
}

impl Block {
    /// Returns the block's bytes.
    fn text(&self) -> &[u8] {
        &self.bytes[..self.len]
    }
}

/// Makes `buffer` at least `len` bytes long; the bytes it gains are zeros, once per buffer
/// (one read into the buffer then takes a block at once, where reading onto the end of a list
/// takes several reads of growing size).
fn room(buffer: &mut Vec<u8>, len: usize) {
    if buffer.len() < len {
        buffer.resize(len, 0);
    }
}

/// The lines a read skipped, and whether it saw any line at all.
pub(crate) struct Diagnostics<'a> {
    input: &'a Input<'a>,
    strict: bool,
    list: Vec<Diagnostic>,
    any: bool,
}

impl<'a> Diagnostics<'a> {
    /// Returns an empty list for reading `input` with `options`.
    pub(crate) fn new(input: &'a Input<'a>, options: &ReadOptions) -> Self {
        Diagnostics {
            input,
            strict: options.strict,
            list: Vec::new(),
            any: false,
        }
    }

    /// Notes that a non-blank line was read.
    pub(crate) fn saw_line(&mut self) {
        self.any = true;
    }

    /// Returns the error for a line that is not UTF-8 (and not the torn end of the file).
    pub(crate) fn invalid_utf8(&self, line: u64) -> Error {
        Error::InvalidUtf8 {
            path: self.input.display.clone(),
            line,
        }
    }

    /// Records a line that could not be used; in strict mode a bad line is an error. An
    /// unterminated last line is the torn end of a file still being written: always skipped.
    pub(crate) fn bad_line(
        &mut self,
        line: u64,
        terminated: bool,
        e: LineError,
    ) -> Result<(), Error> {
        let torn = !terminated;
        let diagnostic = Diagnostic {
            path: Some(self.input.display.clone()),
            line,
            column: e.column,
            reason: if torn {
                format!(
                    "incomplete last line skipped (is the file still being written?): {}",
                    e.reason
                )
            } else {
                e.reason
            },
            kind: if torn {
                DiagnosticKind::TornLastLine
            } else {
                DiagnosticKind::BadLine
            },
        };
        if self.strict && !torn {
            return Err(Error::Bad(diagnostic));
        }
        self.list.push(diagnostic);
        Ok(())
    }

    /// Returns the skipped lines, or the error for a stream with no line at all.
    pub(crate) fn finish(self) -> Result<Vec<Diagnostic>, Error> {
        if self.any {
            Ok(self.list)
        } else {
            Err(Error::Empty {
                path: self.input.display.clone(),
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A line as the sink got it: text, number, offset.
    type Got = (String, u64, u64);

    /// A sink that keeps every line it is given.
    #[derive(Default)]
    struct Keep(Vec<Got>);

    impl LineSink for Keep {
        fn line(&mut self, text: &str, number: u64, offset: u64) -> Result<(), LineError> {
            if text.starts_with('!') {
                return Err(LineError::shape("refused"));
            }
            self.0.push((text.to_owned(), number, offset));
            Ok(())
        }
    }

    fn input() -> Input<'static> {
        Input {
            path: None,
            display: "log".into(),
            spill: false,
            start: crate::source::Start::default(),
        }
    }

    fn read(bytes: &[u8]) -> Result<(Vec<Got>, Vec<Diagnostic>), Error> {
        let mut keep = Keep::default();
        let diagnostics = drive(bytes, &input(), &ReadOptions::default(), &mut keep)?;
        Ok((keep.0, diagnostics))
    }

    #[test]
    fn splits_lf_and_crlf_skips_blank_lines_and_numbers_every_line() {
        let (lines, diagnostics) = read(b"a\r\nbb\n\n  \nccc").unwrap();
        assert_eq!(
            lines,
            vec![
                ("a".to_owned(), 1, 0),
                ("bb".to_owned(), 2, 3),
                ("ccc".to_owned(), 5, 10)
            ]
        );
        assert!(diagnostics.is_empty());
    }

    #[test]
    fn a_refused_line_is_skipped_and_a_torn_last_one_is_marked() {
        let (lines, diagnostics) = read(b"!x\nok\n!torn").unwrap();
        assert_eq!(lines, vec![("ok".to_owned(), 2, 3)]);
        let kinds: Vec<_> = diagnostics.iter().map(|d| (d.line, d.kind)).collect();
        assert_eq!(
            kinds,
            vec![
                (1, DiagnosticKind::BadLine),
                (3, DiagnosticKind::TornLastLine)
            ]
        );
    }

    #[test]
    fn invalid_utf8_inside_the_file_is_an_error_and_at_its_torn_end_a_skipped_line() {
        assert!(matches!(
            read(b"ok\n\xff\xfe\nmore\n"),
            Err(Error::InvalidUtf8 { line: 2, .. })
        ));
        let (_, diagnostics) = read(b"ok\n\xff\xfe").unwrap();
        assert_eq!(diagnostics[0].kind, DiagnosticKind::TornLastLine);
    }

    #[test]
    fn lines_longer_than_a_block_are_read_whole() {
        let mut bytes = vec![b'x'; 3 * BLOCK + 17];
        bytes.extend_from_slice(b"\ntail\n");
        let (lines, _) = read(&bytes).unwrap();
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0].0.len(), 3 * BLOCK + 17);
        assert_eq!(lines[1], ("tail".to_owned(), 2, 3 * BLOCK as u64 + 18));
    }

    #[test]
    fn a_stream_without_a_line_is_empty() {
        assert!(matches!(read(b"\n \n"), Err(Error::Empty { .. })));
    }

    proptest::proptest! {
        #[test]
        fn every_non_blank_line_arrives_once_at_its_offset(input in proptest::collection::vec(
            proptest::prop_oneof![
                proptest::prelude::Just(b'\n'),
                proptest::prelude::Just(b'a'),
                proptest::prelude::Just(b'\r'),
                proptest::prelude::Just(b' '),
            ],
            0..300,
        )) {
            let Ok((lines, _)) = read(&input) else {
                return Ok(());
            };
            for (text, _, offset) in &lines {
                let offset = usize::try_from(*offset).unwrap();
                proptest::prop_assert_eq!(&input[offset..offset + text.len()], text.as_bytes());
            }
            let expected = input
                .split(|&b| b == b'\n')
                .filter(|l| !l.iter().all(u8::is_ascii_whitespace))
                .count();
            proptest::prop_assert_eq!(lines.len(), expected);
        }
    }
}
