//! What the server is started with, and what all its sessions share.

use std::path::PathBuf;
use std::sync::Arc;

use crate::BrowserConfig;

use crate::mcp::warm::WarmBrowser;

/// What the server is started with.
#[derive(Debug, Clone)]
pub struct ServerSettings {
    /// The browser the tools use (launched and kept warm, or a remote one).
    pub browser: BrowserConfig,
    /// Where evidence goes by default (check results, screenshots, run reports), one folder
    /// per call under it.
    pub out_dir: PathBuf,
}

/// What every session of the server shares (one per stdio server; over HTTP, one for all
/// its sessions): the settings and the warm browser.
#[derive(Debug)]
pub struct SharedState {
    /// The settings.
    pub settings: ServerSettings,
    /// The browser kept between calls.
    pub warm: Arc<WarmBrowser>,
    /// Numbers calls, for their evidence folders.
    calls: std::sync::atomic::AtomicU64,
}

impl SharedState {
    /// The state of a server started with `settings`.
    pub fn new(settings: ServerSettings) -> Self {
        Self {
            warm: Arc::new(WarmBrowser::new(settings.browser.clone())),
            settings,
            calls: std::sync::atomic::AtomicU64::new(0),
        }
    }

    /// A fresh evidence folder for a call of `tool`: `OUT/<tool>-<n>` (`n` counts calls
    /// since the server started; the process id keeps two servers in one folder apart).
    pub fn call_dir(&self, tool: &str) -> PathBuf {
        let n = self
            .calls
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed)
            + 1;
        self.settings
            .out_dir
            .join(format!("{tool}-{}-{n}", std::process::id()))
    }
}
