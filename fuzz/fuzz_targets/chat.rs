//! Reads arbitrary bytes as a Chat log: it may fail, it must not panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use vouch_session::{Format, ReadOptions, read_from};

fuzz_target!(|data: &[u8]| {
    for strict in [false, true] {
        let options = ReadOptions { format: Some(Format::Chat), strict, no_subagents: true };
        if let Ok(report) = read_from(data, "fuzz", &options) {
            // Everything read must also write and count without panicking.
            let _ = vouch_session::SessionStats::of(&report.session);
            let _ = vouch_session::write_jsonl(&report.session, &mut Vec::new());
        }
    }
});
