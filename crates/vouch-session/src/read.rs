//! Reading a session: checking the file, detecting its format, finding where its last turns
//! start when only those are wanted, and handing the bytes to the format's reader.

use std::fs::File;
use std::io::{Cursor, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use crate::error::Error;
use crate::readers::{detect, registry};
use crate::session::{Format, Session};
use crate::source::{Input, ReadOptions, ReadReport, Start, sniff};
use crate::tail;

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
    let descriptor = registry::descriptor(format);
    let mut input = Input::file(path, true);
    if let (Some(turns), Some(detection)) = (options.last_turns, descriptor.turns)
        && let Some(start) = tail::tail_start(&mut file, path, detection, turns)?
    {
        tracing::debug!(offset = start.offset, "reading the last turns only");
        input.start = start;
    }
    file.seek(SeekFrom::Start(input.start.offset))
        .map_err(|e| Error::io(path, e))?;
    let mut report = (descriptor.read)(&mut file, &input, options)?;
    not_silent(&report, &prefix, format, path)?;
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
    let check = prefix.clone();
    let mut reader = Cursor::new(prefix).chain(reader);
    let report = (registry::descriptor(format).read)(&mut reader, &input, options)?;
    not_silent(&report, &check, format, &input.display)?;
    Ok(report)
}

/// Refuses a read of a non-empty log that gave no event at all, unless the format allows an
/// empty session there: a silent zero is most often another agent's log read as this format.
fn not_silent(
    report: &ReadReport,
    prefix: &[u8],
    format: Format,
    path: &Path,
) -> Result<(), Error> {
    fn events(s: &Session) -> usize {
        s.events.len() + s.subagents.iter().map(events).sum::<usize>()
    }
    if events(&report.session) > 0 || detect::allows_empty(prefix, format) {
        return Ok(());
    }
    Err(Error::NoEvents {
        path: path.to_owned(),
        format: registry::descriptor(format).label.to_owned(),
        skipped: report.bad_lines(),
    })
}
