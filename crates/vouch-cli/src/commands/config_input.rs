//! Loading a pipeline configuration for a command, with its errors shown at their places.

use std::path::Path;

use vouch_gate::GateSet;

use crate::error::CommandError;
use crate::render::config_errors;
use crate::ui::Ui;

/// Loads the gates of the configuration at `path`; every problem is printed to stderr.
pub(crate) fn load_gates(path: &Path, ui: &mut Ui) -> Result<GateSet, CommandError> {
    GateSet::load(path).map_err(|errors| config_errors::report(&errors, ui))
}
