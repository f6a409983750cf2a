//! Errors that stop a read, and diagnostics about single lines that a read skipped.

use std::fmt;
use std::path::{Path, PathBuf};

/// A problem that stops a session from being read (or written) at all.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The path does not exist.
    #[error("failed to read `{}`: no such file", path.display())]
    NotFound {
        /// The path.
        path: PathBuf,
    },
    /// The path is a directory, not a log file.
    #[error("failed to read `{}`: it is a directory (hint: pass the session's .jsonl file)", path.display())]
    IsDirectory {
        /// The path.
        path: PathBuf,
    },
    /// The file holds nothing but whitespace.
    #[error("failed to read `{}`: the file is empty", path.display())]
    Empty {
        /// The path.
        path: PathBuf,
    },
    /// The file holds NUL bytes: it is not a text log.
    #[error("failed to read `{}`: it is a binary file, not a text log", path.display())]
    Binary {
        /// The path.
        path: PathBuf,
    },
    /// A line is not valid UTF-8.
    #[error("failed to read `{}`: line {line} is not valid UTF-8", path.display())]
    InvalidUtf8 {
        /// The path.
        path: PathBuf,
        /// The 1-based line number.
        line: u64,
    },
    /// The content matches no known format.
    #[error("failed to read `{}`: {reason} (hint: force a format with --log-format)", path.display())]
    UnknownFormat {
        /// The path.
        path: PathBuf,
        /// What was seen.
        reason: String,
    },
    /// Not one event could be read from a non-empty log, in a format that does not allow
    /// empty sessions: most often a log of another format, read as this one.
    #[error(
        "failed to read `{}`: no message or tool call could be read from it as a {format} log{} (hint: if it is another agent's log, force its format with --log-format)",
        path.display(),
        skipped_note(*skipped)
    )]
    NoEvents {
        /// The path.
        path: PathBuf,
        /// The format tried, as messages name it (`chat-message`).
        format: String,
        /// How many lines were skipped as bad.
        skipped: usize,
    },
    /// A bad line in strict mode, or a document that cannot be parsed at all.
    #[error("{0}")]
    Bad(Diagnostic),
    /// Reading the file failed.
    #[error("failed to read `{}`", path.display())]
    Io {
        /// The path.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// Writing a session failed.
    #[error("failed to write the session")]
    Write(#[source] std::io::Error),
    /// Text that was read as a byte range cannot be read back.
    #[error("failed to load the full output: {reason}")]
    Unavailable {
        /// Why.
        reason: String,
    },
}

/// Returns `; N bad lines were skipped` when lines were skipped.
fn skipped_note(skipped: usize) -> String {
    match skipped {
        0 => String::new(),
        1 => "; 1 bad line was skipped".to_owned(),
        n => format!("; {n} bad lines were skipped"),
    }
}

impl Error {
    /// Returns the error for an I/O failure on `path`, naming missing files and directories.
    pub(crate) fn io(path: &Path, source: std::io::Error) -> Error {
        match source.kind() {
            std::io::ErrorKind::NotFound => Error::NotFound {
                path: path.to_owned(),
            },
            std::io::ErrorKind::IsADirectory => Error::IsDirectory {
                path: path.to_owned(),
            },
            _ => Error::Io {
                path: path.to_owned(),
                source,
            },
        }
    }
}

/// A line that a read could not use, reported as `path:line: reason`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// The file, when the log came from one.
    pub path: Option<PathBuf>,
    /// The 1-based line.
    pub line: u64,
    /// The 1-based column, when known.
    pub column: Option<u64>,
    /// What was wrong, as a lowercase fragment.
    pub reason: String,
    /// Whether it is a bad line or the torn end of a file still being written.
    pub kind: DiagnosticKind,
}

/// What kind of problem a [`Diagnostic`] reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiagnosticKind {
    /// A line that is not JSON, or JSON of a shape the format does not allow.
    BadLine,
    /// The last line is incomplete and has no newline: the file is still being written. It is
    /// skipped in every mode, strict included.
    TornLastLine,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = self
            .path
            .as_deref()
            .map_or("<stdin>".into(), Path::to_string_lossy);
        write!(f, "{path}:{}", self.line)?;
        if let Some(col) = self.column {
            write!(f, ":{col}")?;
        }
        write!(f, ": {}", self.reason)
    }
}
