//! Human renderings of library results.

pub(crate) mod config_errors;
pub(crate) mod html;
pub(crate) mod stats;
pub(crate) mod tasks;
pub(crate) mod tests;
pub(crate) mod text;
pub(crate) mod timeline;
