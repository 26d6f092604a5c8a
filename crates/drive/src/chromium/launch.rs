//! [`ChromiumBrowser`]: a launched or connected Chromium, the CDP connection's event loop, and
//! the liveness flag every page consults to tell "the browser died" from "this call failed".

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::AtomicBool;
use std::sync::atomic::Ordering;
use std::time::Duration;

use async_trait::async_trait;
use chromiumoxide::Browser;
use chromiumoxide::cdp::browser_protocol::target::CreateBrowserContextParams;
use chromiumoxide::cdp::browser_protocol::target::CreateTargetParams;
use chromiumoxide::error::CdpError;
use chromiumoxide::handler::HandlerConfig;
use chromiumoxide::handler::viewport::Viewport;
use futures::StreamExt;

use super::page::ChromiumPage;
use super::process::BrowserProcess;
use crate::backend::BrowserBackend;
use crate::backend::PageFactory;
use crate::error::DriveError;

/// The backend name used in errors and logs.
pub(crate) const BACKEND: &str = "chromium";

/// How to launch Chromium.
#[derive(Debug, Clone)]
pub struct ChromiumConfig {
    /// The browser executable (default `/usr/bin/chromium`).
    pub executable: PathBuf,
    /// Viewport width in CSS pixels; screenshots are exactly this wide.
    pub width: u32,
    /// Viewport height in CSS pixels; screenshots are exactly this high.
    pub height: u32,
    /// How long to wait for the browser to announce its DevTools endpoint.
    pub launch_timeout: Duration,
    /// How long one CDP command may take before it fails.
    pub request_timeout: Duration,
}

impl Default for ChromiumConfig {
    fn default() -> Self {
        Self {
            executable: PathBuf::from("/usr/bin/chromium"),
            width: 1280,
            height: 800,
            launch_timeout: Duration::from_secs(20),
            request_timeout: Duration::from_secs(30),
        }
    }
}

/// Whether the CDP connection still stands, and why it fell if not.
#[derive(Debug, Default)]
pub(crate) struct Liveness {
    dead: AtomicBool,
    reason: Mutex<String>,
}

impl Liveness {
    fn mark_dead(&self, reason: String) {
        if let Ok(mut slot) = self.reason.lock() {
            *slot = reason;
        }
        self.dead.store(true, Ordering::SeqCst);
    }
}

/// What a browser and all its pages share; the browser process dies with the last handle.
#[derive(Debug)]
pub(crate) struct BrowserCore {
    browser: Browser,
    handler: tokio::task::JoinHandle<()>,
    liveness: Arc<Liveness>,
    /// Present when we launched the browser (absent when connected to a running one).
    process: Option<Mutex<BrowserProcess>>,
    pub(crate) width: u32,
    pub(crate) height: u32,
    ws_url: String,
}

impl BrowserCore {
    /// Turns a CDP error from doing `doing` into a [`DriveError`]: `BackendGone` when the
    /// browser or the connection is gone, `Operation` otherwise.
    pub(crate) fn error(&self, doing: &str, error: CdpError) -> DriveError {
        let connection_lost = matches!(
            error,
            CdpError::Ws(_)
                | CdpError::ChannelSendError(_)
                | CdpError::Io(_)
                | CdpError::NoResponse
        );
        let process_exited = self
            .process
            .as_ref()
            .and_then(|process| process.lock().ok().map(|mut p| p.has_exited()))
            .unwrap_or(false);
        if connection_lost || process_exited || self.is_dead() {
            let reason = self
                .liveness
                .reason
                .lock()
                .map(|r| r.clone())
                .unwrap_or_default();
            let detail = if process_exited {
                format!("the browser process exited ({error})")
            } else if reason.is_empty() {
                error.to_string()
            } else {
                format!("{reason} ({error})")
            };
            return DriveError::BackendGone {
                backend: BACKEND.to_owned(),
                doing: doing.to_owned(),
                detail,
            };
        }
        DriveError::Operation {
            backend: BACKEND.to_owned(),
            doing: doing.to_owned(),
            detail: error.to_string(),
        }
    }

    /// Whether the CDP connection has closed.
    pub(crate) fn is_dead(&self) -> bool {
        self.liveness.dead.load(Ordering::SeqCst)
    }
}

impl Drop for BrowserCore {
    fn drop(&mut self) {
        self.handler.abort();
    }
}

/// A Chromium browser we launched (killed when the last handle goes) or connected to.
#[derive(Debug, Clone)]
pub struct ChromiumBrowser {
    core: Arc<BrowserCore>,
}

impl ChromiumBrowser {
    /// Launches `config.executable` headless with a fresh temporary profile and connects.
    pub async fn launch(config: &ChromiumConfig) -> Result<Self, DriveError> {
        let process = BrowserProcess::spawn(
            &config.executable,
            config.width,
            config.height,
            config.launch_timeout,
        )
        .await?;
        let ws_url = process.ws_url().to_owned();
        Self::attach(&ws_url, config, Some(process)).await
    }

    /// Connects to a running browser's `ws://` DevTools endpoint. Pages it opens get a
    /// `width`x`height` viewport; the browser itself is left running when we go.
    pub async fn connect(ws_url: &str, width: u32, height: u32) -> Result<Self, DriveError> {
        let config = ChromiumConfig {
            width,
            height,
            ..ChromiumConfig::default()
        };
        Self::attach(ws_url, &config, None).await
    }

    async fn attach(
        ws_url: &str,
        config: &ChromiumConfig,
        process: Option<BrowserProcess>,
    ) -> Result<Self, DriveError> {
        let started = std::time::Instant::now();
        let handler_config = HandlerConfig {
            viewport: Some(Viewport {
                width: config.width,
                height: config.height,
                device_scale_factor: Some(1.0),
                emulating_mobile: false,
                is_landscape: config.width >= config.height,
                has_touch: false,
            }),
            request_timeout: config.request_timeout,
            ..HandlerConfig::default()
        };
        let (browser, mut handler) = Browser::connect_with_config(ws_url, handler_config)
            .await
            .map_err(|e| DriveError::Launch {
                backend: BACKEND.to_owned(),
                detail: format!("cannot connect to {ws_url}: {e}"),
            })?;
        let nodelay = super::nodelay::set_on_devtools_sockets(ws_url);
        tracing::debug!(sockets = nodelay, "TCP_NODELAY on the DevTools connection");
        let liveness = Arc::new(Liveness::default());
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
        tracing::debug!(elapsed = ?started.elapsed(), "connected to {ws_url}");
        Ok(Self {
            core: Arc::new(BrowserCore {
                browser,
                handler,
                liveness,
                process: process.map(Mutex::new),
                width: config.width,
                height: config.height,
                ws_url: ws_url.to_owned(),
            }),
        })
    }

    /// The browser's `ws://` DevTools endpoint (another process may connect to it).
    pub fn ws_url(&self) -> &str {
        &self.core.ws_url
    }

    /// The browser process id, when we launched it.
    pub fn pid(&self) -> Option<u32> {
        let process = self.core.process.as_ref()?;
        process.lock().ok().map(|p| p.pid())
    }

    /// The temporary directory holding the profile, when we launched the browser.
    pub fn profile_dir(&self) -> Option<PathBuf> {
        let process = self.core.process.as_ref()?;
        process.lock().ok().map(|p| p.dir())
    }

    /// Opens a blank page at the configured viewport size.
    ///
    /// In a browser we connected to, the page gets a browser context of its own (like an
    /// incognito window, disposed when our connection goes), so it starts with no cookies or
    /// storage and leaves none behind: runs sharing one browser cannot see each other's
    /// sessions. A browser we launched already has a fresh profile.
    ///
    /// Every page gets a window of its own: tabs sharing a window are hidden while another is
    /// in front, and a hidden page produces no frames, so its screenshots would hang. Pages in
    /// separate windows all stay visible, and screenshots of any of them, in any order, work.
    pub async fn open_page(&self) -> Result<ChromiumPage, DriveError> {
        let doing = "opening a page";
        let started = std::time::Instant::now();
        let mut target = CreateTargetParams::new("about:blank");
        target.new_window = Some(true);
        target.width = Some(i64::from(self.core.width));
        target.height = Some(i64::from(self.core.height));
        if self.core.process.is_none() {
            let context = CreateBrowserContextParams {
                dispose_on_detach: Some(true),
                ..CreateBrowserContextParams::default()
            };
            let id = self
                .core
                .browser
                .create_browser_context(context)
                .await
                .map_err(|e| self.core.error("creating a browser context", e))?;
            target.browser_context_id = Some(id);
            tracing::debug!(elapsed = ?started.elapsed(), "browser context created");
        }
        let page = self
            .core
            .browser
            .new_page(target)
            .await
            .map_err(|e| self.core.error(doing, e))?;
        tracing::debug!(elapsed = ?started.elapsed(), "page target created");
        let page = ChromiumPage::new(Arc::clone(&self.core), page).await?;
        tracing::debug!(elapsed = ?started.elapsed(), "page ready");
        Ok(page)
    }
}

#[async_trait]
impl PageFactory for ChromiumBrowser {
    async fn new_page(&self) -> Result<Arc<dyn BrowserBackend>, DriveError> {
        Ok(Arc::new(self.open_page().await?))
    }
}
