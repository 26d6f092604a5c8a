//! [`BrowserCore`]: what a browser handle and all its pages share. It owns the CDP connection
//! and the task driving it, the liveness flag every page consults to tell "the browser (or the
//! remote session) is gone" from "this call failed", and what ends with the last handle: the
//! process we launched, or the remote session we opened.
//!
//! Launching (`launch`) and connecting (`remote`) both build one through
//! [`BrowserCore::attach`]; pages and browser handles only use it. Nothing here knows how a
//! browser was started or reached: a remote session is an opaque [`RemoteSession`].

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::AtomicBool;
use std::sync::atomic::Ordering;
use std::time::Duration;

use async_trait::async_trait;
use chromiumoxide::Browser;
use chromiumoxide::error::CdpError;
use chromiumoxide::handler::HandlerConfig;
use futures::StreamExt;

use super::process::BrowserProcess;
use crate::error::DriveError;

/// The backend name used in errors and logs.
pub(crate) const BACKEND: &str = "chromium";

/// Whether the CDP connection (or the remote session behind it) still stands, and why it fell
/// if not. The first reason given wins: it is the closest to the cause.
#[derive(Debug, Default)]
pub(crate) struct Liveness {
    dead: AtomicBool,
    reason: Mutex<String>,
}

impl Liveness {
    /// Marks the connection dead for `reason`, unless it already is (the first reason stays).
    pub(crate) fn mark_dead(&self, reason: String) {
        if let Ok(mut slot) = self.reason.lock()
            && slot.is_empty()
        {
            *slot = reason;
        }
        self.dead.store(true, Ordering::SeqCst);
    }

    fn reason(&self) -> String {
        self.reason.lock().map(|r| r.clone()).unwrap_or_default()
    }

    pub(crate) fn is_dead(&self) -> bool {
        self.dead.load(Ordering::SeqCst)
    }
}

/// A remote session that must be ended after the CDP connection closes (a Selenium Grid
/// session, a relay, a farm's session slot). Dropping it without [`RemoteSession::end`] still
/// ends it, as well as a synchronous drop can.
#[async_trait]
pub(crate) trait RemoteSession: Send + Sync + std::fmt::Debug {
    /// Ends the session and waits until it has ended.
    async fn end(self: Box<Self>);
}

/// Where the browser came from: this decides what "gone" means and what ends with the core.
#[derive(Debug)]
pub(crate) enum Origin {
    /// We started the process; it is killed with the core.
    Launched(BrowserProcess),
    /// We connected to a browser somebody else runs, at `endpoint` (as shown in errors: no
    /// credentials), with a session to end afterwards if any.
    Connected {
        endpoint: String,
        session: Option<Box<dyn RemoteSession>>,
    },
}

/// The viewport and the command timeout of a connection.
#[derive(Debug, Clone, Copy)]
pub(crate) struct AttachSettings {
    pub(crate) width: u32,
    pub(crate) height: u32,
    pub(crate) request_timeout: Duration,
}

/// A CDP connection opened but not yet driven.
#[derive(Debug)]
pub(crate) struct OpenConnection {
    browser: Browser,
    handler: chromiumoxide::Handler,
}

/// What a browser and all its pages share; what it started ends with the last handle.
#[derive(Debug)]
pub(crate) struct BrowserCore {
    browser: Browser,
    handler: tokio::task::JoinHandle<()>,
    liveness: Arc<Liveness>,
    /// Present when we launched the browser.
    process: Option<Mutex<BrowserProcess>>,
    /// Present when we connected: the endpoint as shown in errors (no credentials).
    endpoint: Option<String>,
    /// The remote session to end after the connection closes, if any.
    session: Option<Box<dyn RemoteSession>>,
    pub(crate) width: u32,
    pub(crate) height: u32,
    ws_url: String,
}

impl BrowserCore {
    /// Opens the CDP connection at `cdp_url` (the browser's endpoint, or a local relay in
    /// front of it).
    pub(crate) async fn open(
        cdp_url: &str,
        settings: AttachSettings,
    ) -> Result<OpenConnection, CdpError> {
        let handler_config = HandlerConfig {
            // Each page sets its own device metrics as it opens (`ChromiumPage::new`), in
            // the same batch as its other set-up: chromiumoxide's emulation would only add
            // two round trips to every page's opening.
            viewport: None,
            request_timeout: settings.request_timeout,
            ..HandlerConfig::default()
        };
        let (browser, handler) = Browser::connect_with_config(cdp_url, handler_config).await?;
        let nodelay = super::nodelay::set_on_devtools_sockets(cdp_url);
        tracing::debug!(sockets = nodelay, "TCP_NODELAY on the DevTools connection");
        Ok(OpenConnection { browser, handler })
    }

    /// Starts the task that drives `connection` (it marks `liveness` dead when the connection
    /// ends). `ws_url` is the browser's real endpoint, for [`BrowserCore::ws_url`].
    pub(crate) fn attach(
        connection: OpenConnection,
        ws_url: String,
        settings: AttachSettings,
        liveness: Arc<Liveness>,
        origin: Origin,
    ) -> Self {
        let OpenConnection {
            browser,
            mut handler,
        } = connection;
        let watch = Arc::clone(&liveness);
        let handler = tokio::spawn(async move {
            let reason = loop {
                match handler.next().await {
                    None => break "the DevTools connection closed".to_owned(),
                    Some(Err(error @ (CdpError::Ws(_) | CdpError::Io(_)))) => {
                        break format!("the DevTools connection broke: {error}");
                    }
                    Some(Err(error)) => tracing::debug!(%error, "CDP handler"),
                    Some(Ok(())) => {}
                }
            };
            watch.mark_dead(reason);
            // Dropping the handler here fails every command still waiting for an answer.
            drop(handler);
        });
        let (process, endpoint, session) = match origin {
            Origin::Launched(process) => (Some(Mutex::new(process)), None, None),
            Origin::Connected { endpoint, session } => (None, Some(endpoint), session),
        };
        Self {
            browser,
            handler,
            liveness,
            process,
            endpoint,
            session,
            width: settings.width,
            height: settings.height,
            ws_url,
        }
    }

    /// The chromiumoxide browser, for commands on the browser target.
    pub(crate) fn browser(&self) -> &Browser {
        &self.browser
    }

    /// Turns a CDP error from doing `doing` into a [`DriveError`]: [`DriveError::SessionLost`]
    /// (a connected browser) or [`DriveError::BackendGone`] (a launched one) when the browser
    /// or the connection is gone, [`DriveError::Operation`] otherwise.
    pub(crate) fn error(&self, doing: &str, error: CdpError) -> DriveError {
        let connection_lost = matches!(
            error,
            CdpError::Ws(_)
                | CdpError::ChannelSendError(_)
                | CdpError::Io(_)
                | CdpError::NoResponse
        );
        let (process_exited, exit_status) = self
            .process
            .as_ref()
            .and_then(|process| {
                let mut process = process.lock().ok()?;
                Some((process.has_exited(), process.exit_status()))
            })
            .unwrap_or((false, None));
        if connection_lost || process_exited || self.is_dead() {
            let reason = self.liveness.reason();
            let detail = if let Some(status) = exit_status {
                // How it ended says who ended it: a crash, the OOM killer, someone's kill.
                format!("the browser process exited ({status}): {error}")
            } else if process_exited {
                format!("the browser process exited ({error})")
            } else if reason.is_empty() {
                error.to_string()
            } else {
                format!("{reason} ({error})")
            };
            return self.gone(doing, detail);
        }
        DriveError::Operation {
            backend: BACKEND.to_owned(),
            doing: doing.to_owned(),
            detail: error.to_string(),
        }
    }

    /// The error for "the browser went away while doing `doing`": a lost session for a
    /// connected browser (an infrastructure failure worth retrying), a dead backend for one
    /// we launched.
    pub(crate) fn gone(&self, doing: &str, detail: String) -> DriveError {
        match &self.endpoint {
            Some(endpoint) => DriveError::SessionLost {
                endpoint: endpoint.clone(),
                doing: doing.to_owned(),
                detail,
            },
            None => DriveError::BackendGone {
                backend: BACKEND.to_owned(),
                doing: doing.to_owned(),
                detail,
            },
        }
    }

    /// Whether the CDP connection has closed.
    pub(crate) fn is_dead(&self) -> bool {
        self.liveness.is_dead()
    }

    /// Why the connection closed ("" while it stands).
    pub(crate) fn death_reason(&self) -> String {
        self.liveness.reason()
    }

    /// The browser's DevTools endpoint (for a remote browser, with its credentials).
    pub(crate) fn ws_url(&self) -> &str {
        &self.ws_url
    }

    /// The endpoint we connected to, as shown in errors; `None` for a launched browser.
    pub(crate) fn endpoint(&self) -> Option<&str> {
        self.endpoint.as_deref()
    }

    /// The browser process id, when we launched it.
    pub(crate) fn pid(&self) -> Option<u32> {
        let process = self.process.as_ref()?;
        process.lock().ok().map(|p| p.pid())
    }

    /// The temporary profile directory, when we launched the browser.
    pub(crate) fn profile_dir(&self) -> Option<PathBuf> {
        let process = self.process.as_ref()?;
        process.lock().ok().map(|p| p.dir())
    }

    /// Closes the CDP connection, then ends the remote session and waits for that (a launched
    /// process is killed when `self` drops, right after).
    pub(crate) async fn shutdown(mut self) {
        self.handler.abort();
        if let Some(session) = self.session.take() {
            session.end().await;
        }
    }
}

impl Drop for BrowserCore {
    fn drop(&mut self) {
        // The connection closes first; `session` and `process` drop after this, ending the
        // remote session (best effort) or killing the browser.
        self.handler.abort();
    }
}
