//! `read_file`: a file's text, whole or a range of its lines — a regular file only (a FIFO
//! would hold the run), read no further than the answer can show.

use std::io::{BufRead, BufReader, Read};

/// How far a range is looked for: a file read line by line stops here.
const SCAN_LIMIT: u64 = 256 << 20;

use serde_json::Value;

use crate::tools::{ToolContext, ToolOutput, text_arg};

/// Reads `path`, from `start_line` to `end_line` (1-based, both optional).
pub(super) fn run(args: &Value, cx: &ToolContext) -> ToolOutput {
    let path = match text_arg(args, "path") {
        Ok(p) => p,
        Err(e) => return e,
    };
    let opened = match cx.workspace.open_read(path) {
        Ok(opened) => opened,
        Err(why) => return ToolOutput::denied(why),
    };
    // A character is at most four bytes: this much is enough to fill the answer, and one byte
    // more tells that the file goes on.
    let limit = (cx.result_cap as u64).saturating_mul(4).saturating_add(1);
    let line = |key: &str| args.get(key).and_then(Value::as_u64).map(|n| n.max(1));
    let shown = match (line("start_line"), line("end_line")) {
        (None, None) => {
            let mut bytes = Vec::new();
            if let Err(e) = opened.file.take(limit).read_to_end(&mut bytes) {
                return ToolOutput::error(format!("cannot read `{path}`: {e}"));
            }
            String::from_utf8_lossy(&bytes).into_owned()
        }
        (start, end) => match lines(
            opened.file,
            start.unwrap_or(1),
            end.unwrap_or(u64::MAX),
            limit,
        ) {
            Ok(text) => text,
            Err(e) => return ToolOutput::error(format!("cannot read `{path}`: {e}")),
        },
    };
    ToolOutput::ok(vouch_process::clip::head(&shown, cx.result_cap))
}

/// Returns lines `start..=end` of `file`, each kept to `limit` bytes and all of them to about
/// `limit` bytes, looking no further than [`SCAN_LIMIT`] bytes into the file.
fn lines(file: std::fs::File, start: u64, end: u64, limit: u64) -> std::io::Result<String> {
    let mut reader = BufReader::new(file.take(SCAN_LIMIT));
    let mut out = Vec::new();
    let mut number = 0u64;
    while number < end && (out.len() as u64) < limit {
        number += 1;
        let keep = number >= start;
        let mut line_len = 0u64;
        let mut ended = false;
        loop {
            let chunk = reader.fill_buf()?;
            if chunk.is_empty() {
                break;
            }
            let (piece, done) = match memchr::memchr(b'\n', chunk) {
                Some(i) => (&chunk[..i], true),
                None => (chunk, false),
            };
            if keep {
                let room = usize::try_from(limit.saturating_sub(line_len)).unwrap_or(usize::MAX);
                out.extend_from_slice(&piece[..piece.len().min(room)]);
            }
            line_len += piece.len() as u64;
            let used = piece.len() + usize::from(done);
            reader.consume(used);
            ended = true;
            if done {
                break;
            }
        }
        if !ended {
            break;
        }
        if keep {
            if out.last() == Some(&b'\r') {
                out.pop();
            }
            out.push(b'\n');
        }
    }
    Ok(String::from_utf8_lossy(&out).into_owned())
}
