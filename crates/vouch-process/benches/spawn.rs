//! What running a child costs vouch beyond the child itself: `true` run to its end, its group
//! killed when it ends, with and without the hunt for processes that escaped it (a read of
//! every process's environment in `/proc`).
//!
//! `cargo bench -p vouch-process --bench spawn`

use std::process::Command;
use std::time::Duration;

use vouch_process::{Options, run};

fn main() {
    divan::main();
}

fn options(hunt: bool) -> Options {
    let options = Options::new(Duration::from_secs(10)).merged();
    if hunt {
        options.hunt_escapes()
    } else {
        options
    }
}

/// `true`, its group killed at its end; with `hunt`, escapes looked for too.
#[divan::bench(args = [false, true], sample_count = 200)]
fn true_command(hunt: bool) -> Option<i32> {
    run(Command::new("true"), &options(hunt))
        .expect("`true` runs")
        .exit_code
}
