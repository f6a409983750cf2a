//! `vouch serve`: the task protocol's service.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use clap::Args;
use vouch_server::serve::{self, Options};

use crate::error::CommandError;
use crate::exit_codes;
use crate::ui::Ui;

/// Serve the task protocol: JSON-RPC 2.0 over HTTP, and the engine that runs task trees
///
/// Clients create task trees (`tasks.create`), start them (`tasks.execute`) and follow them
/// (`GET /events/{root_id}`, Server-Sent Events). Ready tasks run by priority (0 first), up to
/// `--concurrency` at once, each under a lease. Tasks are stored in SQLite (`.vouch/tasks.db`)
/// unless `--db postgres://…` names a PostgreSQL database, which several `--worker` processes
/// can share. Every method, code and executor: docs/server.md.
///
/// Listens on 127.0.0.1 unless told otherwise; another address needs `--token-env`, since
/// tasks run shell commands. One line per request is logged on standard error. Ctrl-C or
/// SIGTERM shuts it down gracefully: no new task is taken, running tasks may finish within
/// `--shutdown-timeout`, then the rest are stopped and given back to the store for another
/// worker at once; a second signal exits immediately (those tasks run again after their lease).
#[derive(Debug, Args)]
pub(crate) struct ServeArgs {
    /// Where to listen
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8765")]
    listen: SocketAddr,

    /// The task store: an SQLite file, or postgres://user@host/db
    #[arg(long, value_name = "URL", default_value = ".vouch/tasks.db")]
    db: String,

    /// Run tasks only: no HTTP listener (workers sharing a PostgreSQL store)
    #[arg(long)]
    worker: bool,

    /// Tasks this process runs at once (0: serve requests only) [default: one per core, at
    /// least 2; raise it for many short tasks — docs/server.md, "Several workers"]
    #[arg(long, value_name = "N")]
    concurrency: Option<usize>,

    /// Require `Authorization: Bearer <token>`, the token read from this environment variable
    #[arg(long, value_name = "NAME")]
    token_env: Option<String>,

    /// The largest request body, in bytes
    #[arg(long, value_name = "BYTES", default_value_t = 64 << 20)]
    max_body: usize,

    /// How long a worker holds a task without renewing its claim, in seconds
    #[arg(long, value_name = "SECONDS", default_value_t = 10.0)]
    lease: f64,

    /// At shutdown, how long running tasks may take to finish before they are stopped and
    /// given back, in seconds
    #[arg(long, value_name = "SECONDS", default_value_t = 30.0)]
    shutdown_timeout: f64,

    /// How long events are kept before the workers sweep them: `7d`, `12h`, `30m`, `90s`, or
    /// `off` to keep them for ever
    #[arg(long, value_name = "DURATION", default_value = "7d", value_parser = retention)]
    events_retention: Retention,

    /// Leave out the line per request
    #[arg(long, short)]
    quiet: bool,

    /// Let `http` tasks reach private, loopback and link-local addresses (refused by default:
    /// a task could otherwise read this machine's services or a cloud's metadata service)
    #[arg(long)]
    allow_private_http: bool,

    /// Confine `command` tasks by the kernel (Landlock, a network namespace): `on` refuses to
    /// serve where it cannot be enforced, `best-effort` runs with what the kernel offers
    #[arg(long, value_enum, default_value = "on")]
    sandbox: SandboxArg,
}

/// `--events-retention`: how long, or for ever (`None`).
#[derive(Debug, Clone, Copy)]
struct Retention(Option<Duration>);

/// Reads `7d`, `12h`, `30m`, `90s` (a bare number is seconds) or `off`.
fn retention(text: &str) -> Result<Retention, String> {
    if text == "off" {
        return Ok(Retention(None));
    }
    let (number, unit) = match text.char_indices().find(|(_, c)| c.is_ascii_alphabetic()) {
        Some((i, _)) => text.split_at(i),
        None => (text, "s"),
    };
    let seconds = match unit {
        "s" => 1,
        "m" => 60,
        "h" => 3600,
        "d" => 86_400,
        _ => {
            return Err(format!(
                "`{text}`: give a number with s, m, h or d (`7d`), or `off`"
            ));
        }
    };
    let n: u64 = number.parse().ok().filter(|n| *n > 0).ok_or_else(|| {
        format!("`{text}`: give a positive whole number with s, m, h or d (`7d`), or `off`")
    })?;
    Ok(Retention(Some(Duration::from_secs(
        n.saturating_mul(seconds),
    ))))
}

/// `--sandbox`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum SandboxArg {
    /// Confined; no serving where the kernel cannot
    On,
    /// Confined as far as the kernel can
    BestEffort,
    /// Not confined
    Off,
}

/// Runs `vouch serve`.
pub(crate) fn run(args: &ServeArgs, ui: &mut Ui) -> Result<u8, CommandError> {
    let token = match &args.token_env {
        None => None,
        Some(name) => match std::env::var(name) {
            Ok(t) if !t.is_empty() => Some(t),
            _ => {
                return Err(CommandError::input(format!(
                    "--token-env {name}: the variable is not set or empty"
                )));
            }
        },
    };
    let lease = Duration::try_from_secs_f64(args.lease)
        .ok()
        .filter(|d| *d >= Duration::from_millis(300))
        .ok_or_else(|| CommandError::input("--lease must be at least 0.3 seconds"))?;
    let shutdown_timeout = Duration::try_from_secs_f64(args.shutdown_timeout).map_err(|_| {
        CommandError::input("--shutdown-timeout must be a number of seconds, 0 or more")
    })?;
    let mut options = Options::new(args.db.clone());
    options.shutdown_timeout = shutdown_timeout;
    options.events_retention = args.events_retention.0;
    // The keeper is this same program; where it cannot be found, the watchdog alone stops
    // runs whose lease runs out.
    options.keeper = std::env::current_exe()
        .ok()
        .map(|exe| vec![exe.into_os_string(), "__keeper".into()]);
    options.listen = (!args.worker).then_some(args.listen);
    if let Some(n) = args.concurrency {
        options.concurrency = n;
    }
    if args.worker && options.concurrency == 0 {
        return Err(CommandError::input(
            "--worker with --concurrency 0 would do nothing",
        ));
    }
    options.token = token;
    options.max_body = args.max_body;
    options.lease = lease;
    options.quiet = args.quiet;
    options.allow_private_http = args.allow_private_http;
    options.sandbox = match args.sandbox {
        SandboxArg::On => vouch_server::engine::CommandSandbox::On,
        SandboxArg::BestEffort => vouch_server::engine::CommandSandbox::BestEffort,
        SandboxArg::Off => vouch_server::engine::CommandSandbox::Off,
    };
    let stop = Arc::new(tokio::sync::Notify::new());
    let on_signal = Arc::clone(&stop);
    let signalled = std::sync::atomic::AtomicBool::new(false);
    // A second handler cannot be installed in one process; then only the default applies.
    let _ = ctrlc::set_handler(move || {
        if signalled.swap(true, std::sync::atomic::Ordering::SeqCst) {
            // The second signal: out at once; what runs is claimed again after its lease.
            eprintln!("vouch serve: a second signal: exiting now");
            std::process::exit(i32::from(exit_codes::INTERRUPTED));
        }
        eprintln!("vouch serve: shutting down (a second signal exits at once)");
        on_signal.notify_one();
    });
    let shutdown = async move { stop.notified().await };
    let db = PathBuf::from(&args.db);
    let store = if args.db.starts_with("postgres") {
        "postgres".to_owned()
    } else {
        format!("sqlite {}", db.display())
    };
    let concurrency = options.concurrency;
    let err = &mut ui.err;
    serve::run(
        &options,
        |addr| {
            let _ = match addr {
                Some(addr) => writeln!(
                    err,
                    "vouch serve: listening on http://{addr} ({store}, {concurrency} at once)"
                ),
                None => writeln!(err, "vouch serve: worker on {store}, {concurrency} at once"),
            };
        },
        shutdown,
    )
    .map_err(|e| match e {
        serve::ServeError::Usage(m) => CommandError::input(m),
        other => CommandError::input(other.to_string()),
    })?;
    Ok(exit_codes::PASS)
}

use std::io::Write;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retentions_read_with_their_units_or_off() {
        let secs = |t: &str| retention(t).unwrap().0.map(|d| d.as_secs());
        assert_eq!(secs("7d"), Some(604_800));
        assert_eq!(secs("12h"), Some(43_200));
        assert_eq!(secs("30m"), Some(1_800));
        assert_eq!(secs("90"), Some(90));
        assert_eq!(secs("off"), None);
        for bad in ["", "0", "7w", "d", "-1d", "1.5h"] {
            assert!(retention(bad).is_err(), "{bad}");
        }
    }
}
