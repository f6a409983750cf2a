//! The body every reader's fuzz target shares: read arbitrary bytes as one format, strict
//! and not; whatever reads must also count and write. It may fail; it must not panic.

use vouch_session::{Format, ReadOptions, read_from};

/// Reads `data` as `format`.
pub fn read_as(data: &[u8], format: Format) {
    for strict in [false, true] {
        let options = ReadOptions { format: Some(format), strict, no_subagents: true, last_turns: None };
        if let Ok(report) = read_from(data, "fuzz", &options) {
            let _ = vouch_session::SessionStats::of(&report.session);
            let _ = vouch_session::write_jsonl(&report.session, &mut Vec::new());
        }
    }
}
