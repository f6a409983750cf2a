//! Reads arbitrary text as a recorded shell command (strict evidence's parser and walk) and as
//! a test file whose comments are stripped.
#![no_main]

use libfuzzer_sys::fuzz_target;
use vouch_evidence::{Script, strip_comments};

fuzz_target!(|data: &[u8]| {
    // vouch catches a panic inside the shell parser (the command is then unreadable); what
    // must never happen is a panic escaping `Script::parse`, which libFuzzer's own
    // catch_unwind still turns into a crash. So panics are not aborts here.
    static QUIET: std::sync::Once = std::sync::Once::new();
    QUIET.call_once(|| std::panic::set_hook(Box::new(|_| {})));
    if let Ok(text) = std::str::from_utf8(data) {
        let script = Script::parse(text);
        let _ = script.status_is_own();
        let _ = script.backs(&Script::parse("cargo test"));
        for ext in ["t.rs", "t.py", "t.js", "t.sql", "t.rb", "t.txt"] {
            let _ = strip_comments(ext, text);
        }
    }
});
