//! `vouch test`: run agent tests.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;
use vouch_gate::ConfigErrors;
use vouch_harness::TestFile;
use vouch_harness::config::TestConfig;
use vouch_harness::suite;

use crate::commands::format::Format;
use crate::commands::project::{grader, pipeline_config, project, warn_of_cache};
use crate::commands::tests_run::{execute, report};
use crate::error::CommandError;
use crate::exit_codes;
use crate::render::config_errors;
use crate::ui::Ui;

/// Run agent tests: YAML tests that run a coding agent, or read a session it recorded
///
/// Finds the tests under PATHS (`*.vouch.yaml`, and the peer's `*.aptitude.yaml`; the `tests:`
/// section of `vouch.yaml` can change the patterns and excludes), loads every one — a test
/// with an unknown key, an invalid pattern or contradictory counts stops the run before
/// anything starts — and runs them: a test with a recorded `session:` is evaluated on it; any
/// other runs its agent (`claude`, `codex`, found on PATH) in a fresh directory holding its
/// setup, `repeat` times, and passes when `pass_rate` of the runs pass. `stdout:` reviews are
/// graded by the graders of `vouch.yaml` (`graders:`, `default_grader:`; `claude` otherwise),
/// each grading kept in `.vouch/cache.db` beside it and replayed on later runs.
///
/// The configuration is `--config`, else the nearest `vouch.yaml` in the first PATH's folder
/// or above it, else `vouch.yaml` here. With no PATH, the tests are those of the `tests.paths`
/// of `vouch.yaml` here (this repository's: `examples/`), else the current folder's.
///
/// Exit codes: 0 every test passed, 1 a test failed (a missing agent or a timeout included),
/// 2 a test could not be loaded, no test was found, or bad usage.
#[derive(Debug, Args)]
pub(crate) struct TestArgs {
    /// Test files, or folders to search (default: the `tests.paths` of `vouch.yaml` here, else
    /// the current folder)
    #[arg(value_name = "PATH")]
    paths: Vec<PathBuf>,

    /// Run the agent CLIs in the kernel's sandbox: they write only in the test's folder and
    /// their own state, read only the system's and their own folders (the network stays open:
    /// their model is there); a machine that cannot enforce it fails the runs
    #[arg(long)]
    sandbox: bool,

    /// The configuration (`tests:`, `graders:`, `cache:`, and the gates' sections)
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,

    /// Grade every review again: neither read nor write the grading cache
    #[arg(long)]
    no_cache: bool,

    /// Only the tests whose name or path contains this (case ignored)
    #[arg(long, value_name = "TEXT")]
    filter: Option<String>,

    /// How many runs at once (default: the number of cores)
    #[arg(short = 'j', long, value_name = "N")]
    jobs: Option<usize>,

    /// Run slice K of N of the tests (by path; the same slice on every machine), for CI
    /// matrices
    #[arg(long, value_name = "K/N", value_parser = parse_partition)]
    partition: Option<(usize, usize)>,

    /// List the tests that would run, and stop
    #[arg(long)]
    list: bool,

    /// Output format (what `json` prints: docs/json-output.md)
    #[arg(long, value_enum, default_value = "human")]
    format: Format,

    /// Also write the results as JUnit XML to this file
    #[arg(long, value_name = "FILE")]
    junit: Option<PathBuf>,
    /// Also write the results as one self-contained HTML report to this file
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
}

fn parse_partition(s: &str) -> Result<(usize, usize), String> {
    let (k, n) = s.split_once('/').ok_or("expected K/N, as 2/4")?;
    let (k, n): (usize, usize) = (
        k.trim().parse().map_err(|_| "K is not a number")?,
        n.trim().parse().map_err(|_| "N is not a number")?,
    );
    if n == 0 || k == 0 || k > n {
        return Err(format!("{s}: K must be from 1 to N"));
    }
    Ok((k, n))
}

/// Loads every test of `paths`; prints every problem and fails when one does not load.
pub(crate) fn load_tests(
    paths: &[PathBuf],
    config: &TestConfig,
    ui: &mut Ui,
) -> Result<Vec<TestFile>, CommandError> {
    let files = suite::discover(paths, config).map_err(|e| CommandError::input(e.to_string()))?;
    let mut tests = Vec::new();
    let mut failed: Vec<ConfigErrors> = Vec::new();
    for file in files {
        match vouch_harness::load_test(&file) {
            Ok(test) => {
                for w in &test.warnings {
                    ui.warn(format_args!("{}:{}: {w}", test.path.display(), w.location));
                }
                tests.push(test);
            }
            Err(e) => failed.push(e),
        }
    }
    if !failed.is_empty() {
        let color = ui.err_color;
        for errors in &failed {
            let _ = config_errors::write(&mut ui.err, errors, color);
        }
        return Err(CommandError::reported());
    }
    Ok(tests)
}

/// Where `vouch test` looks when given no path: the `tests.paths` of the configuration here
/// (`--config`, else `vouch.yaml` in the current folder), shown from here; else the current
/// folder.
fn default_paths(explicit: Option<&PathBuf>, ui: &mut Ui) -> Result<Vec<PathBuf>, CommandError> {
    let here = project(explicit, &[], ui)?;
    if here.tests.paths.is_empty() {
        return Ok(vec![PathBuf::from(".")]);
    }
    let cwd = std::env::current_dir().unwrap_or_default();
    let cwd = cwd.canonicalize().unwrap_or(cwd);
    Ok(here
        .tests
        .paths
        .iter()
        .map(|p| {
            p.strip_prefix(&cwd)
                .map_or_else(|_| p.clone(), PathBuf::from)
        })
        .collect())
}

/// Says where no test was found and what a test file is.
fn no_tests(paths: &[PathBuf], config: &TestConfig) -> String {
    let places: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    format!(
        "no tests found in {}: a test is a YAML file with `assertions` named {} (the `tests.patterns` \
         of vouch.yaml); give test files or folders as PATH, or run where a vouch.yaml's \
         `tests.paths` names them",
        places.join(", "),
        config.patterns.join(", ")
    )
}

/// Runs `vouch test`.
pub(crate) fn run(args: &TestArgs, ui: &mut Ui) -> Result<u8, CommandError> {
    let paths = if args.paths.is_empty() {
        default_paths(args.config.as_ref(), ui)?
    } else {
        args.paths.clone()
    };
    let project = project(args.config.as_ref(), &paths, ui)?;
    let mut tests = load_tests(&paths, &project.tests, ui)?;
    if tests.is_empty() {
        // Zero tests passing would read as a green suite: nothing was checked.
        return Err(CommandError::input(no_tests(&paths, &project.tests)));
    }
    if let Some(f) = &args.filter {
        tests = suite::filter(tests, f);
    }
    if let Some((k, n)) = args.partition {
        tests = suite::partition(tests, k, n);
    }
    if args.list {
        for t in &tests {
            writeln!(ui.out, "{}\t{}", t.name, t.path.display())?;
        }
        return Ok(exit_codes::PASS);
    }
    let jobs = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, std::num::NonZero::get));
    let pipeline = pipeline_config(project.path.as_deref(), ui)?;
    let grader = grader(&project, args.no_cache, &tests, ui)?;
    let results = execute(
        &tests,
        jobs,
        args.format == Format::Human,
        &pipeline,
        &grader,
        args.sandbox,
    );
    warn_of_cache(grader.judge(), ui);
    report(
        &results.0,
        results.1,
        args.format,
        args.junit.as_ref(),
        args.html.as_ref(),
        ui,
    )
}
