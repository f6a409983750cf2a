//! `vouch judge calibrate`: a grader and a threshold against cases with known verdicts.

use std::io::Write;
use std::path::PathBuf;

use clap::{Args, Subcommand};
use vouch_judge::calibrate::{self, Calibration, Expect};
use vouch_judge::registry::unknown_grader;

use crate::commands::format::Format;
use crate::commands::project::{judge, project, warn_of_cache};
use crate::error::CommandError;
use crate::exit_codes;
use crate::ui::Ui;

/// A `vouch judge` command.
#[derive(Debug, Subcommand)]
pub(crate) enum JudgeCommand {
    Calibrate(CalibrateArgs),
}

/// See whether a grader and a threshold can be trusted: grade cases whose verdicts you know
///
/// CASES is a YAML file: optional `grader`, `model`, `threshold` (7) and `samples` (1), and
/// `cases`, each with `criteria`, `output`, `expect: pass|fail` and an optional `name`.
/// Prints each case's score against its expected verdict, the agreement, the confusion matrix
/// (a false pass is a judge that was lenient, or talked into it), and the threshold that would
/// have agreed most. Gradings are cached like a test's.
///
/// Exit codes: 0 done (and the agreement reached `--min-agreement`, when given), 1 a case
/// could not be graded or the agreement fell short, 2 the cases or the configuration could
/// not be read.
#[derive(Debug, Args)]
pub(crate) struct CalibrateArgs {
    /// The cases file
    #[arg(value_name = "CASES")]
    cases: PathBuf,

    /// The grader, by name (default: the file's, else the configuration's default)
    #[arg(long, value_name = "NAME")]
    grader: Option<String>,

    /// The threshold (default: the file's, else 7)
    #[arg(long, value_name = "1-10", value_parser = clap::value_parser!(u8).range(1..=10))]
    threshold: Option<u8>,

    /// Fail (exit 1) when the agreement is below this share, 0 to 1
    #[arg(long, value_name = "SHARE")]
    min_agreement: Option<f64>,

    /// The configuration holding `graders:`
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,

    /// Grade every case again: neither read nor write the grading cache
    #[arg(long)]
    no_cache: bool,

    /// Output format (what `json` prints: docs/json-output.md)
    #[arg(long, value_enum, default_value = "human")]
    format: Format,
}

/// Runs a `vouch judge` command.
pub(crate) fn run(command: &JudgeCommand, ui: &mut Ui) -> Result<u8, CommandError> {
    let JudgeCommand::Calibrate(args) = command;
    let cases = calibrate::load(&args.cases).map_err(|e| CommandError::input(e.to_string()))?;
    let project = project(args.config.as_ref(), std::slice::from_ref(&args.cases), ui)?;
    let grader = judge(&project, args.no_cache)?;
    let name = args
        .grader
        .as_deref()
        .or(cases.grader.as_deref())
        .unwrap_or(grader.judge().default_grader());
    if let Some(problem) = unknown_grader(grader.judge(), name) {
        return Err(CommandError::input(problem));
    }
    let result = grader.block_on(calibrate::calibrate(
        grader.judge(),
        &cases,
        args.grader.as_deref(),
        args.threshold,
    ));
    warn_of_cache(grader.judge(), ui);
    match args.format {
        Format::Json => {
            serde_json::to_writer_pretty(&mut ui.out, &result).map_err(std::io::Error::from)?;
            writeln!(ui.out)?;
        }
        Format::Human => write_human(&result, ui)?,
    }
    let short = args.min_agreement.is_some_and(|min| result.agreement < min);
    Ok(if result.errors > 0 || short {
        exit_codes::CHECK_FAILED
    } else {
        exit_codes::PASS
    })
}

fn write_human(c: &Calibration, ui: &mut Ui) -> std::io::Result<()> {
    let (mut out, s) = ui.human();
    let (pass, fail, dim) = (s.pass, s.fail, s.dim);
    writeln!(
        out,
        "grader {} ({}), threshold {}, {} cases",
        c.grader,
        c.model,
        c.threshold,
        c.cases.len()
    )?;
    let width = c
        .cases
        .iter()
        .map(|r| r.name.chars().count())
        .max()
        .unwrap_or(0);
    for r in &c.cases {
        let expected = match r.expect {
            Expect::Pass => "pass",
            Expect::Fail => "fail",
        };
        match (r.agrees, r.graded.score) {
            (Some(agrees), Some(score)) => {
                let got = if r.graded.passed() { "pass" } else { "fail" };
                let (mark, st) = if agrees { ("✓", pass) } else { ("✗", fail) };
                let which = match (agrees, got) {
                    (true, _) => String::new(),
                    (false, "pass") => " (false pass)".to_owned(),
                    (false, _) => " (false fail)".to_owned(),
                };
                let cached = if r.graded.cached() > 0 {
                    format!(" {dim}cached{dim:#}")
                } else {
                    String::new()
                };
                writeln!(
                    out,
                    "  {st}{mark}{st:#} {:<width$}  expected {expected}, scored {score} → {got}{which}{cached}",
                    r.name
                )?;
            }
            _ => writeln!(
                out,
                "  {fail}!{fail:#} {:<width$}  could not be graded: {}",
                r.name, r.graded.reasoning
            )?,
        }
    }
    let judged = c.cases.iter().filter(|r| r.agrees.is_some()).count();
    let agreed = c.cases.iter().filter(|r| r.agrees == Some(true)).count();
    writeln!(
        out,
        "\nagreement {agreed}/{judged} ({:.0}%)",
        c.agreement * 100.0
    )?;
    let m = c.confusion;
    writeln!(out, "                 graded pass  graded fail")?;
    writeln!(
        out,
        "  expected pass  {:>11}  {:>11}",
        m.true_pass, m.false_fail
    )?;
    writeln!(
        out,
        "  expected fail  {:>11}  {:>11}",
        m.false_pass, m.true_fail
    )?;
    if c.errors > 0 {
        writeln!(out, "{fail}{} could not be graded{fail:#}", c.errors)?;
    }
    if let Some((t, share)) = c.best_threshold {
        writeln!(
            out,
            "the threshold that agrees most with these scores: {t} ({:.0}%)",
            share * 100.0
        )?;
    }
    Ok(())
}
