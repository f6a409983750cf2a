//! `read_file`: a file's text, whole or a range of its lines — a regular file only (a FIFO
//! would hold the run), read no further than the answer can show.

use std::io::{BufRead, BufReader, Read};

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
        (start, end) => {
            let start = start.unwrap_or(1);
            let end = end.unwrap_or(u64::MAX);
            let mut out = String::new();
            let mut reader = BufReader::new(opened.file);
            let mut buf = Vec::new();
            let mut number = 0u64;
            while number < end && (out.len() as u64) < limit {
                buf.clear();
                match reader
                    .by_ref()
                    .take(limit)
                    .read_until(b'\n', &mut buf)
                {
                    Ok(0) => break,
                    Ok(_) => {}
                    Err(e) => return ToolOutput::error(format!("cannot read `{path}`: {e}")),
                }
                number += 1;
                if number >= start {
                    let text = String::from_utf8_lossy(&buf);
                    out.push_str(text.trim_end_matches(['\n', '\r']));
                    out.push('\n');
                }
            }
            out
        }
    };
    ToolOutput::ok(vouch_process::clip::head(&shown, cx.result_cap))
}
