//! [`WarmBrowser`]: the one launched Chromium the server keeps between calls, so a `check`
//! or `replay` right after another does not pay for a browser start. Each call gets a run of
//! its own in it (a fresh browser context: no cookies or storage shared between calls).
//!
//! Its pages open at the size it was launched at, so a call at another size replaces it (the
//! previous one ends with its last run). A remote browser (`--connect`) is not kept: its
//! sessions are a farm's to count, so every call opens one and ends it.

use crate::BrowserConfig;
use crate::BrowserTarget;
use crate::RunnerError;
use retrace_drive::chromium::ChromiumBrowser;
use tokio::sync::Mutex;

/// The server's browser, launched on first use.
#[derive(Debug)]
pub struct WarmBrowser {
    config: BrowserConfig,
    kept: Mutex<Option<Kept>>,
}

#[derive(Debug)]
struct Kept {
    size: (u32, u32),
    browser: ChromiumBrowser,
}

impl WarmBrowser {
    /// A warm browser of `config` (its size is replaced by each call's).
    pub fn new(config: BrowserConfig) -> Self {
        Self {
            config,
            kept: Mutex::new(None),
        }
    }

    /// The browser configuration calls use.
    pub fn config(&self) -> &BrowserConfig {
        &self.config
    }

    /// A run of its own at `size`: in the kept browser when it is alive and at that size,
    /// else in one launched now (and kept). A remote browser is opened for this run only.
    pub async fn run_at(&self, size: (u32, u32)) -> Result<ChromiumBrowser, RunnerError> {
        let config = self.config.clone().at_size(size);
        if matches!(config.target, BrowserTarget::Connect { .. }) {
            return config.open().await;
        }
        let mut kept = self.kept.lock().await;
        if let Some(warm) = kept
            .as_ref()
            .filter(|warm| warm.size == size && alive(&warm.browser))
        {
            return Ok(warm.browser.new_run());
        }
        let browser = config.open().await?;
        let run = browser.new_run();
        if let Some(previous) = kept.replace(Kept { size, browser }) {
            // Its runs still in use keep it open until they end.
            drop(previous);
        }
        Ok(run)
    }

    /// The process id of the kept browser, when one is.
    pub async fn pid(&self) -> Option<u32> {
        self.kept
            .lock()
            .await
            .as_ref()
            .and_then(|warm| warm.browser.pid())
    }

    /// Closes the kept browser (at the server's end).
    pub async fn close(&self) {
        if let Some(warm) = self.kept.lock().await.take() {
            let _ = tokio::time::timeout(CLOSE_TIMEOUT, warm.browser.close()).await;
        }
    }
}

/// The longest wait for the kept browser to close.
const CLOSE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// Whether the browser's process still runs (a crashed browser is launched again).
fn alive(browser: &ChromiumBrowser) -> bool {
    browser
        .pid()
        .is_none_or(|pid| std::path::Path::new(&format!("/proc/{pid}")).exists())
}
