//! Reading a session: checking the file, detecting its format, feeding its lines to the
//! format's reader, and collecting the lines it could not use.

use std::fs::File;
use std::io::{Cursor, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use crate::error::{Diagnostic, DiagnosticKind, Error};
use crate::lines::LineReader;
use crate::readers::{chat, claude_code, codex, detect, vouch};
use crate::session::{Format, Session, Source};
use crate::tail;

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

/// Reads the session in the file at `path`.
///
/// # Examples
///
/// ```
/// # let dir = tempfile::tempdir()?;
/// # let path = dir.path().join("chat.json");
/// std::fs::write(&path, r#"[{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]"#)?;
/// let report = vouch_session::read_path(&path, &vouch_session::ReadOptions::default())?;
/// assert_eq!(report.session.final_answer(), Some("hello"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn read_path(path: &Path, options: &ReadOptions) -> Result<ReadReport, Error> {
    let meta = std::fs::metadata(path).map_err(|e| Error::io(path, e))?;
    if meta.is_dir() {
        return Err(Error::IsDirectory {
            path: path.to_owned(),
        });
    }
    let mut file = File::open(path).map_err(|e| Error::io(path, e))?;
    let prefix = sniff(&mut file, path)?;
    let format = match options.format {
        Some(format) => format,
        None => detect::detect(&prefix, path)?,
    };
    tracing::debug!(path = %path.display(), %format, "reading session log");
    let mut input = Input::file(path, true);
    if let Some(turns) = options.last_turns
        && let Some(start) = tail::tail_start(&mut file, path, format, turns)?
    {
        tracing::debug!(offset = start.offset, "reading the last turns only");
        input.start = start;
    }
    file.seek(SeekFrom::Start(input.start.offset))
        .map_err(|e| Error::io(path, e))?;
    let mut report = read_format(format, file, &input, options)?;
    if !input.start.counted {
        // The tail's lines were numbered from its start: diagnostics get their real numbers,
        // events none (numbering them would mean reading the whole file).
        if report
            .diagnostics
            .iter()
            .any(|d| d.path.as_deref() == Some(path))
        {
            let mut file = File::open(path).map_err(|e| Error::io(path, e))?;
            let base = tail::line_number(&mut file, path, input.start.offset)? - 1;
            for d in report
                .diagnostics
                .iter_mut()
                .filter(|d| d.path.as_deref() == Some(path))
            {
                d.line += base;
            }
        }
        for e in &mut report.session.events {
            e.line = None;
        }
    }
    Ok(report)
}

/// Reads a session from any reader (standard input, a buffer), named `name` in messages.
///
/// Long tool outputs are held whole, since a stream cannot be read again.
pub fn read_from(
    mut reader: impl Read,
    name: &str,
    options: &ReadOptions,
) -> Result<ReadReport, Error> {
    let display = PathBuf::from(name);
    let prefix = sniff(&mut reader, &display)?;
    let format = match options.format {
        Some(format) => format,
        None => detect::detect(&prefix, &display)?,
    };
    let input = Input {
        path: None,
        display,
        spill: false,
        start: Start::default(),
    };
    read_format(format, Cursor::new(prefix).chain(reader), &input, options)
}

/// Reads `reader` as `format`.
fn read_format(
    format: Format,
    reader: impl Read,
    input: &Input<'_>,
    options: &ReadOptions,
) -> Result<ReadReport, Error> {
    match format {
        Format::ClaudeCode => claude_code::read(reader, input, options),
        Format::Codex => codex::read(reader, input, options),
        Format::Chat => chat::read(reader, input, options),
        Format::Vouch => vouch::read(reader, input, options),
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

/// Reads the first [`SNIFF_LEN`] bytes, rejecting binary and empty input.
fn sniff(reader: &mut impl Read, path: &Path) -> Result<Vec<u8>, Error> {
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

/// A format reader that takes one line at a time.
pub(crate) trait LineSink {
    /// Takes one non-blank line; `offset` is its position in the stream.
    fn line(&mut self, text: &str, number: u64, offset: u64) -> Result<(), LineError>;
}

/// Feeds every non-blank line of `reader` to `sink`, returning the skipped lines.
pub(crate) fn drive(
    reader: impl Read,
    input: &Input<'_>,
    options: &ReadOptions,
    sink: &mut impl LineSink,
) -> Result<Vec<Diagnostic>, Error> {
    let mut lines = LineReader::starting_at(reader, input.start.offset, input.start.line);
    let mut diagnostics = Diagnostics::new(input, options);
    while let Some(line) = lines
        .next_line()
        .map_err(|e| Error::io(&input.display, e))?
    {
        if line.bytes.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        diagnostics.saw_line();
        let result = match std::str::from_utf8(line.bytes) {
            Ok(text) => sink.line(text, line.number, line.offset),
            Err(_) if !line.terminated => Err(LineError::shape("not valid UTF-8")),
            Err(_) => return Err(diagnostics.invalid_utf8(line.number)),
        };
        if let Err(e) = result {
            diagnostics.bad_line(line.number, line.terminated, e)?;
        }
    }
    diagnostics.finish()
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
