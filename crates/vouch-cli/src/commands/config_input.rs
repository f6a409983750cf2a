//! Loading a pipeline configuration for a command, with its errors shown at their places.

use std::path::Path;

use vouch_gate::GateSet;

use crate::error::CommandError;
use crate::render::config_errors;
use crate::ui::Ui;

/// Loads the gates of the configuration at `path`, with strict evidence on when `strict` is
/// true whatever the configuration says; every problem is printed to stderr.
pub(crate) fn load_gates(path: &Path, strict: bool, ui: &mut Ui) -> Result<GateSet, CommandError> {
    GateSet::load_with_strict(path, strict).map_err(|errors| config_errors::report(&errors, ui))
}
