//! What can go wrong asking a model.

use std::time::Duration;

/// Why a model gave no reply.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The server answered with an error status (after any retries).
    #[error("{provider} answered {status}: {message}")]
    Status {
        /// The provider, as messages name it.
        provider: String,
        /// The HTTP status.
        status: u16,
        /// The error message of the body, or the start of the body.
        message: String,
    },
    /// No answer within the time allowed (after any retries).
    #[error("{provider} did not answer within {}s", .after.as_secs_f64())]
    Timeout {
        /// The provider.
        provider: String,
        /// The time allowed per attempt.
        after: Duration,
    },
    /// The server could not be reached (after any retries).
    #[error("cannot reach {provider}: {message}")]
    Connect {
        /// The provider.
        provider: String,
        /// Why.
        message: String,
    },
    /// The server's answer is not in its wire format.
    #[error("{provider} sent an answer vouch cannot read: {message}")]
    Decode {
        /// The provider.
        provider: String,
        /// What is wrong with it.
        message: String,
    },
    /// An agent CLI failed: not found, exited with an error, or printed nothing.
    #[error("{0}")]
    Process(String),
    /// The client is not configured to be usable (no model, no key, no file).
    #[error("{0}")]
    Config(String),
    /// The provider's own endpoint would be asked without a key: the variable holding it is
    /// not set.
    #[error("the environment variable {var} is not set")]
    MissingKey {
        /// The environment variable the key is read from.
        var: String,
    },
}

impl Error {
    /// Returns true when trying again may help: a rate limit, an overloaded or failing server,
    /// a timeout, a connection that failed.
    pub fn is_transient(&self) -> bool {
        match self {
            Error::Status { status, .. } => *status == 429 || *status >= 500,
            Error::Timeout { .. } | Error::Connect { .. } => true,
            Error::Decode { .. }
            | Error::Process(_)
            | Error::Config(_)
            | Error::MissingKey { .. } => false,
        }
    }
}
