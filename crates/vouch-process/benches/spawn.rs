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

/// `true` in the kernel's sandbox (Landlock on a fresh thread, a network namespace by
/// `unshare`), against the same without it: the sandbox's set-up cost per command.
#[divan::bench(args = ["plain", "landlock", "landlock+netns"], sample_count = 200)]
fn sandboxed_true(bencher: divan::Bencher<'_, '_>, how: &str) {
    let dir = std::env::temp_dir();
    let sandbox = vouch_process::Sandbox::new(vec![dir]).network(how == "landlock");
    bencher.bench(|| {
        let mut cmd = Command::new("/bin/true");
        vouch_process::EnvPolicy::default().apply(&mut cmd);
        let options = Options::new(Duration::from_secs(10)).merged();
        let options = if how == "plain" {
            options
        } else {
            options.sandboxed(sandbox.clone())
        };
        run(cmd, &options).expect("`true` runs").exit_code
    });
}
