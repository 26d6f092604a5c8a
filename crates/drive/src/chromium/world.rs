//! Running retrace's own page-side scripts in an **isolated world**, where the page's scripts
//! cannot reach them.
//!
//! An isolated world (what browser extensions' content scripts run in) shares the page's DOM
//! but has its own JavaScript globals and prototypes: a page that replaces
//! `document.elementFromPoint`, `getComputedStyle`, `performance.now` or the timers (fake
//! timers in a test app, a framework's polyfill) changes them in its own world only, and a
//! variable a retrace script keeps on `globalThis` is invisible to the page.
//!
//! The world used is the one chromiumoxide already creates in every frame and every new
//! document (`Page.createIsolatedWorld` with universal access, named
//! [`UTILITY_WORLD_NAME`]); chromiumoxide tracks its execution context through navigations
//! and hands out its id ([`Page::secondary_execution_context`]). When it has none (the moment
//! a new document is created), the world is created for the main frame here, under the same
//! name. A context destroyed between asking for its id and evaluating (a navigation) is asked
//! for again, a few times.
//!
//! [`crate::BrowserBackend::evaluate`] stays in the page's main world: it is the escape
//! hatch for page-level logic that wants the page's own globals.

use chromiumoxide::Page;
use chromiumoxide::cdp::browser_protocol::page::CreateIsolatedWorldParams;
use chromiumoxide::cdp::js_protocol::runtime::EvaluateParams;
use chromiumoxide::cdp::js_protocol::runtime::ExecutionContextId;
use chromiumoxide::cdp::js_protocol::runtime::RemoteObject;
use chromiumoxide::cdp::js_protocol::runtime::RemoteObjectId;
use chromiumoxide::error::CdpError;
pub(crate) use chromiumoxide::handler::frame::UTILITY_WORLD_NAME;

use super::connection::BACKEND;
use super::connection::BrowserCore;
use crate::error::DriveError;

/// How often evaluation is tried when the world's context goes away under it.
const ATTEMPTS: usize = 3;

/// The isolated world of one page's main frame.
pub(crate) struct IsolatedWorld<'a> {
    page: &'a Page,
    core: &'a BrowserCore,
}

impl<'a> IsolatedWorld<'a> {
    pub(crate) fn new(page: &'a Page, core: &'a BrowserCore) -> Self {
        Self { page, core }
    }

    /// The page, for CDP commands on the objects the world hands out.
    pub(crate) fn page(&self) -> &'a Page {
        self.page
    }

    /// `error` of `doing`, as the browser's errors are reported.
    pub(crate) fn error(&self, doing: &str, error: CdpError) -> DriveError {
        self.core.error(doing, error)
    }

    /// Evaluates `expression` in the isolated world and returns its JSON value (promises are
    /// awaited). `doing` names the operation in errors.
    pub(crate) async fn evaluate(
        &self,
        doing: &str,
        expression: &str,
    ) -> Result<serde_json::Value, DriveError> {
        let answer = self.run(doing, expression, None).await?;
        Ok(answer.value.unwrap_or(serde_json::Value::Null))
    }

    /// Evaluates `expression` in the isolated world and returns the object it gives, held in
    /// `group` (released by `Runtime.releaseObjectGroup`); `None` for a primitive (`null`).
    pub(crate) async fn evaluate_object(
        &self,
        doing: &str,
        expression: &str,
        group: &str,
    ) -> Result<Option<RemoteObjectId>, DriveError> {
        let answer = self.run(doing, expression, Some(group)).await?;
        Ok(answer.object_id)
    }

    /// Evaluates `expression`, by value without a `group`, else as an object held in it.
    async fn run(
        &self,
        doing: &str,
        expression: &str,
        group: Option<&str>,
    ) -> Result<RemoteObject, DriveError> {
        let mut last_error = None;
        for _ in 0..ATTEMPTS {
            let context = self.context(doing).await?;
            let mut params = EvaluateParams::new(expression);
            params.context_id = Some(context);
            params.await_promise = Some(true);
            params.return_by_value = Some(group.is_none());
            params.object_group = group.map(str::to_owned);
            let answer = match self.page.execute(params).await {
                Ok(answer) => answer,
                Err(error) if context_gone(&error) => {
                    tracing::debug!(%error, "isolated world context gone; asking again");
                    last_error = Some(error);
                    // Let chromiumoxide's handler take in the context events first.
                    tokio::task::yield_now().await;
                    continue;
                }
                Err(error) => return Err(self.core.error(doing, error)),
            };
            if let Some(exception) = &answer.result.exception_details {
                let message = exception
                    .exception
                    .as_ref()
                    .and_then(|e| e.description.clone())
                    .unwrap_or_else(|| exception.text.clone());
                return Err(DriveError::Operation {
                    backend: BACKEND.to_owned(),
                    doing: doing.to_owned(),
                    detail: format!("the script threw: {message}"),
                });
            }
            return Ok(answer.result.result);
        }
        Err(match last_error {
            Some(error) => self.core.error(doing, error),
            None => DriveError::Operation {
                backend: BACKEND.to_owned(),
                doing: doing.to_owned(),
                detail: "no isolated world to run in".to_owned(),
            },
        })
    }

    /// The world's execution context id in the main frame, created when there is none.
    async fn context(&self, doing: &str) -> Result<ExecutionContextId, DriveError> {
        let known = self
            .page
            .secondary_execution_context()
            .await
            .map_err(|e| self.core.error(doing, e))?;
        if let Some(context) = known {
            return Ok(context);
        }
        let frame = self
            .page
            .mainframe()
            .await
            .map_err(|e| self.core.error(doing, e))?
            .ok_or_else(|| DriveError::Operation {
                backend: BACKEND.to_owned(),
                doing: doing.to_owned(),
                detail: "the page has no main frame yet".to_owned(),
            })?;
        let mut create = CreateIsolatedWorldParams::new(frame);
        create.world_name = Some(UTILITY_WORLD_NAME.to_owned());
        create.grant_univeral_access = Some(true);
        let created = self
            .page
            .execute(create)
            .await
            .map_err(|e| self.core.error(doing, e))?;
        Ok(created.result.execution_context_id)
    }
}

/// Whether a CDP error says the execution context no longer exists (CDP reports it only as
/// text: "Cannot find context with specified id", "Execution context was destroyed").
fn context_gone(error: &CdpError) -> bool {
    let CdpError::Chrome(error) = error else {
        return false;
    };
    let message = error.message.to_ascii_lowercase();
    message.contains("cannot find context") || message.contains("context was destroyed")
}
