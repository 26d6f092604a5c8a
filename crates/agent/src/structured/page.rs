//! What the structured model is shown of the page each step: URL, title, a size-bounded DOM
//! view of the interactive elements, the session's saved variables and, optionally, a
//! screenshot. [`PageObserver`] is the seam; [`ExecutorObserver`] reads a web executor
//! session.

use std::collections::BTreeMap;
use std::sync::Arc;

use async_trait::async_trait;
use retrace_drive::web::WebExecutor;

/// The page as the model sees it at the start of a step.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PageState {
    /// The current URL, when it can be read.
    pub url: Option<String>,
    /// The document title, when known.
    pub title: Option<String>,
    /// The DOM view as compact JSON (`{url, title, elements: [...], truncated}`), cut to size.
    pub dom: Option<String>,
    /// A PNG screenshot, when asked for and available.
    pub screenshot_png: Option<Vec<u8>>,
    /// The variables the session has saved (`${name}` references resolve to these).
    pub variables: BTreeMap<String, String>,
    /// What could not be read (the page is gone, no session yet), for the model to know.
    pub problem: Option<String>,
}

/// A source of page states.
#[async_trait]
pub trait PageObserver: Send + Sync {
    /// Reads the page now. Never fails: what cannot be read is left out and named in
    /// [`PageState::problem`].
    async fn observe(&self) -> PageState;
}

/// Observes one session of a [`WebExecutor`].
pub struct ExecutorObserver {
    executor: Arc<WebExecutor>,
    session: String,
    screenshots: bool,
    max_dom_chars: usize,
}

impl std::fmt::Debug for ExecutorObserver {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("ExecutorObserver")
            .field("session", &self.session)
            .field("screenshots", &self.screenshots)
            .field("max_dom_chars", &self.max_dom_chars)
            .finish()
    }
}

impl ExecutorObserver {
    /// Observes `session` of `executor`; with `screenshots`, each state carries a PNG. The
    /// DOM view is cut to the executor's `max_dom_chars`.
    pub fn new(executor: Arc<WebExecutor>, session: impl Into<String>, screenshots: bool) -> Self {
        let max_dom_chars = executor.config().max_dom_chars;
        Self {
            executor,
            session: session.into(),
            screenshots,
            max_dom_chars,
        }
    }
}

#[async_trait]
impl PageObserver for ExecutorObserver {
    async fn observe(&self) -> PageState {
        let mut state = PageState::default();
        let page = match self.executor.page(&self.session) {
            Ok(page) => page,
            Err(error) => {
                state.problem = Some(error.to_string());
                return state;
            }
        };
        state.variables = self.executor.variables(&self.session).unwrap_or_default();
        let mut problems = Vec::new();
        match page.dom_snapshot().await {
            Ok(snapshot) => {
                let (text, view) = retrace_drive::web::bound_dom(snapshot, self.max_dom_chars);
                state.url = view
                    .get("url")
                    .and_then(serde_json::Value::as_str)
                    .map(str::to_owned);
                state.title = view
                    .get("title")
                    .and_then(serde_json::Value::as_str)
                    .map(str::to_owned);
                state.dom = Some(text);
            }
            Err(error) => problems.push(format!("the DOM cannot be read: {error}")),
        }
        if state.url.is_none() {
            state.url = page.current_url().await.ok();
        }
        if self.screenshots {
            match page.screenshot().await {
                Ok(shot) => state.screenshot_png = Some(shot.png),
                Err(error) => problems.push(format!("no screenshot: {error}")),
            }
        }
        if !problems.is_empty() {
            state.problem = Some(problems.join("; "));
        }
        state
    }
}
