//! Finding tests, and running them: each run in a fresh directory, recorded sessions read
//! instead of running an agent, runs spread over threads, repeats judged by a pass rate.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use globset::{Glob, GlobSet, GlobSetBuilder};
use rayon::prelude::*;
use serde::Serialize;
use vouch_gate::PipelineConfig;
use vouch_gate::yaml::{Node, parse_yaml};

use crate::config::{CONFIG_NAMES, TestConfig};
use crate::error::Error;
use crate::evaluate::{Grader, Row, evaluate};
use crate::runner::{AgentRun, AgentRunner, runner_for};
use crate::spec::{AgentKind, Setup, TestFile};

/// Finds the test files under `paths` (files are taken as they are), sorted, each once.
pub fn discover(paths: &[PathBuf], config: &TestConfig) -> Result<Vec<PathBuf>, Error> {
    let mut builder = GlobSetBuilder::new();
    for p in &config.patterns {
        builder.add(Glob::new(p).map_err(|e| Error::Pattern {
            pattern: p.clone(),
            reason: e.kind().to_string(),
        })?);
    }
    let set = builder.build().map_err(|e| Error::Pattern {
        pattern: config.patterns.join(", "),
        reason: e.to_string(),
    })?;
    let mut found = Vec::new();
    for path in paths {
        if path.is_dir() {
            walk(path, &set, config, &mut found)?;
        } else if path.is_file() {
            found.push(path.clone());
        } else {
            return Err(Error::NoSuchPath(path.clone()));
        }
    }
    // Found under `.`, a file is named from here: `a.vouch.yaml`, not `./a.vouch.yaml`.
    let mut found: Vec<PathBuf> = found
        .into_iter()
        .map(|p| p.strip_prefix(".").map(Path::to_path_buf).unwrap_or(p))
        .collect();
    found.sort();
    found.dedup();
    Ok(found)
}

/// Adds the test files beneath `dir` to `found`; a folder that cannot be read is an error, not
/// a folder without tests.
fn walk(
    dir: &Path,
    set: &GlobSet,
    config: &TestConfig,
    found: &mut Vec<PathBuf>,
) -> Result<(), Error> {
    let unreadable = |e: std::io::Error| Error::UnreadableFolder {
        path: dir.to_path_buf(),
        reason: e.to_string(),
    };
    let mut entries = std::fs::read_dir(dir)
        .map_err(unreadable)?
        .map(|e| e.map(|e| e.path()))
        .collect::<Result<Vec<_>, _>>()
        .map_err(unreadable)?;
    entries.sort();
    for path in entries {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if config.exclude.iter().any(|e| e == &name) {
            continue;
        }
        if path.is_dir() {
            walk(&path, set, config, found)?;
        } else if set.is_match(&name) && !CONFIG_NAMES.contains(&name.as_str()) && is_test(&path) {
            found.push(path);
        }
    }
    Ok(())
}

/// Returns true for a YAML mapping with `assertions` (a configuration that happens to match a
/// test pattern is not a test).
fn is_test(path: &Path) -> bool {
    let Ok(text) = std::fs::read_to_string(path) else {
        return true;
    };
    match parse_yaml(&text) {
        Ok(root) => match &root.value {
            Node::Map(entries) => entries.iter().any(|(k, _)| k.value == "assertions"),
            _ => false,
        },
        // Broken YAML is reported when the test is loaded.
        Err(_) => true,
    }
}

/// What gives the runner of an agent (default: [`runner_for`], the agents on `PATH`).
pub type Runners = dyn Fn(&AgentKind) -> Result<Box<dyn AgentRunner>, Error> + Sync;

/// How a suite runs.
#[non_exhaustive]
#[expect(
    missing_debug_implementations,
    reason = "it holds closures and trait objects"
)]
pub struct RunOptions<'a> {
    /// Runs at once.
    pub jobs: usize,
    /// The gates' configuration (artifact paths, test selector).
    pub config: &'a PipelineConfig,
    /// The grader of `stdout:` reviews.
    pub grader: &'a dyn Grader,
    /// Told of each run as it starts and ends.
    pub progress: &'a (dyn Fn(Progress<'_>) + Sync),
    /// Returns the runner of an agent (default: [`runner_for`], the agents on `PATH`).
    pub runners: &'a Runners,
}

impl<'a> RunOptions<'a> {
    /// Returns options for `jobs` runs at once.
    pub fn new(
        jobs: usize,
        config: &'a PipelineConfig,
        grader: &'a dyn Grader,
        progress: &'a (dyn Fn(Progress<'_>) + Sync),
    ) -> RunOptions<'a> {
        RunOptions {
            jobs: jobs.max(1),
            config,
            grader,
            progress,
            runners: &runner_for,
        }
    }

    /// Returns these options with agents run by `runners` instead of the ones on `PATH`.
    #[must_use]
    pub fn with_runners(mut self, runners: &'a Runners) -> RunOptions<'a> {
        self.runners = runners;
        self
    }
}

/// A run starting or ending.
#[derive(Debug, Clone, Copy)]
pub enum Progress<'a> {
    /// A run of a test started.
    Started {
        /// The test.
        test: &'a TestFile,
        /// Which run (from 1).
        run: u32,
    },
    /// A run of a test ended.
    Finished {
        /// The test.
        test: &'a TestFile,
        /// Its result.
        result: &'a RunResult,
    },
}

/// One run of a test.
#[derive(Debug, Clone, Serialize)]
#[non_exhaustive]
pub struct RunResult {
    /// Which run (from 1).
    pub run: u32,
    /// The assertions' rows (none when the run failed before evaluating).
    pub rows: Vec<Row>,
    /// Whether the run passed: no error, and every row passed or was skipped.
    pub passed: bool,
    /// Why the run produced no session to evaluate.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The agent's exit code.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// True when the agent ran past its timeout and was killed.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub timed_out: bool,
    /// Where the session was read from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    /// The end of the agent's standard error.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub stderr: String,
    /// When the run started (RFC 3339).
    pub started: String,
    /// How long it took, in seconds.
    pub seconds: f64,
}

/// The result of a test: its runs and the verdict.
#[derive(Debug, Clone, Serialize)]
#[non_exhaustive]
pub struct TestResult {
    /// The test's name.
    pub name: String,
    /// The test file.
    pub path: PathBuf,
    /// The agent.
    pub agent: String,
    /// Its runs.
    pub runs: Vec<RunResult>,
    /// `pass_rate`.
    pub pass_rate: f64,
    /// Whether enough runs passed.
    pub passed: bool,
}

impl TestResult {
    /// Returns how many runs passed.
    pub fn passed_runs(&self) -> usize {
        self.runs.iter().filter(|r| r.passed).count()
    }
}

/// Runs every test; results come back in the order of `tests`, whatever order the runs ended.
pub fn run(tests: &[TestFile], options: &RunOptions<'_>) -> Vec<TestResult> {
    // One job per run; a recorded session is evaluated once, whatever `repeat` says.
    let jobs: Vec<(usize, u32)> = tests
        .iter()
        .enumerate()
        .flat_map(|(t, test)| {
            let runs = if test.session.is_some() {
                1
            } else {
                test.repeat
            };
            (1..=runs).map(move |r| (t, r))
        })
        .collect();
    let workers = options.jobs.min(jobs.len()).max(1);
    let one = |&(t, r): &(usize, u32)| {
        let test = &tests[t];
        (options.progress)(Progress::Started { test, run: r });
        let result = run_once(test, r, options);
        (options.progress)(Progress::Finished {
            test,
            result: &result,
        });
        (t, result)
    };
    // One run at a time runs here, so that reading its log and checking its assertions use
    // every core of the shared pool. More at once run on a pool of `-j` threads of their own
    // (runs wait on agents, not on cores), each run a piece of its own so that `workers` runs
    // are under way whenever that many are left; their own parallel work shares that pool.
    let pool = (workers > 1)
        .then(|| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(workers)
                .thread_name(|i| format!("vouch-run-{i}"))
                .build()
                .map_err(|e| {
                    tracing::warn!(
                        "running tests one at a time: cannot start {workers} threads: {e}"
                    );
                })
                .ok()
        })
        .flatten();
    let mut all: Vec<(usize, RunResult)> = match pool {
        Some(pool) => pool.install(|| jobs.par_iter().with_max_len(1).map(one).collect()),
        None => jobs.iter().map(one).collect(),
    };
    all.sort_by_key(|(t, r)| (*t, r.run));
    tests
        .iter()
        .enumerate()
        .map(|(t, test)| {
            let runs: Vec<RunResult> = all
                .iter()
                .filter(|(i, _)| *i == t)
                .map(|(_, r)| r.clone())
                .collect();
            let count = |n: usize| f64::from(u32::try_from(n).unwrap_or(u32::MAX));
            let passed = count(runs.iter().filter(|r| r.passed).count());
            // A share of runs, compared in whole runs to avoid rounding surprises.
            let needed = (test.pass_rate * count(runs.len()) - 1e-9).ceil().max(0.0);
            TestResult {
                name: test.name.clone(),
                path: test.path.clone(),
                agent: test.agent.as_str().to_owned(),
                pass_rate: test.pass_rate,
                passed: !runs.is_empty() && passed >= needed,
                runs,
            }
        })
        .collect()
}

/// Runs a test once: evaluates its recorded session, or runs its agent in a fresh directory.
pub fn run_once(test: &TestFile, run: u32, options: &RunOptions<'_>) -> RunResult {
    let started = Instant::now();
    let started_at = jiff::Timestamp::now().to_string();
    let finish = |rows: Vec<Row>, agent: AgentRun| {
        let passed = agent.error.is_none() && rows.iter().all(|r| r.passed || r.skipped);
        RunResult {
            run,
            rows,
            passed,
            error: agent.error,
            exit_code: agent.exit_code,
            timed_out: agent.timed_out,
            session: agent.source,
            stderr: agent.stderr,
            started: started_at.clone(),
            seconds: started.elapsed().as_secs_f64(),
        }
    };
    if let Some(log) = &test.session {
        let workdir = test.workdir.clone().unwrap_or_else(|| {
            test.path
                .parent()
                .map_or_else(|| PathBuf::from("."), Path::to_path_buf)
        });
        return match vouch_session::read_path(log, &vouch_session::ReadOptions::default()) {
            Ok(report) => {
                let rows = evaluate(test, &report, &workdir, options.config, options.grader);
                let mut agent = AgentRun::failed("");
                agent.error = None;
                agent.source = Some(log.display().to_string());
                let result = finish(rows, agent);
                drop_in_background(report.session);
                result
            }
            Err(e) => finish(
                Vec::new(),
                AgentRun::failed(format!("could not read the recorded session: {e}")),
            ),
        };
    }
    let runner = match (options.runners)(&test.agent) {
        Ok(runner) => runner,
        Err(e) => return finish(Vec::new(), AgentRun::failed(e.to_string())),
    };
    let dir = match prepare(test) {
        Ok(dir) => dir,
        Err(e) => {
            return finish(
                Vec::new(),
                AgentRun::failed(format!("could not prepare the run's directory: {e}")),
            );
        }
    };
    let agent = runner.run(test, dir.path());
    let rows = match &agent.log {
        Some(log) => evaluate(test, log, dir.path(), options.config, options.grader),
        None => Vec::new(),
    };
    finish(rows, agent)
}

/// Frees a large session on a thread of its own: freeing a hundred thousand calls takes a
/// noticeable share of the time it took to read them, and nothing waits for it.
fn drop_in_background(session: vouch_session::Session) {
    if session.events.len() > 10_000 {
        std::thread::spawn(move || drop(session));
    }
}

/// Makes a fresh directory holding the test's `workdir` and `setup`, so that runs never change
/// the repository.
fn prepare(test: &TestFile) -> std::io::Result<tempfile::TempDir> {
    let dir = tempfile::Builder::new().prefix("vouch-run-").tempdir()?;
    if let Some(workdir) = &test.workdir {
        vouch_process::copy_dir(workdir, dir.path())?;
    }
    for setup in &test.setup {
        match setup {
            Setup::Folder(folder) => vouch_process::copy_dir(folder, dir.path())?,
            Setup::Files(files) => {
                for (path, content) in files {
                    let target = dir.path().join(path);
                    if let Some(parent) = target.parent() {
                        std::fs::create_dir_all(parent)?;
                    }
                    std::fs::write(target, content)?;
                }
            }
        }
    }
    Ok(dir)
}

/// Keeps the tests whose name or path contains `filter` (case ignored).
pub fn filter(tests: Vec<TestFile>, filter: &str) -> Vec<TestFile> {
    let f = filter.to_lowercase();
    tests
        .into_iter()
        .filter(|t| {
            t.name.to_lowercase().contains(&f)
                || t.path.to_string_lossy().to_lowercase().contains(&f)
        })
        .collect()
}

/// Keeps slice `k` of `n` (from 1) of the tests, in the order of their paths: the same tests
/// land in the same slice on every machine.
pub fn partition(mut tests: Vec<TestFile>, k: usize, n: usize) -> Vec<TestFile> {
    tests.sort_by(|a, b| a.path.cmp(&b.path));
    tests
        .into_iter()
        .enumerate()
        .filter(|(i, _)| n > 0 && i % n == k.saturating_sub(1))
        .map(|(_, t)| t)
        .collect()
}

/// The whole suite's time, for reports.
pub fn total(results: &[TestResult]) -> Duration {
    Duration::from_secs_f64(
        results
            .iter()
            .flat_map(|t| &t.runs)
            .map(|r| r.seconds)
            .sum(),
    )
}
