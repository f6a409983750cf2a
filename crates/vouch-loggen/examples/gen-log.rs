//! Writes a generated agent log (or a whole gate-check project), for side-by-side timings.
//!
//! Usage:
//! - `cargo run --release -p vouch-loggen --example gen-log -- claude [TOOL_CALLS] [RESULT_BYTES] > session.jsonl`
//! - `cargo run --release -p vouch-loggen --example gen-log -- gate DIR` (see `GateProject`)
//! - `cargo run --release -p vouch-loggen --example gen-log -- tasks [TASKS] > tasks.json` (see
//!   `TaskTree`; `chain` writes a dependency chain instead)

use std::io::{BufWriter, Write};
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let number =
        |i: usize, default: usize| args.get(i).and_then(|s| s.parse().ok()).unwrap_or(default);
    let written = match (args.first().map(String::as_str), args.get(1)) {
        (Some("claude"), _) => {
            let spec = vouch_loggen::ClaudeLog {
                tool_calls: number(1, 100_000),
                result_bytes: number(2, 2048),
                ..Default::default()
            };
            let mut out = BufWriter::new(std::io::stdout().lock());
            spec.write(&mut out).and_then(|()| out.flush())
        }
        (Some("gate"), Some(dir)) => {
            vouch_loggen::GateProject::default().write(std::path::Path::new(dir))
        }
        (Some(kind @ ("tasks" | "chain")), _) => {
            let spec = vouch_loggen::TaskTree {
                tasks: number(1, 10_000),
                ..Default::default()
            };
            let mut out = BufWriter::new(std::io::stdout().lock());
            let written = if kind == "tasks" {
                spec.write(&mut out)
            } else {
                spec.write_chain(&mut out)
            };
            written.and_then(|()| out.flush())
        }
        _ => {
            eprintln!(
                "usage: gen-log claude [TOOL_CALLS] [RESULT_BYTES] > session.jsonl\n       gen-log gate DIR\n       gen-log tasks|chain [TASKS] > tasks.json"
            );
            return ExitCode::from(2);
        }
    };
    match written {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: failed to write: {e}");
            ExitCode::from(2)
        }
    }
}
