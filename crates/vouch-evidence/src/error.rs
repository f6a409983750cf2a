//! Errors reading and writing evidence.

use std::path::PathBuf;

/// A problem reading or writing an artifact or the change log.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The file could not be read.
    #[error("failed to read `{}`", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// The file is not JSON.
    #[error("`{}` is not valid JSON: {reason} at line {line}, column {column}", path.display())]
    NotJson {
        /// The file.
        path: PathBuf,
        /// What the parser found.
        reason: String,
        /// The 1-based line.
        line: usize,
        /// The 1-based column.
        column: usize,
    },
    /// The file is JSON of the wrong shape.
    #[error("`{}` has the wrong shape at `{json_path}`: {reason}", path.display())]
    Shape {
        /// The file.
        path: PathBuf,
        /// Where in the document, as a JSON path (`$.results[2].status`).
        json_path: String,
        /// What was wrong.
        reason: String,
    },
    /// The change log could not be locked for writing.
    #[error("failed to lock `{}` for writing", path.display())]
    Lock {
        /// The lock file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// The file does not hold what its writer wrote: someone else changed it.
    #[error("`{}` was changed outside the runner: {reason}", path.display())]
    Tampered {
        /// The file.
        path: PathBuf,
        /// What differs.
        reason: String,
    },
    /// The file could not be written.
    #[error("failed to write `{}`", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
}

impl Error {
    /// Returns what is wrong without naming the file, for messages that name it already:
    /// `is not valid JSON: … at line 1, column 14`, `has the wrong shape at `$.x`: …`.
    pub fn detail(&self) -> String {
        match self {
            Error::NotJson {
                reason,
                line,
                column,
                ..
            } => {
                format!("is not valid JSON: {reason} at line {line}, column {column}")
            }
            Error::Shape {
                json_path, reason, ..
            } => {
                format!("has the wrong shape at `{json_path}`: {reason}")
            }
            other => format!("cannot be read: {other}"),
        }
    }
}

/// Parses `text`, the content of `path`, reporting a wrong shape with its JSON path.
pub(crate) fn parse_json<'de, T: serde::Deserialize<'de>>(
    path: &std::path::Path,
    text: &'de str,
) -> Result<T, Error> {
    let mut de = serde_json::Deserializer::from_str(text);
    let not_json = |e: &serde_json::Error| Error::NotJson {
        path: path.to_owned(),
        reason: bare(e),
        line: e.line(),
        column: e.column(),
    };
    let value = serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let json_path = json_path(e.path());
        let inner = e.into_inner();
        if inner.is_syntax() || inner.is_eof() {
            not_json(&inner)
        } else {
            Error::Shape {
                path: path.to_owned(),
                json_path,
                reason: bare(&inner),
            }
        }
    })?;
    de.end().map_err(|e| not_json(&e))?;
    Ok(value)
}

/// Returns serde_json's message without the position it appends.
fn bare(e: &serde_json::Error) -> String {
    let reason = e.to_string();
    reason
        .rfind(" at line ")
        .map_or(reason.clone(), |i| reason[..i].to_owned())
}

/// Writes a serde path as a JSON path: `$`, `$.results[2].status`.
fn json_path(path: &serde_path_to_error::Path) -> String {
    use serde_path_to_error::Segment;
    use std::fmt::Write;
    let mut out = String::from("$");
    for segment in path {
        match segment {
            Segment::Seq { index } => {
                let _ = write!(out, "[{index}]");
            }
            Segment::Map { key } => {
                out.push('.');
                out.push_str(key);
            }
            Segment::Enum { variant } => {
                out.push('.');
                out.push_str(variant);
            }
            Segment::Unknown => out.push_str(".?"),
        }
    }
    out
}

/// Reads a file to a string, naming it in the error.
pub(crate) fn read_text(path: &std::path::Path) -> Result<String, Error> {
    std::fs::read_to_string(path).map_err(|source| Error::Io {
        path: path.to_owned(),
        source,
    })
}
