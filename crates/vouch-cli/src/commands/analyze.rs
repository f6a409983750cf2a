//! `vouch analyze`: evaluate one test against a recorded session log.

use std::path::PathBuf;

use clap::Args;

use crate::commands::format::Format;
use crate::commands::project::{grader, pipeline_config, project, warn_of_cache};
use crate::commands::tests_run::{execute, report};
use crate::error::CommandError;
use crate::render::config_errors;
use crate::ui::Ui;

/// Evaluate a test's assertions against a recorded session log
///
/// Loads TEST (a `*.vouch.yaml` or `*.aptitude.yaml` file) and evaluates every assertion on
/// LOG (Claude Code or Codex JSONL, chat messages, or vouch JSONL; subagents included) instead
/// of running the agent. Gates read their artifacts under `--workdir`; `stdout:` reviews grade
/// the log's final answer with the graders of `vouch.yaml` (found as `vouch test` finds it,
/// from TEST's folder).
///
/// Exit codes: 0 every assertion held, 1 one failed, 2 the test or the log could not be read.
#[derive(Debug, Args)]
pub(crate) struct AnalyzeArgs {
    /// The test file
    #[arg(value_name = "TEST")]
    test: PathBuf,

    /// The session log
    #[arg(value_name = "LOG")]
    log: PathBuf,

    /// Where the session's artifacts are, for gates (default: the test's `workdir`, or its
    /// folder)
    #[arg(long, value_name = "DIR")]
    workdir: Option<PathBuf>,

    /// Output format (what `json` prints: docs/json-output.md)
    #[arg(long, value_enum, default_value = "human")]
    format: Format,

    /// Also write the results as JUnit XML to this file
    #[arg(long, value_name = "FILE")]
    junit: Option<PathBuf>,

    /// Also write the results, and the session the rows point into, as one self-contained
    /// HTML report to this file
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,

    /// The configuration (`graders:`, `cache:`, and the gates' sections)
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,

    /// Grade every review again: neither read nor write the grading cache
    #[arg(long)]
    no_cache: bool,
}

/// Runs `vouch analyze`.
pub(crate) fn run(args: &AnalyzeArgs, ui: &mut Ui) -> Result<u8, CommandError> {
    let mut test =
        vouch_harness::load_test(&args.test).map_err(|e| config_errors::report(&e, ui))?;
    for w in &test.warnings {
        ui.warn(format_args!("{}:{}: {w}", test.path.display(), w.location));
    }
    if !args.log.is_file() {
        return Err(CommandError::input(format!(
            "cannot read `{}`: no such file",
            args.log.display()
        )));
    }
    test.session = Some(args.log.clone());
    if let Some(w) = &args.workdir {
        test.workdir = Some(w.clone());
    }
    let project = project(args.config.as_ref(), std::slice::from_ref(&args.test), ui)?;
    let pipeline = pipeline_config(project.path.as_deref(), ui)?;
    let grader = grader(&project, args.no_cache, std::slice::from_ref(&test), ui)?;
    let (results, wall) = execute(
        std::slice::from_ref(&test),
        1,
        false,
        &pipeline,
        &grader,
        false,
    );
    warn_of_cache(grader.judge(), ui);
    if let Some(error) = results
        .first()
        .and_then(|t| t.runs.first())
        .and_then(|r| r.error.clone())
    {
        return Err(CommandError::input(error));
    }
    report(
        &results,
        wall,
        args.format,
        args.junit.as_ref(),
        args.html.as_ref(),
        ui,
    )
}
