//! What the `vouch tasks` commands share: reading a task document named on the command line
//! (`-` for standard input), and the output format.

use std::io::Read;
use std::path::Path;

use crate::error::CommandError;

pub(crate) use crate::commands::format::Format;

/// Reads the document at `path`; `-` reads standard input.
pub(crate) fn read(path: &Path) -> Result<String, CommandError> {
    let mut text = String::new();
    let read = if path.as_os_str() == "-" {
        std::io::stdin()
            .lock()
            .read_to_string(&mut text)
            .map(|_| ())
    } else {
        std::fs::read_to_string(path).map(|t| text = t)
    };
    read.map_err(|e| CommandError::input(format!("cannot read `{}`: {e}", path.display())))?;
    Ok(text)
}

/// Returns how a report names the document.
pub(crate) fn display(path: &Path) -> String {
    if path.as_os_str() == "-" {
        "<stdin>".to_owned()
    } else {
        path.display().to_string()
    }
}
