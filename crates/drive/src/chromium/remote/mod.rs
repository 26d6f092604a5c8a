//! Remote browsers: reaching a Chromium somebody else runs — a browser in a container, a
//! browser farm (browserless, Moon), a Selenium Grid 4 — through [`ChromiumBrowser::connect`]
//! and [`ChromiumBrowser::connect_with`].
//!
//! - [`ConnectOptions`] says where ([`Endpoint`]: `http(s)://` discovered through
//!   `/json/version`, `ws(s)://` as given, `selenium+http(s)://` a Grid hub) and how: extra
//!   headers ([`parse_header`], [`parse_header_lines`]) sent on every request and on the
//!   websocket upgrade, an extra CA file for TLS (rustls, platform roots plus that file; see
//!   `tls`), back-off on busy answers ([`RetryPolicy`], [`ConnectEvent`]), and a per-endpoint
//!   limit of concurrent sessions (`max_sessions`, process-wide).
//! - The websocket: chromiumoxide 0.9.1 can neither send headers nor speak TLS, and takes no
//!   stream of ours, so an endpoint that needs either is reached through a local relay (see
//!   `relay` for why a relay rather than a patched chromiumoxide); a plain `ws://` endpoint
//!   without headers is connected directly.
//! - A lost session (the remote end closed the connection, a Grid ended the session) fails
//!   the next command with [`crate::DriveError::SessionLost`], an infrastructure error.
//!
//! Nothing here logs or returns a credential: endpoints are shown through [`redact`], header
//! values never.

mod backoff;
mod discovery;
mod endpoint;
mod headers;
mod limits;
mod relay;
mod selenium;
mod tls;
mod transport;

use std::num::NonZeroUsize;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use async_tungstenite::tungstenite;
use chromiumoxide::error::CdpError;
use reqwest::header::AUTHORIZATION;
use reqwest::header::HeaderMap;

pub use self::backoff::ConnectEvent;
pub use self::backoff::ConnectObserver;
pub use self::backoff::RetryPolicy;
use self::backoff::StepError;
pub use self::backoff::farm_retry_policy;
use self::backoff::with_backoff;
pub use self::endpoint::Endpoint;
pub use self::endpoint::EndpointKind;
pub use self::endpoint::redact;
pub use self::headers::parse_header;
pub use self::headers::parse_header_lines;
use self::limits::SessionSlot;
use self::relay::Relay;
use self::selenium::GridSession;
pub use self::selenium::SeleniumOptions;
use self::transport::Transport;
use super::browser::ChromiumBrowser;
use super::connection::AttachSettings;
use super::connection::BrowserCore;
use super::connection::Liveness;
use super::connection::Origin;
use super::connection::RemoteSession;
use crate::error::DriveError;

/// Where a remote browser is and how to reach it. `Debug` shows header names, never values.
#[derive(Clone)]
pub struct ConnectOptions {
    /// The endpoint.
    pub endpoint: Endpoint,
    /// Headers sent on every request to the endpoint and on the websocket upgrade (values
    /// are secrets: they never appear in errors or logs).
    pub headers: HeaderMap,
    /// A PEM file of extra CA certificates to trust besides the platform's (a private farm's
    /// CA, a test CA).
    pub ca_file: Option<PathBuf>,
    /// How busy answers (429, 503, "queue full") are retried.
    pub retry: RetryPolicy,
    /// At most this many sessions at once on this endpoint from this process; more wait for
    /// a free one. `None`: no limit.
    pub max_sessions: Option<NonZeroUsize>,
    /// Told about retries and waits, for a runner to show.
    pub observer: Option<ConnectObserver>,
    /// What to ask a Selenium Grid for (only used for `selenium+` endpoints).
    pub selenium: SeleniumOptions,
    /// Bounds each HTTP request (except Grid session creation), TCP connect and websocket
    /// handshake.
    pub timeout: Duration,
    /// How long one CDP command may take before it fails.
    pub request_timeout: Duration,
}

impl std::fmt::Debug for ConnectOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ConnectOptions")
            .field("endpoint", &self.endpoint)
            .field("headers", &headers::describe(&self.headers))
            .field("ca_file", &self.ca_file)
            .field("retry", &self.retry)
            .field("max_sessions", &self.max_sessions)
            .field("observer", &self.observer)
            .field("selenium", &self.selenium)
            .field("timeout", &self.timeout)
            .field("request_timeout", &self.request_timeout)
            .finish()
    }
}

impl ConnectOptions {
    /// Options for `endpoint` with defaults: no headers, platform roots only, default
    /// retries, no session limit.
    pub fn new(endpoint: Endpoint) -> Self {
        Self {
            endpoint,
            headers: HeaderMap::new(),
            ca_file: None,
            retry: farm_retry_policy(),
            max_sessions: None,
            observer: None,
            selenium: SeleniumOptions::default(),
            timeout: Duration::from_secs(30),
            request_timeout: Duration::from_secs(30),
        }
    }

    /// Parses `endpoint` (see [`Endpoint::parse`]) into default options.
    pub fn parse(endpoint: &str) -> Result<Self, DriveError> {
        Ok(Self::new(Endpoint::parse(endpoint)?))
    }

    /// The headers to send: the user's, plus `Authorization: Basic` from credentials in the
    /// URL unless an `Authorization` header was given.
    fn effective_headers(&self) -> HeaderMap {
        let mut headers = self.headers.clone();
        if let Some(credentials) = self.endpoint.credentials()
            && !headers.contains_key(AUTHORIZATION)
        {
            headers.insert(AUTHORIZATION, credentials.clone());
        }
        headers
    }
}

/// What a connected browser ends with its last handle, in this order: the relay (closing the
/// remote websocket), the Grid session (deleted), then the session slot (freed).
#[derive(Debug)]
struct RemoteParts {
    relay: Option<Relay>,
    grid: Option<GridSession>,
    slot: Option<SessionSlot>,
}

#[async_trait]
impl RemoteSession for RemoteParts {
    async fn end(mut self: Box<Self>) {
        drop(self.relay.take());
        if let Some(grid) = self.grid.take() {
            grid.end().await;
        }
        drop(self.slot.take());
    }
}

impl ChromiumBrowser {
    /// Connects to a running browser at `endpoint` (`http(s)://`, `ws(s)://` or
    /// `selenium+http(s)://`; see [`Endpoint`]) with default options. Pages it opens get a
    /// `width`x`height` viewport; the browser itself is left running when we go.
    pub async fn connect(endpoint: &str, width: u32, height: u32) -> Result<Self, DriveError> {
        Self::connect_with(&ConnectOptions::parse(endpoint)?, width, height).await
    }

    /// Connects to the remote browser `options` describe; see the module docs.
    pub async fn connect_with(
        options: &ConnectOptions,
        width: u32,
        height: u32,
    ) -> Result<Self, DriveError> {
        let started = std::time::Instant::now();
        let endpoint = &options.endpoint;
        let label = endpoint.to_string();
        let observer = options.observer.as_ref();
        let slot = match options.max_sessions {
            Some(limit) => Some(
                limits::acquire(&endpoint.limit_key(), limit, |limit| {
                    tracing::info!(endpoint = %label, limit, "waiting for a free session slot");
                    if let Some(observer) = observer {
                        observer.notify(&ConnectEvent::WaitingForSession {
                            endpoint: label.clone(),
                            limit,
                        });
                    }
                })
                .await,
            ),
            None => None,
        };
        let headers = options.effective_headers();
        let tls = tls::client_config(options.ca_file.as_deref())?;
        let transport = Transport::new(tls, headers.clone(), options.timeout)?;
        let liveness = Arc::new(Liveness::default());
        let (ws_url, mut grid) = match endpoint.kind() {
            EndpointKind::DevTools => (endpoint.url().clone(), None),
            EndpointKind::Discovery => {
                let discover = || discovery::websocket_url(&transport, endpoint);
                let url =
                    with_backoff(&options.retry, observer, &label, "discovery", discover).await?;
                (url, None)
            }
            EndpointKind::Selenium => {
                let create =
                    || selenium::create(&transport, endpoint, &options.selenium, width, height);
                let (session, url) =
                    with_backoff(&options.retry, observer, &label, "session creation", create)
                        .await?;
                tracing::info!(endpoint = %label, session = session.id(), "Grid session created");
                (url, Some(session))
            }
        };
        if let Some(grid) = &mut grid {
            grid.keep_alive(options.selenium.keepalive_period, Arc::clone(&liveness));
        }
        let settings = AttachSettings {
            width,
            height,
            request_timeout: options.request_timeout,
        };
        // chromiumoxide's errors could quote the URL it was given, token and all.
        let cannot_connect = |error: CdpError| DriveError::Launch {
            backend: "chromium".to_owned(),
            detail: format!(
                "cannot connect to {label}: {}",
                error
                    .to_string()
                    .replace(ws_url.as_str(), &redact(ws_url.as_str()))
            ),
        };
        let needs_relay = !headers.is_empty() || ws_url.scheme() == "wss";
        let (cdp, relay) = if needs_relay {
            let open = || transport.open_websocket(&ws_url);
            let socket =
                with_backoff(&options.retry, observer, &label, "websocket upgrade", open).await?;
            let relay = Relay::start(socket, Arc::clone(&liveness)).await?;
            let cdp = BrowserCore::open(relay.local_url(), settings)
                .await
                .map_err(cannot_connect)?;
            (cdp, Some(relay))
        } else {
            let open = || async {
                BrowserCore::open(ws_url.as_str(), settings)
                    .await
                    .map_err(|error| {
                        busy_upgrade(error).unwrap_or_else(|e| cannot_connect(e).into())
                    })
            };
            let cdp =
                with_backoff(&options.retry, observer, &label, "websocket upgrade", open).await?;
            (cdp, None)
        };
        let parts = RemoteParts { relay, grid, slot };
        let origin = Origin::Connected {
            endpoint: label.clone(),
            session: Some(Box::new(parts)),
        };
        let core = BrowserCore::attach(cdp, ws_url.to_string(), settings, liveness, origin);
        tracing::debug!(endpoint = %label, elapsed = ?started.elapsed(), "connected to a remote browser");
        Ok(Self::from_core(core))
    }
}

/// A busy answer (429, 503) to chromiumoxide's websocket upgrade, as a retryable step error;
/// any other error back as it was.
fn busy_upgrade(error: CdpError) -> Result<StepError, CdpError> {
    match error {
        CdpError::Ws(tungstenite::Error::Http(response))
            if backoff::is_busy(response.status().as_u16(), "") =>
        {
            Ok(StepError::Busy {
                reason: format!("HTTP {} to the websocket upgrade", response.status()),
                retry_after: None,
            })
        }
        other => Err(other),
    }
}
