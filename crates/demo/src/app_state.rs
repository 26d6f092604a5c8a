//! What every handler shares: the [`AppState`], the session cookie, and the server's stop
//! signal. A module of its own so the router and the routes it serves both use it.

use std::sync::Arc;

use tokio::sync::watch;

use crate::config::DemoConfig;

/// The cookie that marks a signed-in browser; its value is the user name.
pub const SESSION_COOKIE: &str = "retrace_demo_session";

/// What every handler sees.
#[derive(Clone)]
pub(crate) struct AppState {
    pub(crate) config: Arc<DemoConfig>,
    /// Turns `true` when the server stops; `None` when served by the caller's [`crate::router`].
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
