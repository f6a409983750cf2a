//! Where output goes and how it looks: buffered stdout for results, stderr for status, colours
//! only on a terminal (and never with `NO_COLOR`), one [`Styles`] value for every colour.

use std::io::{self, BufWriter, Write};

use anstream::{AutoStream, ColorChoice};
use anstyle::{AnsiColor, Effects, Style};

/// When to colour output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum ColorWhen {
    /// Colour on a terminal, unless `NO_COLOR` is set.
    Auto,
    /// Always colour.
    Always,
    /// Never colour.
    Never,
}

/// A byte buffer several writers share: what a captured command wrote.
#[derive(Debug, Clone, Default)]
pub(crate) struct SharedBuf(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

impl SharedBuf {
    /// Returns what was written, as text.
    pub(crate) fn text(&self) -> String {
        let bytes = self.0.lock().map(|b| b.clone()).unwrap_or_default();
        String::from_utf8_lossy(&bytes).into_owned()
    }
}

impl Write for SharedBuf {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0
            .lock()
            .map_err(|_| io::Error::other("a writer panicked"))?
            .extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The two output streams and the styles to write with.
pub(crate) struct Ui {
    /// Results: the timeline, the report, the JSON document. Write human output through
    /// [`Ui::human`] so that colours follow the user's choice.
    pub(crate) out: Box<dyn Write>,
    out_choice: ColorChoice,
    /// Status, warnings and errors.
    pub(crate) err: AutoStream<Box<dyn Write>>,
    /// Whether stderr is coloured.
    pub(crate) err_color: bool,
    /// The styles.
    pub(crate) styles: Styles,
}

impl Ui {
    /// Returns the UI for this process's stdout and stderr.
    pub(crate) fn new(color: ColorWhen) -> Ui {
        let choice = |auto: ColorChoice| match color {
            ColorWhen::Auto => auto,
            ColorWhen::Always => ColorChoice::Always,
            ColorWhen::Never => ColorChoice::Never,
        };
        let out_choice = choice(AutoStream::choice(&io::stdout()));
        let err_choice = choice(AutoStream::choice(&io::stderr()));
        let out: Box<dyn Write> = Box::new(BufWriter::with_capacity(1 << 16, io::stdout().lock()));
        let err: Box<dyn Write> = Box::new(io::stderr());
        Ui {
            out,
            out_choice,
            err: AutoStream::new(err, err_choice),
            err_color: !matches!(err_choice, ColorChoice::Never),
            styles: Styles::default(),
        }
    }

    /// Returns a UI whose two streams are kept in memory (`vouch mcp` runs commands with it),
    /// and the buffers: results, then status.
    pub(crate) fn captured() -> (Ui, SharedBuf, SharedBuf) {
        let (out, err) = (SharedBuf::default(), SharedBuf::default());
        let ui = Ui {
            out: Box::new(out.clone()),
            out_choice: ColorChoice::Never,
            err: AutoStream::new(Box::new(err.clone()), ColorChoice::Never),
            err_color: false,
            styles: Styles::default(),
        };
        (ui, out, err)
    }

    /// Returns the result stream for human output: styles become colours on a terminal and
    /// are stripped elsewhere.
    pub(crate) fn human(&mut self) -> (AutoStream<&mut (dyn Write + 'static)>, &Styles) {
        (
            AutoStream::new(&mut *self.out, self.out_choice),
            &self.styles,
        )
    }

    /// Returns true when human output on stdout is coloured.
    pub(crate) fn out_color(&self) -> bool {
        !matches!(self.out_choice, ColorChoice::Never)
    }

    /// Writes an error line to stderr (for one of several problems reported before failing).
    pub(crate) fn error(&mut self, message: impl std::fmt::Display) {
        let s = self.styles.error;
        let _ = writeln!(self.err, "{s}error:{s:#} {message}");
    }

    /// Writes a status line to stderr (what was done, for people; never a result).
    pub(crate) fn status(&mut self, message: impl std::fmt::Display) {
        let _ = writeln!(self.err, "{message}");
    }

    /// Writes a warning line to stderr.
    pub(crate) fn warn(&mut self, message: impl std::fmt::Display) {
        let s = self.styles.warning;
        let _ = writeln!(self.err, "{s}warning:{s:#} {message}");
    }
}

/// Every style vouch prints with.
#[derive(Debug, Clone)]
pub(crate) struct Styles {
    pub(crate) error: Style,
    pub(crate) warning: Style,
    pub(crate) heading: Style,
    pub(crate) dim: Style,
    pub(crate) user: Style,
    pub(crate) assistant: Style,
    pub(crate) tool: Style,
    pub(crate) pass: Style,
    pub(crate) fail: Style,
}

impl Default for Styles {
    fn default() -> Styles {
        let fg = |c: AnsiColor| Style::new().fg_color(Some(c.into()));
        Styles {
            error: fg(AnsiColor::Red).effects(Effects::BOLD),
            warning: fg(AnsiColor::Yellow).effects(Effects::BOLD),
            heading: Style::new().effects(Effects::BOLD),
            dim: Style::new().effects(Effects::DIMMED),
            user: fg(AnsiColor::Cyan).effects(Effects::BOLD),
            assistant: fg(AnsiColor::Magenta),
            tool: Style::new().effects(Effects::BOLD),
            pass: fg(AnsiColor::Green),
            fail: fg(AnsiColor::Red).effects(Effects::BOLD),
        }
    }
}

/// Returns `n` with the singular or plural form of a noun (`1 call`, `2 calls`).
pub(crate) fn plural(n: usize, singular: &str, plural: &str) -> String {
    format!("{n} {}", if n == 1 { singular } else { plural })
}
