//! The `vouch` binary: checks the evidence behind an AI agent's claims.

mod cli;
mod commands;
mod error;
mod exit_codes;
mod render;
mod ui;

fn main() -> std::process::ExitCode {
    cli::main()
}
