//! The stand-in MCP server over stdio: one JSON-RPC message a line. `--exit-at-start` exits
//! at once with status 3 (a server that cannot start).

use std::io::{BufRead, Write};

use vouch_standin::mcp::{Answer, answer};

fn main() {
    if std::env::args().any(|a| a == "--exit-at-start") {
        std::process::exit(3);
    }
    let stdin = std::io::stdin();
    let mut stdout = std::io::stdout();
    for line in stdin.lock().lines() {
        let Ok(line) = line else {
            break;
        };
        let Ok(message) = serde_json::from_str::<serde_json::Value>(&line) else {
            continue;
        };
        match answer(&message) {
            Answer::Send(v) => {
                if writeln!(stdout, "{v}")
                    .and_then(|()| stdout.flush())
                    .is_err()
                {
                    break;
                }
            }
            Answer::Nothing => {}
            Answer::Hang => std::thread::sleep(std::time::Duration::from_secs(3600)),
        }
    }
}
