//! Configuration errors shown the way a compiler shows them: each at its place in the file,
//! with the line and a mark under the key.

use crate::error::CommandError;
use crate::ui::Ui;
use std::io::{self, Write};

use miette::{Diagnostic, GraphicalReportHandler, GraphicalTheme, NamedSource, SourceSpan};
use vouch_gate::{ConfigError, ConfigErrors};

/// One error, as miette renders it.
#[derive(Debug, thiserror::Error, Diagnostic)]
#[error("{message}")]
struct Shown {
    message: String,
    #[source_code]
    src: NamedSource<String>,
    #[label("{label}")]
    span: Option<SourceSpan>,
    label: String,
    #[help]
    help: Option<String>,
}

/// Writes every error of a configuration file, with the summary line first.
pub(crate) fn write(out: &mut impl Write, errors: &ConfigErrors, color: bool) -> io::Result<()> {
    let count = errors.errors.len();
    writeln!(
        out,
        "error: `{}` has {} {}",
        errors.path.display(),
        count,
        if count == 1 { "problem" } else { "problems" }
    )?;
    let theme = if color {
        GraphicalTheme::unicode()
    } else {
        GraphicalTheme::unicode_nocolor()
    };
    let handler = GraphicalReportHandler::new_themed(theme).with_width(100);
    for e in &errors.errors {
        let shown = shown(errors, e);
        let mut text = String::new();
        if handler.render_report(&mut text, &shown).is_err() || errors.source_text.is_empty() {
            writeln!(out, "{}:{}: {e}", errors.path.display(), e.location)?;
            continue;
        }
        writeln!(
            out,
            "{}:{}: {}",
            errors.path.display(),
            e.location,
            e.message
        )?;
        out.write_all(text.as_bytes())?;
    }
    Ok(())
}

fn shown(errors: &ConfigErrors, e: &ConfigError) -> Shown {
    let span = e
        .location
        .offset
        .map(|offset| SourceSpan::from((offset, e.location.len.unwrap_or(1).max(1))));
    Shown {
        message: e.message.clone(),
        src: NamedSource::new(
            errors.path.display().to_string(),
            errors.source_text.clone(),
        ),
        span,
        label: if e.key_path.is_empty() {
            "here".to_owned()
        } else {
            e.key_path.clone()
        },
        help: e.hint.clone(),
    }
}

/// Prints every problem of `errors` to standard error, in colour when it is a terminal, and
/// returns the error that ends the command (its problems already shown).
pub(crate) fn report(errors: &ConfigErrors, ui: &mut Ui) -> CommandError {
    let color = ui.err_color;
    let _ = write(&mut ui.err, errors, color);
    CommandError::reported()
}

/// Writes the warnings of the configuration at `path`: keys read and not used.
pub(crate) fn write_warnings(
    out: &mut impl Write,
    path: &std::path::Path,
    warnings: &[vouch_gate::ConfigError],
) -> io::Result<()> {
    for w in warnings {
        writeln!(
            out,
            "{}:{}:{}: warning: {}",
            path.display(),
            w.location.line,
            w.location.column,
            w.message
        )?;
    }
    Ok(())
}
