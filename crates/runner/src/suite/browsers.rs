//! [`BrowserPool`]: the browsers a suite shares. One Chromium per viewport size (a launched
//! browser's windows all have its size), opened on first use; every test runs in a browser
//! context of its own on it (`ChromiumBrowser::new_run`), so tests share no cookies or storage
//! and a suite pays one browser start, not one per test.

use retrace_drive::chromium::ChromiumBrowser;
use tokio::sync::Mutex;

use crate::browser::BrowserConfig;
use crate::error::RunnerError;

/// The longest wait for a browser to close at the end of a suite.
const CLOSE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// The suite's browsers, by viewport size.
#[derive(Debug)]
pub struct BrowserPool {
    config: BrowserConfig,
    browsers: Mutex<Vec<((u32, u32), ChromiumBrowser)>>,
}

impl BrowserPool {
    /// No browser yet; they will be `config`'s, at each test's size.
    pub fn new(config: BrowserConfig) -> Self {
        Self {
            config,
            browsers: Mutex::new(Vec::new()),
        }
    }

    /// The browser for pages of `size`, opening it on first use (tests asking at the same
    /// time wait for the one start).
    pub async fn get(&self, size: (u32, u32)) -> Result<ChromiumBrowser, RunnerError> {
        let mut browsers = self.browsers.lock().await;
        if let Some((_, browser)) = browsers.iter().find(|(known, _)| *known == size) {
            return Ok(browser.clone());
        }
        let browser = self.config.clone().at_size(size).open().await?;
        browsers.push((size, browser.clone()));
        Ok(browser)
    }

    /// Closes every browser (killing the ones launched), each within a bounded time.
    pub async fn close(&self) {
        let browsers = std::mem::take(&mut *self.browsers.lock().await);
        for (_, browser) in browsers {
            let _ = tokio::time::timeout(CLOSE_TIMEOUT, browser.close()).await;
        }
    }
}
