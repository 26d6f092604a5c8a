//! The HTTP side: the running server's handle, the router (the invoicing app's routes are in
//! `app_routes`, the content site's in `site`), the state every handler shares and the small
//! response helpers they use.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::http::HeaderName;
use axum::http::HeaderValue;
use axum::http::StatusCode;
use axum::http::header;
use axum::response::Html;
use axum::response::IntoResponse;
use axum::response::Response;
use axum::routing::get;
use tokio::sync::watch;
use tokio::task::JoinHandle;

use crate::app_routes;
use crate::config::DemoConfig;
use crate::site;

/// The cookie that marks a signed-in browser; its value is the user name.
pub const SESSION_COOKIE: &str = "retrace_demo_session";

/// The response header carrying the latency (ms) the server applied to a slow request.
pub const LATENCY_HEADER: &str = "x-retrace-demo-latency-ms";

/// The demo app could not be started or stopped.
#[derive(Debug, thiserror::Error)]
pub enum DemoError {
    /// The listening socket could not be bound.
    #[error("cannot bind the demo app to {addr}: {source}")]
    Bind {
        /// The address asked for.
        addr: SocketAddr,
        /// The operating system's reason.
        source: std::io::Error,
    },
    /// The server stopped with an I/O error.
    #[error("the demo app at {addr} stopped with an error: {source}")]
    Serve {
        /// The address it was serving on.
        addr: SocketAddr,
        /// The cause.
        source: std::io::Error,
    },
    /// The server task panicked or was cancelled.
    #[error("the demo app task at {addr} ended abnormally: {detail}")]
    Task {
        /// The address it was serving on.
        addr: SocketAddr,
        /// What the runtime reported.
        detail: String,
    },
}

/// A running demo app. Dropping it (or calling [`DemoServer::shutdown`]) stops the server.
#[derive(Debug)]
pub struct DemoServer {
    addr: SocketAddr,
    /// Set to `true` to stop: ends the graceful-shutdown wait and every response that would
    /// otherwise never complete (the site's `never-loads` page).
    stop: Option<watch::Sender<bool>>,
    task: Option<JoinHandle<std::io::Result<()>>>,
}

impl DemoServer {
    /// The address the server is bound to (the real port when port 0 was asked for).
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The app's base URL with a trailing slash, e.g. `http://127.0.0.1:41234/`. An
    /// unspecified bind address (`0.0.0.0`, `::`) is reported as loopback, which is reachable.
    pub fn url(&self) -> String {
        let ip = match self.addr.ip() {
            ip if ip.is_unspecified() && ip.is_ipv4() => "127.0.0.1".to_owned(),
            ip if ip.is_unspecified() => "[::1]".to_owned(),
            ip if ip.is_ipv6() => format!("[{ip}]"),
            ip => ip.to_string(),
        };
        format!("http://{ip}:{}/", self.addr.port())
    }

    /// Stops accepting connections, lets in-flight requests finish (a response that never
    /// completes on purpose is cut off), and waits for the server task to end.
    pub async fn shutdown(mut self) -> Result<(), DemoError> {
        if let Some(stop) = self.stop.take() {
            // The task may already be gone; then there is nothing to stop.
            let _ = stop.send(true);
        }
        let Some(task) = self.task.take() else {
            return Ok(());
        };
        let addr = self.addr;
        match task.await {
            Ok(Ok(())) => Ok(()),
            Ok(Err(source)) => Err(DemoError::Serve { addr, source }),
            Err(error) => Err(DemoError::Task {
                addr,
                detail: error.to_string(),
            }),
        }
    }

    /// Waits until the server ends (it ends only on shutdown or an I/O error), e.g. for a
    /// command that serves until Ctrl-C races this against the signal.
    pub async fn wait(&mut self) -> Result<(), DemoError> {
        let Some(task) = self.task.as_mut() else {
            return Ok(());
        };
        let result = task.await;
        self.task = None;
        let addr = self.addr;
        match result {
            Ok(Ok(())) => Ok(()),
            Ok(Err(source)) => Err(DemoError::Serve { addr, source }),
            Err(error) => Err(DemoError::Task {
                addr,
                detail: error.to_string(),
            }),
        }
    }
}

impl Drop for DemoServer {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(true);
        }
    }
}

/// Binds `addr` (port 0 picks a free port) and serves the demo app on the current tokio
/// runtime until the returned handle is shut down or dropped.
pub async fn start(config: DemoConfig, addr: SocketAddr) -> Result<DemoServer, DemoError> {
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|source| DemoError::Bind { addr, source })?;
    let bound = listener
        .local_addr()
        .map_err(|source| DemoError::Bind { addr, source })?;
    let (stop, stopped) = watch::channel(false);
    let app = routes(AppState {
        config: Arc::new(config),
        stopping: Some(stopped.clone()),
        drafts: Default::default(),
    });
    let task = tokio::spawn(async move {
        axum::serve(listener, app)
            .with_graceful_shutdown(wait_for_stop(Some(stopped)))
            .await
    });
    tracing::debug!(%bound, "demo app listening");
    Ok(DemoServer {
        addr: bound,
        stop: Some(stop),
        task: Some(task),
    })
}

/// The demo app's routes, for serving on a listener of the caller's choosing. Responses that
/// never complete on purpose (the site's `never-loads` page) then hang until the client goes;
/// [`start`] cuts them off when it stops.
pub fn router(config: DemoConfig) -> Router {
    routes(AppState {
        config: Arc::new(config),
        stopping: None,
        drafts: Default::default(),
    })
}

fn routes(state: AppState) -> Router {
    app_routes::routes()
        .merge(site::routes())
        .route("/healthz", get(|| async { "ok" }))
        .route("/favicon.ico", get(|| async { StatusCode::NO_CONTENT }))
        .fallback(|| async { (StatusCode::NOT_FOUND, "not found") })
        .with_state(state)
}

/// What every handler sees.
#[derive(Clone)]
pub(crate) struct AppState {
    pub(crate) config: Arc<DemoConfig>,
    /// Turns `true` when the server stops; `None` when served by the caller's [`router`].
    pub(crate) stopping: Option<watch::Receiver<bool>>,
    /// Drafts saved on the server (with [`DemoConfig::recent_drafts`]).
    pub(crate) drafts: crate::recent_drafts::SavedDrafts,
}

/// Resolves when `stopping` turns `true` or its sender goes; never without one.
pub(crate) async fn wait_for_stop(stopping: Option<watch::Receiver<bool>>) {
    match stopping {
        Some(mut stopping) => {
            // An error means the sender is gone, which also means "stop".
            let _ = stopping.wait_for(|stopped| *stopped).await;
        }
        None => std::future::pending::<()>().await,
    }
}

/// An HTML response that browsers must not cache.
pub(crate) fn html_page(status: StatusCode, body: String) -> Response {
    (
        status,
        [(header::CACHE_CONTROL, HeaderValue::from_static("no-store"))],
        Html(body),
    )
        .into_response()
}

/// A 303 to `location`.
pub(crate) fn redirect(location: &str) -> Response {
    match HeaderValue::from_str(location) {
        Ok(value) => (StatusCode::SEE_OTHER, [(header::LOCATION, value)]).into_response(),
        Err(_) => (StatusCode::INTERNAL_SERVER_ERROR, "bad redirect target").into_response(),
    }
}

/// Waits `ms` milliseconds (a deliberate slowness of the app), logging `message` with
/// `latency_ms` at info level for benchmarks that set the app's own waits against a run's
/// time (e.g. "applied app latency latency_ms=250").
pub(crate) async fn delay(ms: u64, message: &str) {
    if ms > 0 {
        tracing::info!(latency_ms = ms, "{message}");
        tokio::time::sleep(Duration::from_millis(ms)).await;
    }
}

/// Adds the header that reports the delay (ms) the server applied.
pub(crate) fn with_latency(mut response: Response, ms: u64) -> Response {
    response.headers_mut().insert(
        HeaderName::from_static(LATENCY_HEADER),
        HeaderValue::from(ms),
    );
    response
}
