//! Reading only the end of a log: finding where its last turns start by scanning lines back
//! from the end of the file, so that a gate on a session of a hundred thousand events reads only
//! what the gate looks at.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use crate::error::Error;
use crate::source::Start;

/// Bytes read at a time while scanning back.
const BLOCK: u64 = 256 << 10;

/// How a line-oriented format's turns are found from the end of a file.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Turns {
    /// Returns true when a line starts a turn (a user's message).
    pub(crate) starts_turn: fn(&str) -> bool,
    /// Returns true when a file that starts with these bytes is one JSON document, which
    /// cannot be read from the middle.
    pub(crate) is_document: fn(&[u8]) -> bool,
}

/// Returns where the last `turns` turns of the log in `file` start, or `None` when the whole
/// file must be read: the file is one JSON document, or it holds fewer turns.
pub(crate) fn tail_start(
    file: &mut File,
    path: &Path,
    format: Turns,
    turns: usize,
) -> Result<Option<Start>, Error> {
    if turns == 0 {
        return Ok(None);
    }
    let io = |e| Error::io(path, e);
    let mut head = Vec::new();
    file.seek(SeekFrom::Start(0)).map_err(io)?;
    file.by_ref()
        .take(64 << 10)
        .read_to_end(&mut head)
        .map_err(io)?;
    if (format.is_document)(&head) {
        return Ok(None);
    }
    let len = file.seek(SeekFrom::End(0)).map_err(io)?;
    let mut pos = len;
    // The bytes after `pos` that do not yet make a whole line (the start of a line that began
    // before `pos`).
    let mut carry: Vec<u8> = Vec::new();
    let mut found = 0;
    while pos > 0 {
        let size = BLOCK.min(pos);
        pos -= size;
        let mut chunk = vec![0; usize::try_from(size).unwrap_or(0)];
        file.seek(SeekFrom::Start(pos)).map_err(io)?;
        file.read_exact(&mut chunk).map_err(io)?;
        chunk.extend_from_slice(&carry);
        // Whole lines are those after the first newline, or all of them at the file's start.
        let whole_from = if pos == 0 {
            0
        } else if let Some(i) = memchr::memchr(b'\n', &chunk) {
            i + 1
        } else {
            carry = chunk;
            continue;
        };
        let mut end = chunk.len();
        while end > whole_from {
            let line_start = memchr::memrchr(b'\n', &chunk[whole_from..end - 1])
                .map_or(whole_from, |i| whole_from + i + 1);
            let line = &chunk[line_start..end];
            if let Ok(text) = std::str::from_utf8(line)
                && (format.starts_turn)(text.trim_end())
            {
                found += 1;
                if found == turns {
                    let offset = pos + line_start as u64;
                    return Ok(Some(Start {
                        offset,
                        line: 1,
                        counted: false,
                    }));
                }
            }
            end = line_start;
        }
        carry = chunk[..whole_from].to_vec();
    }
    Ok(None)
}

/// Returns the number of the line that starts at `offset`.
pub(crate) fn line_number(file: &mut File, path: &Path, offset: u64) -> Result<u64, Error> {
    file.seek(SeekFrom::Start(0))
        .map_err(|e| Error::io(path, e))?;
    let mut reader = file.take(offset);
    let mut buf = vec![0; 1 << 20];
    let mut lines = 1;
    loop {
        let n = reader.read(&mut buf).map_err(|e| Error::io(path, e))?;
        if n == 0 {
            return Ok(lines);
        }
        lines += memchr::memchr_iter(b'\n', &buf[..n]).count() as u64;
    }
}
