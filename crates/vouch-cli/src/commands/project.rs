//! The project a command works in: its `vouch.yaml` (found as `vouch test --help` says), the
//! graders it configures and the gates' sections, shared by `vouch test`, `analyze`, `judge`
//! and `cache`.

use std::path::PathBuf;

use vouch_gate::PipelineConfig;
use vouch_harness::TestFile;
use vouch_harness::config::{self, ProjectConfig};
use vouch_harness::grading::{JudgeGrader, unknown_graders};
use vouch_judge::Judge;
use vouch_judge::registry::{self, BlockingJudge};

use crate::error::CommandError;
use crate::render::config_errors;
use crate::ui::Ui;

/// Reads the project's configuration (see `vouch test --help` for where it is found).
pub(crate) fn project(
    explicit: Option<&PathBuf>,
    paths: &[PathBuf],
    ui: &mut Ui,
) -> Result<ProjectConfig, CommandError> {
    let path = config::find(explicit.map(PathBuf::as_path), paths);
    if let Some(p) = explicit
        && !p.is_file()
    {
        return Err(CommandError::input(format!(
            "cannot read `{}`: no such file",
            p.display()
        )));
    }
    config::load(path.as_deref()).map_err(|e| config_errors::report(&e, ui))
}

/// Builds the judge of `project`'s graders, on a runtime of its own.
pub(crate) fn judge(
    project: &ProjectConfig,
    no_cache: bool,
) -> Result<BlockingJudge, CommandError> {
    let judge = registry::build(&project.grading, no_cache)
        .map_err(|e| CommandError::input(e.to_string()))?;
    BlockingJudge::new(judge)
        .map_err(|e| CommandError::input(format!("cannot start the graders: {e}")))
}

/// Builds the grader of `project`'s reviews; a review of `tests` naming a grader that does not
/// exist stops everything here, before any agent runs.
pub(crate) fn grader(
    project: &ProjectConfig,
    no_cache: bool,
    tests: &[TestFile],
    ui: &mut Ui,
) -> Result<JudgeGrader, CommandError> {
    let judge = judge(project, no_cache)?;
    let unknown = unknown_graders(tests, judge.judge());
    if !unknown.is_empty() {
        for problem in &unknown {
            ui.error(problem);
        }
        return Err(CommandError::reported());
    }
    Ok(JudgeGrader::from(judge))
}

/// Warns, once, of a problem the grading cache had (gradings were made without it).
pub(crate) fn warn_of_cache(judge: &Judge, ui: &mut Ui) {
    if let Some(problem) = judge.cache_problem() {
        ui.warn(problem);
    }
}

/// Returns the gates' configuration: the pipeline sections of `vouch.yaml` (artifact paths, the
/// test selector), or the defaults when there is no such file.
pub(crate) fn pipeline_config(
    path: Option<&std::path::Path>,
    ui: &mut Ui,
) -> Result<PipelineConfig, CommandError> {
    let Some(path) = path.filter(|p| p.is_file()) else {
        return Ok(PipelineConfig::empty(std::path::Path::new(
            config::CONFIG_FILE,
        )));
    };
    vouch_gate::load_config(path).map_err(|e| config_errors::report(&e, ui))
}
