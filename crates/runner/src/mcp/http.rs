//! Streamable HTTP: the MCP server at `/mcp` on a TCP listener (rmcp's
//! `StreamableHttpService` under axum), every request refused with 401 unless it carries
//! `Authorization: Bearer <token>`. All sessions share one [`SharedState`] (one warm
//! browser). Host headers other than loopback names are refused (rmcp's DNS-rebinding guard)
//! unless `allowed_hosts` names them.

use std::sync::Arc;

use axum::extract::Request;
use axum::extract::State;
use axum::http::StatusCode;
use axum::http::header;
use axum::middleware::Next;
use axum::response::IntoResponse;
use axum::response::Response;
use rmcp::transport::streamable_http_server::StreamableHttpServerConfig;
use rmcp::transport::streamable_http_server::StreamableHttpService;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use tokio_util::sync::CancellationToken;

/// What stops [`serve_http`] when cancelled.
pub type Shutdown = CancellationToken;

use crate::mcp::error::McpError;
use crate::mcp::server::RetraceServer;
use crate::mcp::state::ServerSettings;
use crate::mcp::state::SharedState;

/// The path the server answers at.
pub const PATH: &str = "/mcp";

/// How the HTTP server is reached.
#[derive(Clone)]
pub struct HttpOptions {
    /// The bearer token every request must carry (never logged).
    pub token: String,
    /// Host names (or `host:port`) accepted in the Host header besides loopback ones.
    pub allowed_hosts: Vec<String>,
}

impl std::fmt::Debug for HttpOptions {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("HttpOptions")
            .field("token", &"<redacted>")
            .field("allowed_hosts", &self.allowed_hosts)
            .finish()
    }
}

/// Serves MCP over Streamable HTTP on `listener` until `shutdown` is cancelled, then closes
/// the warm browser.
pub async fn serve_http(
    listener: tokio::net::TcpListener,
    settings: ServerSettings,
    options: HttpOptions,
    shutdown: CancellationToken,
) -> Result<(), McpError> {
    if options.token.trim().is_empty() {
        return Err(McpError::Input(
            "serving over HTTP needs a bearer token: give --token or RETRACE_MCP_TOKEN".into(),
        ));
    }
    let shared = Arc::new(SharedState::new(settings));
    let mut hosts: Vec<String> = vec!["localhost".into(), "127.0.0.1".into(), "::1".into()];
    hosts.extend(options.allowed_hosts.iter().cloned());
    let config = StreamableHttpServerConfig::default()
        .with_allowed_hosts(hosts)
        .with_cancellation_token(shutdown.child_token());
    let service = StreamableHttpService::new(
        {
            let shared = Arc::clone(&shared);
            move || Ok(RetraceServer::new(Arc::clone(&shared)))
        },
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let token: Arc<str> = Arc::from(options.token.as_str());
    let router = axum::Router::new()
        .nest_service(PATH, service)
        .layer(axum::middleware::from_fn_with_state(token, require_token));
    let served = axum::serve(listener, router)
        .with_graceful_shutdown(shutdown.cancelled_owned())
        .await
        .map_err(|source| McpError::Io {
            what: "serving MCP over HTTP".into(),
            source,
        });
    shared.warm.close().await;
    served
}

/// Refuses a request without the bearer token with 401, closing the connection: the
/// request's body is left unread, so the server cannot read the next request on it, and a
/// client told so does not send one there (without the header it may, and see it dropped).
async fn require_token(State(token): State<Arc<str>>, request: Request, next: Next) -> Response {
    let given = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.strip_prefix("Bearer "));
    match given {
        Some(given) if same(given.trim().as_bytes(), token.as_bytes()) => next.run(request).await,
        _ => (
            StatusCode::UNAUTHORIZED,
            [
                (header::WWW_AUTHENTICATE, "Bearer"),
                (header::CONNECTION, "close"),
            ],
            "retrace mcp: a bearer token is required (Authorization: Bearer <token>)\n",
        )
            .into_response(),
    }
}

/// Whether two byte strings are equal, in time that does not depend on where they differ.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::same;

    #[test]
    fn tokens_compare_whole() {
        assert!(same(b"s3cret", b"s3cret"));
        assert!(!same(b"s3cret", b"s3cres"));
        assert!(!same(b"s3cret", b"s3cret-longer"));
        assert!(!same(b"", b"x"));
    }
}
