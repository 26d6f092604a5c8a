//! The HTTP side: the running server's handle and the router (the invoicing app's routes are
//! in `app_routes`, the content site's in `site`; the state every handler shares in
//! `app_state`, the small response helpers they use in `responses`).

use std::net::SocketAddr;
use std::sync::Arc;

use axum::Router;
use axum::http::StatusCode;
use axum::routing::get;
use tokio::sync::watch;
use tokio::task::JoinHandle;

use crate::app_routes;
use crate::app_state::AppState;
use crate::app_state::wait_for_stop;
use crate::config::DemoConfig;
use crate::site;

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
