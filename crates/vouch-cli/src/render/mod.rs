//! Human renderings of library results.

pub(crate) mod stats;
pub(crate) mod text;
pub(crate) mod timeline;
