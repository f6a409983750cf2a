//! The top-level command line: global flags, logging, and turning a command's result into an
//! exit code.

use std::process::ExitCode;

use clap::Parser;

use crate::commands::{self, Command};
use crate::exit_codes;
use crate::ui::{ColorWhen, Ui};

/// Checks the evidence behind an AI agent's claims.
///
/// Agents claim "I wrote the file", "all tests pass", "approved". vouch reads what the agent
/// really did, from its session log, and checks the claim against it.
///
/// Exit codes: 0 pass, 1 a check failed, 2 usage, configuration or input error, 3 an agent is
/// stuck.
#[derive(Debug, Parser)]
#[command(
    name = "vouch",
    version,
    propagate_version = true,
    max_term_width = 100,
    // One layout for every subcommand's help: each option's text on the line after it (clap
    // otherwise picks per command, by whether any text is long).
    next_line_help = true
)]
pub(crate) struct Cli {
    #[command(subcommand)]
    command: Command,

    /// When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never
    #[arg(
        long,
        global = true,
        value_enum,
        default_value = "auto",
        value_name = "WHEN",
        hide_possible_values = true
    )]
    color: ColorWhen,

    /// Log what vouch does to stderr (-v: debug, -vv: trace; or set VOUCH_LOG)
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    verbose: u8,
}

/// Runs the command line and returns the process's exit code.
pub(crate) fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() {
                exit_codes::INPUT_ERROR
            } else {
                exit_codes::PASS
            });
        }
    };
    // A long-running service reports its warnings (a lost connection, a failed round) unless
    // told otherwise; other commands stay quiet.
    let service = matches!(cli.command, crate::commands::Command::Serve(_));
    init_logging(cli.verbose, service);
    let mut ui = Ui::new(cli.color);
    let result = commands::run(&cli.command, &mut ui);
    let flushed = std::io::Write::flush(&mut ui.out);
    match (result, flushed) {
        (Ok(code), Ok(())) => ExitCode::from(code),
        (Err(e), _) if e.is_broken_pipe() => ExitCode::from(exit_codes::PASS),
        (Ok(_), Err(e)) if e.kind() == std::io::ErrorKind::BrokenPipe => {
            ExitCode::from(exit_codes::PASS)
        }
        (Ok(_), Err(e)) => {
            let e = crate::error::CommandError::input(e);
            e.print(&mut ui.err, &ui.styles);
            ExitCode::from(e.code())
        }
        (Err(e), _) => {
            e.print(&mut ui.err, &ui.styles);
            ExitCode::from(e.code())
        }
    }
}

fn init_logging(verbose: u8, service: bool) {
    use tracing_subscriber::EnvFilter;
    let filter = match (std::env::var("VOUCH_LOG"), verbose) {
        (Ok(spec), 0) => EnvFilter::new(spec),
        (_, 0) if service => EnvFilter::new("warn"),
        (_, 0) => return,
        (_, 1) => EnvFilter::new("debug"),
        _ => EnvFilter::new("trace"),
    };
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(
            std::io::IsTerminal::is_terminal(&std::io::stderr())
                && std::env::var_os("NO_COLOR").is_none(),
        )
        .without_time()
        .try_init();
}

/// Runs the command line `args` (without the program's name) with its output kept in memory:
/// the exit code, the results and the status (`vouch mcp` answers tools this way, so that each
/// tool is exactly the command it names).
pub(crate) fn run_captured(args: &[String]) -> (u8, String, String) {
    let argv = std::iter::once("vouch".to_owned())
        .chain(args.iter().cloned())
        .chain(["--color".to_owned(), "never".to_owned()]);
    let cli = match Cli::try_parse_from(argv) {
        Ok(cli) => cli,
        Err(e) => return (exit_codes::INPUT_ERROR, String::new(), e.to_string()),
    };
    let (mut ui, out, err) = Ui::captured();
    let code = match commands::run(&cli.command, &mut ui) {
        Ok(code) => code,
        Err(e) => {
            e.print(&mut ui.err, &ui.styles);
            e.code()
        }
    };
    let _ = std::io::Write::flush(&mut ui.out);
    (code, out.text(), err.text())
}
