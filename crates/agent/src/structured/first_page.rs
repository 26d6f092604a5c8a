//! [`FirstPageFactory`]: a page factory that hands out a page that is already open (the one
//! a command navigated to `--url`) for the first session, and new pages after that — so a
//! web executor's default session is the page a replay or a screenshot watches.

use std::sync::Arc;
use std::sync::Mutex;

use async_trait::async_trait;
use retrace_drive::BrowserBackend;
use retrace_drive::backend::PageFactory;
use retrace_drive::error::DriveError;
use retrace_drive::web::WebExecutor;
use retrace_drive::web::WebExecutorConfig;

/// Hands out `first` once, then opens pages from `rest`.
pub struct FirstPageFactory {
    first: Mutex<Option<Arc<dyn BrowserBackend>>>,
    rest: Arc<dyn PageFactory>,
}

impl std::fmt::Debug for FirstPageFactory {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let pending = self
            .first
            .lock()
            .map(|first| first.is_some())
            .unwrap_or(false);
        formatter
            .debug_struct("FirstPageFactory")
            .field("first_pending", &pending)
            .finish()
    }
}

impl FirstPageFactory {
    /// `first` for the first session, then pages from `rest`.
    pub fn new(first: Arc<dyn BrowserBackend>, rest: Arc<dyn PageFactory>) -> Self {
        Self {
            first: Mutex::new(Some(first)),
            rest,
        }
    }
}

#[async_trait]
impl PageFactory for FirstPageFactory {
    async fn new_page(&self) -> Result<Arc<dyn BrowserBackend>, DriveError> {
        let first = self
            .first
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take();
        match first {
            Some(page) => Ok(page),
            None => self.rest.new_page().await,
        }
    }
}

/// A web executor whose default session (opened on first use) is `page`; further sessions
/// get new pages from `browser`.
pub fn executor_on_page(
    page: Arc<dyn BrowserBackend>,
    browser: Arc<dyn PageFactory>,
    config: WebExecutorConfig,
) -> Arc<WebExecutor> {
    Arc::new(WebExecutor::new(
        Arc::new(FirstPageFactory::new(page, browser)),
        config,
    ))
}
