//! Reads arbitrary text as a recorded shell command (strict evidence's parser and walk) and as
//! a test file whose comments are stripped.
#![no_main]

use libfuzzer_sys::fuzz_target;
use vouch_evidence::{Script, strip_comments};

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let script = Script::parse(text);
        let _ = script.status_is_own();
        let _ = script.backs(&Script::parse("cargo test"));
        for ext in ["t.rs", "t.py", "t.js", "t.sql", "t.rb", "t.txt"] {
            let _ = strip_comments(ext, text);
        }
    }
});
