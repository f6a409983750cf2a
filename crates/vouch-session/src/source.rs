//! Where a read's bytes come from and how to read them: the options, the file or stream and
//! the position reading starts at, the first bytes that tell text from binary, and the report
//! a read returns.

use std::io::Read;
use std::path::{Path, PathBuf};

use crate::error::{Diagnostic, DiagnosticKind, Error};
use crate::session::{Format, Session, Source};

/// How much of a log is looked at to detect its format and to tell text from binary.
pub(crate) const SNIFF_LEN: usize = 64 * 1024;

/// How to read a session.
#[derive(Debug, Clone, Default)]
pub struct ReadOptions {
    /// The format to read; detected from the content when `None`.
    pub format: Option<Format>,
    /// Makes the first bad line an error instead of a skipped, reported line.
    pub strict: bool,
    /// Skips the subagent logs stored beside a Claude Code session (`<id>/subagents/`) and the
    /// rollouts of agents a Codex session spawned.
    pub no_subagents: bool,
    /// Reads only the last this many turns of a file (a turn starts at a user message), scanning
    /// back from its end: a gate needs the current turn of a long session, not all of it.
    /// Claude Code, Codex and chat JSONL logs support it; other logs are read whole. Subagent
    /// logs are read only for subagents the tail links to a call.
    pub last_turns: Option<usize>,
}

/// A session read from a log, and the lines that were skipped on the way.
#[derive(Debug, Clone)]
pub struct ReadReport {
    /// The session.
    pub session: Session,
    /// Lines that were skipped, in the order they were met (subagent logs after their parent).
    pub diagnostics: Vec<Diagnostic>,
}

impl ReadReport {
    /// Returns the number of bad lines (torn last lines not counted).
    pub fn bad_lines(&self) -> usize {
        self.diagnostics
            .iter()
            .filter(|d| d.kind == DiagnosticKind::BadLine)
            .count()
    }
}

/// Where the bytes being read come from.
#[derive(Debug)]
pub(crate) struct Input<'a> {
    /// The file, when reading one: spans of long outputs point into it.
    pub(crate) path: Option<&'a Path>,
    /// The name used in messages.
    pub(crate) display: PathBuf,
    /// Whether long outputs may be held as spans into `path`.
    pub(crate) spill: bool,
    /// Where in the file the reader starts: not at the beginning when reading a tail.
    pub(crate) start: Start,
}

/// A position in a file: a byte offset and the number of the line that starts there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Start {
    pub(crate) offset: u64,
    /// The line's number; counted from 1 at `offset` when `counted` is false.
    pub(crate) line: u64,
    /// False when the lines before `offset` were not counted (a tail read): counting them
    /// means reading the whole file, which is done only when a diagnostic needs it.
    pub(crate) counted: bool,
}

impl Default for Start {
    fn default() -> Start {
        Start {
            offset: 0,
            line: 1,
            counted: true,
        }
    }
}

impl<'a> Input<'a> {
    /// Returns the input of the file at `path`, read from its start.
    pub(crate) fn file(path: &'a Path, spill: bool) -> Input<'a> {
        Input {
            path: Some(path),
            display: path.to_owned(),
            spill,
            start: Start::default(),
        }
    }

    /// Returns the source record of a session read from this input.
    pub(crate) fn source(&self, format: Format) -> Source {
        Source {
            path: self.path.map(Path::to_owned),
            format,
        }
    }
}

/// Reads the first [`SNIFF_LEN`] bytes of `reader`, rejecting binary and empty input.
pub(crate) fn sniff(reader: &mut impl Read, path: &Path) -> Result<Vec<u8>, Error> {
    let mut prefix = Vec::with_capacity(SNIFF_LEN);
    reader
        .take(SNIFF_LEN as u64)
        .read_to_end(&mut prefix)
        .map_err(|e| Error::io(path, e))?;
    if memchr::memchr(0, &prefix).is_some() {
        return Err(Error::Binary {
            path: path.to_owned(),
        });
    }
    if prefix.len() < SNIFF_LEN && prefix.iter().all(u8::is_ascii_whitespace) {
        return Err(Error::Empty {
            path: path.to_owned(),
        });
    }
    Ok(prefix)
}
