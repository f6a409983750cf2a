//! Why a run could not start or go on.

/// Why a run could not start or go on (not how it ended).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RunError {
    /// The working directory or the run's files could not be used.
    #[error("{0}")]
    Io(String),
    /// A model of the configuration could not be built.
    #[error("{0}")]
    Model(String),
    /// An MCP server of the configuration could not be started, reached or listed.
    #[error("{0}")]
    Mcp(String),
    /// The MCP server `server` could not be started, reached or listed, for `reason`.
    #[error("the MCP server `{server}` could not be used: {reason}")]
    McpServer {
        /// The server's name in the configuration.
        server: String,
        /// What went wrong.
        reason: String,
    },
    /// The run's record does not verify: someone other than the runner changed it.
    #[error("tampering: {0}")]
    Tampered(String),
    /// The run's record could not be written.
    #[error(transparent)]
    Evidence(#[from] vouch_evidence::Error),
}
