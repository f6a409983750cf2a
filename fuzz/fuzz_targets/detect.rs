//! Reads arbitrary bytes with the format detected from the content.
#![no_main]

use libfuzzer_sys::fuzz_target;
use vouch_session::{ReadOptions, read_from};

fuzz_target!(|data: &[u8]| {
    let _ = read_from(data, "fuzz", &ReadOptions::default());
});
