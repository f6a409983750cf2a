//! Writes a generated agent log to a file or stdout, for side-by-side timings.
//!
//! Usage: `cargo run --release -p vouch-loggen --example gen-log -- claude [TOOL_CALLS] [RESULT_BYTES] > session.jsonl`

use std::io::{BufWriter, Write};
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let number =
        |i: usize, default: usize| args.get(i).and_then(|s| s.parse().ok()).unwrap_or(default);
    if let Some("claude") = args.first().map(String::as_str) {
        let spec = vouch_loggen::ClaudeLog {
            tool_calls: number(1, 100_000),
            result_bytes: number(2, 2048),
            ..Default::default()
        };
        let mut out = BufWriter::new(std::io::stdout().lock());
        match spec.write(&mut out).and_then(|()| out.flush()) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("error: failed to write the log: {e}");
                ExitCode::from(2)
            }
        }
    } else {
        eprintln!("usage: gen-log claude [TOOL_CALLS] [RESULT_BYTES] > session.jsonl");
        ExitCode::from(2)
    }
}
