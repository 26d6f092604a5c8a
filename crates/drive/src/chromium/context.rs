//! [`RunContext`]: the browser context one run's pages live in.
//!
//! A browser context is Chromium's incognito-like profile: its own cookies, storage and cache.
//! Each [`super::ChromiumBrowser`] handle is one run; its pages share one context, created on
//! the first page and disposed (`Target.disposeBrowserContext`, which closes its pages too) when
//! the run ends: at [`super::ChromiumBrowser::close`], or when the handle and its last page are
//! dropped. So runs sharing a browser (a remote one, or a launched one through
//! [`super::ChromiumBrowser::new_run`]) never see each other's sessions, and leave nothing
//! behind. Contexts are also created with `disposeOnDetach`, so Chromium drops them itself
//! when our connection goes without a word (a crash, a kill).

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::sync::atomic::Ordering;

use chromiumoxide::cdp::browser_protocol::browser::BrowserContextId;
use chromiumoxide::cdp::browser_protocol::target::CreateBrowserContextParams;
use chromiumoxide::cdp::browser_protocol::target::DisposeBrowserContextParams;
use tokio::sync::OnceCell;

use super::connection::BACKEND;
use super::connection::BrowserCore;
use crate::error::DriveError;

/// One run's browser context on a shared connection.
#[derive(Debug)]
pub(crate) struct RunContext {
    core: Arc<BrowserCore>,
    id: OnceCell<BrowserContextId>,
    disposed: AtomicBool,
}

impl RunContext {
    pub(crate) fn new(core: Arc<BrowserCore>) -> Self {
        Self {
            core,
            id: OnceCell::new(),
            disposed: AtomicBool::new(false),
        }
    }

    /// The connection this run uses.
    pub(crate) fn core(&self) -> &Arc<BrowserCore> {
        &self.core
    }

    /// The run's context id, creating the context on first use.
    pub(crate) async fn id(&self) -> Result<BrowserContextId, DriveError> {
        let doing = "creating a browser context";
        if self.disposed.load(Ordering::SeqCst) {
            return Err(DriveError::Operation {
                backend: BACKEND.to_owned(),
                doing: doing.to_owned(),
                detail: "this run has ended (its browser context was disposed)".to_owned(),
            });
        }
        let id = self
            .id
            .get_or_try_init(|| async {
                let started = std::time::Instant::now();
                let params = CreateBrowserContextParams {
                    dispose_on_detach: Some(true),
                    ..CreateBrowserContextParams::default()
                };
                let id = self
                    .core
                    .browser()
                    .create_browser_context(params)
                    .await
                    .map_err(|e| self.core.error(doing, e))?;
                tracing::debug!(elapsed = ?started.elapsed(), context = ?id, "browser context created");
                Ok::<_, DriveError>(id)
            })
            .await?;
        Ok(id.clone())
    }

    /// The context id, if the context was created.
    pub(crate) fn created(&self) -> Option<&BrowserContextId> {
        self.id.get()
    }

    /// Disposes the context (closing its pages) and waits for the browser to confirm. Does
    /// nothing when no page was opened, or the second time.
    pub(crate) async fn dispose(&self) -> Result<(), DriveError> {
        if self.disposed.swap(true, Ordering::SeqCst) {
            return Ok(());
        }
        let Some(id) = self.id.get() else {
            return Ok(());
        };
        if self.core.is_dead() {
            return Ok(());
        }
        self.core
            .browser()
            .execute(DisposeBrowserContextParams::new(id.clone()))
            .await
            .map(|_| ())
            .map_err(|e| self.core.error("disposing the browser context", e))
    }
}

impl Drop for RunContext {
    fn drop(&mut self) {
        if self.disposed.load(Ordering::SeqCst) || self.core.is_dead() {
            return;
        }
        let Some(id) = self.id.get().cloned() else {
            return;
        };
        // Best effort: without a runtime the connection is going too, and Chromium disposes
        // the context on detach.
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let core = Arc::clone(&self.core);
        runtime.spawn(async move {
            let answer = core
                .browser()
                .execute(DisposeBrowserContextParams::new(id))
                .await;
            if let Err(error) = answer {
                tracing::debug!(%error, "disposing a dropped run's browser context");
            }
        });
    }
}
