//! Errors a command ends with, and how they print: the message, then its causes.

use std::io::Write;

use crate::exit_codes;

/// An error that ends a command, with the exit code it ends with.
#[derive(Debug)]
pub(crate) struct CommandError {
    code: u8,
    /// `None` when the command already printed the error itself.
    error: Option<Box<dyn std::error::Error + Send + Sync>>,
}

impl CommandError {
    /// Returns an input or usage error (exit code 2).
    pub(crate) fn input(error: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> Self {
        CommandError {
            code: exit_codes::INPUT_ERROR,
            error: Some(error.into()),
        }
    }

    /// Returns a failed check (exit code 1): a record that does not verify.
    pub(crate) fn check_failed(error: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> Self {
        CommandError {
            code: exit_codes::CHECK_FAILED,
            error: Some(error.into()),
        }
    }

    /// Returns the error of a run that could not start or go on: tampering with its record
    /// is a failed check (exit code 1), anything else an input error.
    pub(crate) fn run(error: vouch_pipeline::RunError) -> Self {
        match error {
            vouch_pipeline::RunError::Tampered(_) => CommandError::check_failed(error),
            other => CommandError::input(other),
        }
    }

    /// Returns an input error the command has already printed.
    pub(crate) fn reported() -> Self {
        CommandError {
            code: exit_codes::INPUT_ERROR,
            error: None,
        }
    }

    /// Returns the exit code.
    pub(crate) fn code(&self) -> u8 {
        self.code
    }

    /// Prints `error: message` and a `caused by:` line per cause.
    pub(crate) fn print(&self, out: &mut impl Write, styles: &crate::ui::Styles) {
        let Some(error) = &self.error else { return };
        let s = styles.error;
        let _ = writeln!(out, "{s}error:{s:#} {error}");
        let mut source = error.source();
        while let Some(cause) = source {
            let _ = writeln!(out, "  caused by: {cause}");
            source = cause.source();
        }
    }

    /// Returns true when the error is a closed stdout (`vouch … | head`), which is not a
    /// failure.
    pub(crate) fn is_broken_pipe(&self) -> bool {
        let Some(error) = &self.error else {
            return false;
        };
        let mut source: Option<&(dyn std::error::Error + 'static)> = Some(error.as_ref());
        while let Some(e) = source {
            if e.downcast_ref::<std::io::Error>()
                .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
            {
                return true;
            }
            source = e.source();
        }
        false
    }
}

impl From<vouch_session::Error> for CommandError {
    fn from(e: vouch_session::Error) -> Self {
        CommandError::input(e)
    }
}

impl From<vouch_evidence::Error> for CommandError {
    fn from(e: vouch_evidence::Error) -> Self {
        CommandError::input(e)
    }
}

impl From<std::io::Error> for CommandError {
    fn from(e: std::io::Error) -> Self {
        CommandError::input(e)
    }
}
