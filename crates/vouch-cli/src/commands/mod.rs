//! The subcommands, one module each, and the match that runs them.

mod analyze;
mod cache;
mod changes;
mod config_input;
mod format;
mod gate;
mod hook;
mod judge;
mod log_input;
mod mcp;
mod project;
mod report;
mod run;
mod sandbox;
mod serve;
mod session;
mod tasks;
mod test;
mod tests_run;

use clap::Subcommand;

use crate::error::CommandError;
use crate::ui::Ui;

/// A vouch command.
#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Read an agent's session log: a timeline of what it did, or counts
    #[command(subcommand)]
    Session(session::SessionCommand),
    /// Check a handoff or a completion against the gates of a pipeline configuration
    #[command(subcommand)]
    Gate(gate::GateCommand),
    /// Record what an agent did in a turn into the change log (`changes.json`)
    #[command(subcommand)]
    Changes(changes::ChangesCommand),
    /// Run as an agent product's hook: gates on the agent's completion
    #[command(subcommand)]
    Hook(hook::HookCommand),
    /// Validate task documents of the task protocol; transitions, readiness, the schema
    #[command(subcommand)]
    Tasks(tasks::TasksCommand),
    /// Run agent tests: YAML tests that run a coding agent or read its recorded session
    Test(test::TestArgs),
    /// Evaluate one agent test against a recorded session log
    Analyze(analyze::AnalyzeArgs),
    /// LLM graders: calibrate one against cases with known verdicts
    #[command(subcommand)]
    Judge(judge::JudgeCommand),
    /// The cache of LLM gradings: what it holds, and emptying it
    #[command(subcommand)]
    Cache(cache::CacheCommand),
    /// Run a multi-agent pipeline: model agents with real tools, gates on every handoff
    Run(run::RunArgs),
    /// Serve the task protocol: JSON-RPC 2.0 over HTTP and the engine that runs task trees
    Serve(serve::ServeArgs),
    /// Write the HTML report of a recorded run or session
    Report(report::ReportArgs),
    /// Serve vouch's verdicts to agents over MCP: gate checks, session summaries, agent tests
    Mcp(mcp::McpArgs),
    /// The kernel's confinement of what agents run: what this machine enforces, proved
    #[command(subcommand)]
    Sandbox(sandbox::SandboxCommand),
    /// The keeper of a `vouch serve` worker's task children (started by the worker itself)
    #[command(name = "__keeper", hide = true)]
    Keeper,
}

/// Runs a command and returns its exit code.
pub(crate) fn run(command: &Command, ui: &mut Ui) -> Result<u8, CommandError> {
    match command {
        Command::Session(c) => session::run(c, ui),
        Command::Gate(c) => gate::run(c, ui),
        Command::Changes(c) => changes::run(c, ui),
        Command::Hook(c) => hook::run(c, ui),
        Command::Tasks(c) => tasks::run(c, ui),
        Command::Test(c) => test::run(c, ui),
        Command::Analyze(c) => analyze::run(c, ui),
        Command::Judge(c) => judge::run(c, ui),
        Command::Cache(c) => cache::run(c, ui),
        Command::Run(c) => run::run(c, ui),
        Command::Serve(c) => serve::run(c, ui),
        Command::Report(c) => report::run(c, ui),
        Command::Mcp(c) => mcp::run(c, ui),
        Command::Sandbox(c) => sandbox::run(c, ui),
        Command::Keeper => {
            vouch_process::serve_keeper(std::io::stdin());
            Ok(0)
        }
    }
}
