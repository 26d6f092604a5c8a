//! retrace as a Model Context Protocol server (`retrace mcp`), so a coding agent can ask "does
//! this page still look and behave as it did?" after every step of a refactoring.
//!
//! [`RetraceServer`] answers `tools/list` and `tools/call` for six tools, each declared once
//! in its own module under [`tools`] (name, description, input and output types whose JSON
//! Schemas schemars generates, and the call): `check`, `replay`, `run`, `screenshot`,
//! `list_trajectories` and `approve`. Every tool calls the runner functions the CLI commands
//! call (the rest of this crate), never the binary. A bad argument is a tool error naming it
//! ([`call::ToolError`]); nothing a caller sends ends the server. The values of secret
//! parameters are scrubbed from every result and progress message ([`call::CallContext`]).
//!
//! The server keeps one launched browser warm between calls ([`warm::WarmBrowser`]); each
//! call runs in a browser context of its own in it. [`serve_stdio`] serves one client over
//! stdin and stdout; [`http::serve_http`] serves Streamable HTTP behind a bearer token.
//!
//! It does not print: stdout is the protocol's channel. Its warnings go to `tracing`.

pub mod call;
mod error;
pub mod http;
pub mod images;
pub mod progress;
pub mod server;
pub mod state;
pub mod tools;
pub mod warm;

pub use error::McpError;
pub use http::HttpOptions;
pub use http::serve_http;
pub use server::RetraceServer;
pub use state::ServerSettings;

use rmcp::ServiceExt;

/// Serves one client over stdin and stdout until it goes away, then closes the warm browser.
pub async fn serve_stdio(settings: ServerSettings) -> Result<(), McpError> {
    let server = RetraceServer::new(std::sync::Arc::new(state::SharedState::new(settings)));
    let shared = server.shared();
    let running = match server.serve(rmcp::transport::stdio()).await {
        Ok(running) => running,
        // A client that closed its end before the first answer went away: nothing to serve.
        Err(error) if client_gone(&error) => return Ok(()),
        Err(error) => return Err(McpError::Transport(error.to_string())),
    };
    let ended = running
        .waiting()
        .await
        .map_err(|error| McpError::Transport(error.to_string()));
    shared.warm.close().await;
    ended.map(|_| ())
}

/// Whether `error` is a write to a client whose reading end is closed (`retrace mcp | head
/// -1`, a client that quit): a broken pipe anywhere in the transport's cause chain.
fn client_gone(error: &rmcp::service::ServerInitializeError) -> bool {
    let rmcp::service::ServerInitializeError::TransportError { error, .. } = error else {
        return false;
    };
    let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(error.error.as_ref());
    while let Some(current) = cause {
        if current
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
        {
            return true;
        }
        cause = current.source();
    }
    false
}
