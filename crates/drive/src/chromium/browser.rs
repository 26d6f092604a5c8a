//! [`ChromiumBrowser`]: a handle on a launched or connected Chromium that opens pages. Each
//! handle is one run, with a browser context of its own (see the `context` module); clones
//! share the run, [`ChromiumBrowser::new_run`] starts another on the same connection.
//!
//! How a browser is started or reached lives in `launch` and `remote`; this module only uses
//! the connection they build.

use std::path::PathBuf;
use std::sync::Arc;

use async_trait::async_trait;
use chromiumoxide::cdp::browser_protocol::target::CreateTargetParams;

use super::connection::BrowserCore;
use super::context::RunContext;
use super::page::ChromiumPage;
use crate::backend::BrowserBackend;
use crate::backend::PageFactory;
use crate::error::DriveError;

/// A Chromium browser we launched (killed when the last handle goes) or connected to (left
/// running, its remote session ended when the last handle goes).
#[derive(Debug, Clone)]
pub struct ChromiumBrowser {
    run: Arc<RunContext>,
}

impl ChromiumBrowser {
    pub(crate) fn from_core(core: BrowserCore) -> Self {
        Self {
            run: Arc::new(RunContext::new(Arc::new(core))),
        }
    }

    fn core(&self) -> &Arc<BrowserCore> {
        self.run.core()
    }

    /// Another run on the same connection: its pages live in a browser context of their own,
    /// so they share no cookies or storage with this run's.
    pub fn new_run(&self) -> Self {
        Self {
            run: Arc::new(RunContext::new(Arc::clone(self.core()))),
        }
    }

    /// The browser's DevTools endpoint (another process may connect to it). For a remote
    /// browser it may carry credentials (a `token=` parameter): never log it.
    pub fn ws_url(&self) -> &str {
        self.core().ws_url()
    }

    /// The endpoint this browser was reached at, as errors show it (credentials redacted);
    /// `None` for a browser we launched.
    pub fn endpoint(&self) -> Option<&str> {
        self.core().endpoint()
    }

    /// The browser process id, when we launched it.
    pub fn pid(&self) -> Option<u32> {
        self.core().pid()
    }

    /// The temporary directory holding the profile, when we launched the browser.
    pub fn profile_dir(&self) -> Option<PathBuf> {
        self.core().profile_dir()
    }

    /// The id of this run's browser context (`Target.createBrowserContext`), once a page was
    /// opened.
    pub fn context_id(&self) -> Option<String> {
        self.run
            .created()
            .map(|id| AsRef::<str>::as_ref(id).to_owned())
    }

    /// The underlying chromiumoxide browser, for callers that need a CDP command on the
    /// browser target that retrace does not wrap.
    pub fn cdp_browser(&self) -> &chromiumoxide::Browser {
        self.core().browser()
    }

    /// Opens a blank page at the configured viewport size, in this run's browser context (so
    /// it starts with no cookies or storage from other runs, and leaves none behind).
    ///
    /// Every page gets a window of its own: tabs sharing a window are hidden while another is
    /// in front, and a hidden page produces no frames, so its screenshots would hang. Pages in
    /// separate windows all stay visible, and screenshots of any of them, in any order, work.
    pub async fn open_page(&self) -> Result<ChromiumPage, DriveError> {
        let doing = "opening a page";
        let started = std::time::Instant::now();
        let core = self.core();
        let mut target = CreateTargetParams::new("about:blank");
        target.new_window = Some(true);
        target.width = Some(i64::from(core.width));
        target.height = Some(i64::from(core.height));
        target.browser_context_id = Some(self.run.id().await?);
        let page = core
            .browser()
            .new_page(target)
            .await
            .map_err(|e| core.error(doing, e))?;
        tracing::debug!(elapsed = ?started.elapsed(), "page target created");
        let page = ChromiumPage::new(Arc::clone(&self.run), page).await?;
        tracing::debug!(elapsed = ?started.elapsed(), "page ready");
        Ok(page)
    }

    /// Ends this run: disposes its browser context (closing its pages) and waits for that.
    /// When no other handle or page uses the connection any more, also closes it and ends the
    /// remote session (a Selenium Grid session is deleted, a farm's session slot freed) and
    /// waits for that too, or kills the browser we launched.
    ///
    /// Dropping every handle and page does the same, best effort: prefer `close` at the end
    /// of a run, after dropping its pages.
    pub async fn close(self) -> Result<(), DriveError> {
        let disposed = self.run.dispose().await;
        let core = Arc::clone(self.run.core());
        drop(self);
        if let Ok(core) = Arc::try_unwrap(core) {
            core.shutdown().await;
        }
        disposed
    }
}

#[async_trait]
impl PageFactory for ChromiumBrowser {
    async fn new_page(&self) -> Result<Arc<dyn BrowserBackend>, DriveError> {
        Ok(Arc::new(self.open_page().await?))
    }
}
