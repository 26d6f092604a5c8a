//! Why the server stopped.

/// Why the server stopped.
#[derive(Debug, thiserror::Error)]
pub enum McpError {
    /// The transport could not start or failed.
    #[error("MCP transport: {0}")]
    Transport(String),
    /// The HTTP listener could not be bound or served.
    #[error("{what}: {source}")]
    Io {
        /// What was being done.
        what: String,
        /// The cause.
        source: std::io::Error,
    },
    /// The options are unusable (no token for HTTP...).
    #[error("{0}")]
    Input(String),
}
