//! Running loaded tests and reporting their results: shared by `vouch test` and `vouch analyze`.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::time::Instant;

use vouch_gate::PipelineConfig;
use vouch_harness::TestFile;
use vouch_harness::grading::JudgeGrader;
use vouch_harness::suite::{self, Progress, RunOptions};

use crate::commands::format::Format;
use crate::error::CommandError;
use crate::exit_codes;
use crate::render::tests as render;
use crate::ui::Ui;

/// Runs `tests`, with a progress bar on a terminal.
pub(crate) fn execute(
    tests: &[TestFile],
    jobs: usize,
    human: bool,
    pipeline: &PipelineConfig,
    grader: &JudgeGrader,
    confined: bool,
) -> (Vec<vouch_harness::TestResult>, std::time::Duration) {
    let total: u64 = tests
        .iter()
        .map(|t| {
            if t.session.is_some() {
                1
            } else {
                u64::from(t.repeat)
            }
        })
        .sum();
    let bar = (human && std::io::stderr().is_terminal() && total > 1).then(|| {
        let bar = indicatif::ProgressBar::new(total);
        bar.set_style(
            indicatif::ProgressStyle::with_template("{spinner} {pos}/{len} runs {wide_msg}")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        bar
    });
    let progress = |event: Progress<'_>| {
        if let Some(bar) = &bar {
            match event {
                Progress::Started { test, .. } => bar.set_message(test.name.clone()),
                Progress::Finished { .. } => bar.inc(1),
            }
        }
    };
    let runners = move |agent: &vouch_harness::spec::AgentKind| {
        vouch_harness::runner::runner_for_confined(agent, confined)
    };
    let options = RunOptions::new(jobs, pipeline, grader, &progress).with_runners(&runners);
    let started = Instant::now();
    let results = suite::run(tests, &options);
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    (results, started.elapsed())
}

/// Prints the results and returns the exit code.
pub(crate) fn report(
    results: &[vouch_harness::TestResult],
    wall: std::time::Duration,
    format: Format,
    junit: Option<&PathBuf>,
    html: Option<&PathBuf>,
    ui: &mut Ui,
) -> Result<u8, CommandError> {
    if let Some(path) = html {
        crate::render::html::write_report(
            ui,
            path,
            &crate::render::html::tests_page(results, wall),
        )?;
    }
    if let Some(path) = junit {
        let xml = vouch_harness::junit::to_junit(results)
            .map_err(|e| CommandError::input(format!("could not write JUnit XML: {e}")))?;
        std::fs::write(path, xml)
            .map_err(|e| CommandError::input(format!("cannot write `{}`: {e}", path.display())))?;
    }
    match format {
        Format::Json => {
            serde_json::to_writer_pretty(&mut ui.out, results).map_err(std::io::Error::from)?;
            writeln!(ui.out)?;
        }
        Format::Human => {
            let (mut out, styles) = ui.human();
            render::write(&mut out, styles, results, wall)?;
        }
    }
    Ok(if results.iter().all(|t| t.passed) {
        exit_codes::PASS
    } else {
        exit_codes::CHECK_FAILED
    })
}
