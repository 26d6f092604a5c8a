//! [`BrowserConfig`]: which browser a session uses (one we launch, or one already running
//! that we connect to) and at what size, declared once for every command.

use retrace_drive::chromium::remote::ConnectEvent;
use retrace_drive::chromium::remote::ConnectObserver;
use retrace_drive::chromium::remote::ConnectOptions;
use retrace_drive::chromium::remote::parse_header;
use std::path::Path;
use std::path::PathBuf;

use retrace_drive::BrowserBackend;
use retrace_drive::chromium::ChromiumBrowser;
use retrace_drive::chromium::ChromiumConfig;
use retrace_drive::chromium::ChromiumPage;
use retrace_protocol::events::Event;
use retrace_protocol::events::Events;

use crate::error::RunnerError;

/// Where the browser comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BrowserTarget {
    /// Launch this Chromium executable headless, with a fresh profile.
    Launch {
        /// The executable.
        chromium: PathBuf,
    },
    /// Connect to a running browser's DevTools endpoint (`ws://...` or `http://HOST:PORT`);
    /// each session gets a browser context of its own.
    Connect {
        /// The endpoint.
        endpoint: String,
        /// Headers, CA and session cap for reaching it.
        access: RemoteAccess,
    },
}

/// How to reach a remote browser besides its endpoint. `Debug` shows header names only: the
/// values are credentials.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct RemoteAccess {
    /// `Name: value` headers sent on every request and on the websocket upgrade
    /// (`--connect-header`, then the lines of `RETRACE_CONNECT_HEADERS`).
    pub header_lines: Vec<String>,
    /// A PEM file of CA certificates to trust besides the platform's (`--connect-ca`).
    pub ca_file: Option<PathBuf>,
    /// At most this many sessions at once on the endpoint from this process
    /// (`--max-sessions`).
    pub max_sessions: Option<std::num::NonZeroUsize>,
}

impl std::fmt::Debug for RemoteAccess {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = self
            .header_lines
            .iter()
            .map(|line| line.split_once(':').map_or("?", |(name, _)| name.trim()))
            .collect();
        formatter
            .debug_struct("RemoteAccess")
            .field("headers", &names)
            .field("ca_file", &self.ca_file)
            .field("max_sessions", &self.max_sessions)
            .finish()
    }
}

impl RemoteAccess {
    /// The drive's options for `endpoint`: headers parsed (an error names the flag or line,
    /// never the value); a busy farm's retries and a wait for a free session go to `events` as
    /// target notices.
    pub fn options(&self, endpoint: &str, events: &Events) -> Result<ConnectOptions, RunnerError> {
        let mut options = ConnectOptions::parse(endpoint)?;
        for (index, line) in self.header_lines.iter().enumerate() {
            let (name, value) = parse_header(line, &format!("connect header {}", index + 1))?;
            options.headers.append(name, value);
        }
        options.ca_file = self.ca_file.clone();
        options.max_sessions = self.max_sessions;
        let events = events.clone();
        options.observer = Some(ConnectObserver::new(move |event| {
            let (endpoint, message) = match event {
                ConnectEvent::Retrying {
                    endpoint,
                    step,
                    retry,
                    delay,
                    reason,
                } => (
                    endpoint,
                    format!(
                        "{step} answered {reason}; retry {retry} in {:.1} s",
                        delay.as_secs_f64()
                    ),
                ),
                ConnectEvent::WaitingForSession { endpoint, limit } => (
                    endpoint,
                    format!("all {limit} sessions in use; waiting for one to end"),
                ),
            };
            events.emit(Event::TargetNotice {
                target: endpoint.clone(),
                message,
            });
        }));
        Ok(options)
    }
}

/// A browser and the viewport its pages get.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BrowserConfig {
    /// Where the browser comes from.
    pub target: BrowserTarget,
    /// Viewport size in CSS pixels; screenshots are exactly this size.
    pub size: (u32, u32),
}

impl BrowserConfig {
    /// Launching `chromium` at `size`.
    pub fn launch(chromium: impl Into<PathBuf>, size: (u32, u32)) -> Self {
        Self {
            target: BrowserTarget::Launch {
                chromium: chromium.into(),
            },
            size,
        }
    }

    /// The same browser at another size.
    pub fn at_size(mut self, size: (u32, u32)) -> Self {
        self.size = size;
        self
    }

    /// Launches or connects.
    pub async fn open(&self) -> Result<ChromiumBrowser, RunnerError> {
        self.open_reporting(&Events::none()).await
    }

    /// Launches or connects; a farm's retries and waits for a session go to `events`.
    pub async fn open_reporting(&self, events: &Events) -> Result<ChromiumBrowser, RunnerError> {
        let (width, height) = self.size;
        Ok(match &self.target {
            BrowserTarget::Connect { endpoint, access } => {
                let options = access.options(endpoint, events)?;
                ChromiumBrowser::connect_with(&options, width, height).await?
            }
            BrowserTarget::Launch { chromium } => {
                ChromiumBrowser::launch(&ChromiumConfig {
                    executable: chromium.clone(),
                    width,
                    height,
                    ..ChromiumConfig::default()
                })
                .await?
            }
        })
    }
}

/// How long to wait after a page's load event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PageLoad {
    /// The load event only: for callers that watch the screen themselves (a visual replay
    /// waits for the recorded screen), extra waiting would only be a delay.
    Loaded,
    /// The load event, then up to 10 s for the network to go quiet (a page that keeps polling
    /// never does; it is used as it is then): what a model or a screenshot should see.
    Quiet,
}

/// Opens a new page of `browser` at `url`.
pub async fn open_page(
    browser: &ChromiumBrowser,
    url: &str,
    load: PageLoad,
) -> Result<ChromiumPage, RunnerError> {
    let page = browser.open_page().await?;
    page.navigate(url).await?;
    if load == PageLoad::Quiet {
        let _ = page.wait_for_network_idle(300, 10_000).await;
    }
    Ok(page)
}

/// Writes `png` to `path`, creating missing parent directories.
pub fn write_png(path: &Path, png: &[u8]) -> Result<(), RunnerError> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|source| RunnerError::io(parent, source))?;
    }
    retrace_files::write_atomic(path, png).map_err(|source| RunnerError::io(path, source))
}
