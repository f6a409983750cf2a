//! Reading a log's lines on several threads: the stream is cut into blocks of whole lines,
//! worker threads parse each line of a block on their own, and the reading thread applies the
//! parsed lines in their original order.
//!
//! Parsing (JSON decoding) is nearly all of the work of reading a large log and needs no state
//! but the line, so it spreads over cores; applying (linking results to calls, merging split
//! records) is cheap and keeps its order.

use std::collections::BTreeMap;
use std::io::{self, Read};
use std::sync::Mutex;
use std::sync::mpsc;

use crate::error::{Diagnostic, Error};
use crate::read::{Diagnostics, Input, LineError, ReadOptions};

/// Bytes read per block (a longer line makes a longer block). The first block is small, so
/// that small logs cost small buffers.
const FIRST_BLOCK: usize = 16 << 10;
const BLOCK: usize = 1 << 20;

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
    bytes: Vec<u8>,
    /// False when the block is the end of the stream and its last line has no newline.
    terminated: bool,
}

/// Why a line could not be parsed.
enum Fail {
    Bad(LineError),
    InvalidUtf8,
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
    let workers = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .min(8);
    if first.terminated && !blocks.at_end() && workers > 1 {
        tracing::debug!(workers, "parsing blocks in parallel");
        parallel(first, &mut blocks, parser, workers, &mut |done| {
            apply_block(done, &mut diagnostics)
        })?;
    } else {
        let mut next = Some(first);
        while let Some(block) = next {
            let done = parse_block(parser, block);
            let buffer = apply_block(done, &mut diagnostics)?;
            next = blocks.next_block(buffer)?;
        }
    }
    diagnostics.finish()
}

/// Parses blocks on `workers` threads while this thread reads and applies.
fn parallel<P: LineParser>(
    first: Block,
    blocks: &mut BlockReader<'_, impl Read>,
    parser: &P,
    workers: usize,
    apply: &mut impl FnMut(Done<P::Item>) -> Result<Vec<u8>, Error>,
) -> Result<(), Error> {
    let (job_tx, job_rx) = mpsc::sync_channel::<Block>(1);
    let job_rx = Mutex::new(job_rx);
    let (done_tx, done_rx) = mpsc::channel::<Done<P::Item>>();
    std::thread::scope(|scope| {
        for _ in 0..workers {
            let done_tx = done_tx.clone();
            let job_rx = &job_rx;
            scope.spawn(move || {
                loop {
                    // A poisoned lock means another worker panicked; stop taking work.
                    let job = match job_rx.lock() {
                        Ok(rx) => rx.recv(),
                        Err(_) => return,
                    };
                    let Ok(block) = job else { return };
                    if done_tx.send(parse_block(parser, block)).is_err() {
                        return;
                    }
                }
            });
        }
        drop(done_tx);
        let mut pending: BTreeMap<usize, Done<P::Item>> = BTreeMap::new();
        let mut next_index = 0;
        let mut free: Vec<Vec<u8>> = Vec::new();
        let mut apply_ready = |pending: &mut BTreeMap<usize, Done<P::Item>>,
                               free: &mut Vec<Vec<u8>>,
                               next: &mut usize| {
            while let Some(done) = pending.remove(next) {
                free.push(apply(done)?);
                *next += 1;
            }
            Ok::<(), Error>(())
        };
        let mut sent = 1;
        let result = (|| {
            job_tx.send(first).map_err(|_| worker_gone())?;
            while let Some(block) = blocks.next_block(free.pop().unwrap_or_default())? {
                job_tx.send(block).map_err(|_| worker_gone())?;
                sent += 1;
                while let Ok(done) = done_rx.try_recv() {
                    pending.insert(done.index, done);
                }
                apply_ready(&mut pending, &mut free, &mut next_index)?;
            }
            Ok(())
        })();
        drop(job_tx);
        result?;
        while next_index < sent {
            let done = done_rx.recv().map_err(|_| worker_gone())?;
            pending.insert(done.index, done);
            apply_ready(&mut pending, &mut free, &mut next_index)?;
        }
        Ok(())
    })
}

fn worker_gone() -> Error {
    Error::Unavailable {
        reason: "a reading thread stopped unexpectedly".into(),
    }
}

/// Parses every line of a block.
fn parse_block<P: LineParser>(parser: &P, block: Block) -> Done<P::Item> {
    let mut scratch = P::Scratch::default();
    let mut lines = Vec::new();
    let bytes = &block.bytes;
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
        if !line.iter().all(u8::is_ascii_whitespace) {
            let result = match std::str::from_utf8(line) {
                Ok(text) => parser
                    .parse(&mut scratch, text, block.offset + start as u64)
                    .map_err(Fail::Bad),
                Err(_) => Err(Fail::InvalidUtf8),
            };
            lines.push(Parsed {
                number,
                terminated,
                result,
            });
        }
        start = next;
        number += 1;
    }
    Done {
        index: block.index,
        lines,
        line_count: number,
        bytes: block.bytes,
    }
}

/// Applies a parsed block whose first line is line `base`; returns its buffer for reuse.
fn apply_block<T>(
    done: Done<T>,
    base: u64,
    diagnostics: &mut Diagnostics<'_>,
    apply: &mut impl FnMut(T, u64) -> Result<(), LineError>,
) -> Result<Vec<u8>, Error> {
    for mut line in done.lines {
        line.number += base;
        diagnostics.saw_line();
        let result = match line.result {
            Ok(item) => apply(item, line.number),
            Err(Fail::Bad(e)) => Err(e),
            Err(Fail::InvalidUtf8) if !line.terminated => Err(LineError::shape("not valid UTF-8")),
            Err(Fail::InvalidUtf8) => return Err(diagnostics.invalid_utf8(line.number)),
        };
        if let Err(e) = result {
            diagnostics.bad_line(line.number, line.terminated, e)?;
        }
    }
    Ok(done.bytes)
}

/// Cuts a stream into blocks of whole lines.
struct BlockReader<'r, R> {
    reader: &'r mut R,
    input: &'r Input<'r>,
    carry: Vec<u8>,
    offset: u64,
    index: usize,
    eof: bool,
    /// Bytes to read next; doubles up to [`BLOCK`].
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
        buffer.clear();
        buffer.append(&mut self.carry);
        loop {
            if let Some(last) = memchr::memrchr(b'\n', &buffer)
                && (buffer.len() >= BLOCK || self.eof)
            {
                self.carry.extend_from_slice(&buffer[last + 1..]);
                buffer.truncate(last + 1);
                return Ok(Some(self.block(buffer, true)));
            }
            if self.eof {
                if buffer.is_empty() {
                    return Ok(None);
                }
                return Ok(Some(self.block(buffer, false)));
            }
            self.fill(&mut buffer)?;
        }
    }

    fn block(&mut self, bytes: Vec<u8>, terminated: bool) -> Block {
        let block = Block {
            index: self.index,
            offset: self.offset,
            bytes,
            terminated,
        };
        self.index += 1;
        self.offset += block.bytes.len() as u64;
        block
    }

    /// Reads up to one block more onto the end of `buffer`.
    fn fill(&mut self, buffer: &mut Vec<u8>) -> Result<(), Error> {
        let block = self.block;
        self.block = (block * 2).min(BLOCK);
        buffer.reserve_exact(block);
        loop {
            match self.reader.by_ref().take(block as u64).read_to_end(buffer) {
                Ok(0) => {
                    self.eof = true;
                    return Ok(());
                }
                Ok(_) => return Ok(()),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(Error::io(&self.input.display, e)),
            }
        }
    }
}
