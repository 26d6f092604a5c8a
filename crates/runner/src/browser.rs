//! [`BrowserConfig`]: which browser a session uses (one we launch, or one already running
//! that we connect to) and at what size, declared once for every command.

use std::path::Path;
use std::path::PathBuf;

use retrace_drive::BrowserBackend;
use retrace_drive::chromium::ChromiumBrowser;
use retrace_drive::chromium::ChromiumConfig;
use retrace_drive::chromium::ChromiumPage;

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
    },
}

/// A browser and the viewport its pages get.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BrowserConfig {
    /// Where the browser comes from.
    pub target: BrowserTarget,
    /// Viewport size in CSS pixels; screenshots are exactly this size.
    pub size: (u32, u32),
}

/// The Chromium executable used when none is named.
pub const DEFAULT_CHROMIUM: &str = "/usr/bin/chromium";

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
        let (width, height) = self.size;
        Ok(match &self.target {
            BrowserTarget::Connect { endpoint } => {
                ChromiumBrowser::connect(endpoint, width, height).await?
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
    std::fs::write(path, png).map_err(|source| RunnerError::io(path, source))
}
