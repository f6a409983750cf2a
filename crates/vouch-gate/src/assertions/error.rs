//! Why a pattern or a tool name of an assertion cannot be used.

/// A pattern or a tool name an assertion cannot use; the message names it and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct PatternError {
    message: String,
}

impl PatternError {
    /// Returns the error saying `message`.
    pub(crate) fn new(message: impl Into<String>) -> PatternError {
        PatternError {
            message: message.into(),
        }
    }
}
