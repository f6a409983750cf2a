//! Reads JSON strings, one per line, and prints how vouch reads each as a timestamp:
//! `ok MICROS HAS_OFFSET` or `err`. Used by `scripts/timestamp_diff.py` to compare vouch with
//! Python's `datetime.fromisoformat`.

use std::io::{BufRead, Write};

fn main() {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    for line in std::io::stdin().lock().lines() {
        let Ok(line) = line else { break };
        let Ok(text) = serde_json::from_str::<String>(&line) else {
            let _ = writeln!(out, "bad input");
            continue;
        };
        let _ = match vouch_tasks::parse_timestamp(&text) {
            Ok(t) => writeln!(out, "ok {} {}", t.micros, t.has_offset),
            Err(_) => writeln!(out, "err"),
        };
    }
}
