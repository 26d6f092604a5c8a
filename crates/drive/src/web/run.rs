//! One web command running in one session: waiting for its element, acting on it, and the
//! context (action, session, selector) every error it ends with names.

use serde_json::Value;

use super::command::check_variable_name;
use super::command::url_refusal;
use super::config::WebExecutorConfig;
use super::dom_view::bound_dom;
use super::element;
use super::element::WaitFailure;
use super::element::Want;
use super::error::WebError;
use super::session::Session;
use super::session::lock;
use crate::backend::BrowserBackend;
use crate::backend::MouseButton;
use crate::backend::Point;
use crate::error::DriveError;

/// One command running in one session: the context every error names.
pub(super) struct Run<'a> {
    pub(super) config: &'a WebExecutorConfig,
    pub(super) session: &'a Session,
    pub(super) id: &'a str,
    pub(super) action: &'static str,
    pub(super) selector: Option<&'a str>,
}

pub(super) type Done = (String, Option<Value>);

impl Run<'_> {
    fn page(&self) -> &dyn BrowserBackend {
        self.session.page.as_ref()
    }

    fn backend(&self, source: DriveError) -> WebError {
        WebError::Backend {
            action: self.action.to_owned(),
            session: self.id.to_owned(),
            selector: self.selector.map(str::to_owned),
            source: Box::new(source),
        }
    }

    /// Waits for network idle; a timeout is only noted (some pages never go quiet).
    async fn settle(&self) -> Result<&'static str, WebError> {
        let config = self.config;
        match self
            .page()
            .wait_for_network_idle(config.network_idle_ms, config.network_idle_timeout_ms)
            .await
        {
            Ok(()) => Ok(""),
            Err(DriveError::Timeout { .. }) => Ok(" (the network was still busy)"),
            Err(error) => Err(self.backend(error)),
        }
    }

    async fn wait(&self, selector: &str, want: Want) -> Result<element::Ready, WebError> {
        let config = self.config;
        let timeout_ms = config.element_timeout_ms;
        match element::wait_for(self.page(), selector, want, timeout_ms, config.poll_ms).await {
            Ok(ready) => Ok(ready),
            Err(WaitFailure::Invalid(detail)) => Err(WebError::BadSelector {
                action: self.action.to_owned(),
                session: self.id.to_owned(),
                selector: selector.to_owned(),
                detail,
            }),
            Err(WaitFailure::Missing) => Err(WebError::ElementNotFound {
                action: self.action.to_owned(),
                session: self.id.to_owned(),
                selector: selector.to_owned(),
                timeout_ms,
                url: self
                    .page()
                    .current_url()
                    .await
                    .unwrap_or_else(|_| "unknown".to_owned()),
            }),
            Err(WaitFailure::NotReady(state)) => Err(WebError::NotActionable {
                action: self.action.to_owned(),
                session: self.id.to_owned(),
                selector: selector.to_owned(),
                state,
                timeout_ms,
            }),
            Err(WaitFailure::Backend(source)) => Err(self.backend(source)),
        }
    }

    /// Waits until the element is usable and returns the centre of its box.
    async fn usable_point(&self, selector: &str, want: Want) -> Result<Point, WebError> {
        let ready = self.wait(selector, want).await?;
        let Some(bounds) = ready.bounds else {
            return Err(self.backend(DriveError::InvalidInput(format!(
                "the page reported no box for `{selector}`"
            ))));
        };
        // Rounded to whole CSS pixels; the float-to-int cast saturates, and page boxes are
        // inside the viewport here.
        Ok(Point {
            x: (bounds.x + bounds.width / 2.0).round() as i32,
            y: (bounds.y + bounds.height / 2.0).round() as i32,
        })
    }

    pub(super) async fn open_page(&self, url: &str) -> Result<Done, WebError> {
        if let Some(reason) = url_refusal(url, &self.config.allowed_url_schemes) {
            return Err(WebError::UrlRefused {
                session: self.id.to_owned(),
                url: url.chars().take(200).collect(),
                reason,
            });
        }
        self.page()
            .navigate(url)
            .await
            .map_err(|e| self.backend(e))?;
        let note = self.settle().await?;
        let current = self
            .page()
            .current_url()
            .await
            .map_err(|e| self.backend(e))?;
        Ok((
            format!("Opened {current}{note}"),
            Some(serde_json::json!({ "url": current })),
        ))
    }

    pub(super) async fn click(&self, selector: &str) -> Result<Done, WebError> {
        let point = self.usable_point(selector, Want::Clickable).await?;
        self.page()
            .click(point, MouseButton::Left, 1)
            .await
            .map_err(|e| self.backend(e))?;
        let note = self.settle().await?;
        Ok((
            format!("Clicked `{selector}` at ({}, {}){note}", point.x, point.y),
            Some(serde_json::json!({ "x": point.x, "y": point.y })),
        ))
    }

    pub(super) async fn input_text(&self, selector: &str, text: &str) -> Result<Done, WebError> {
        let point = self.usable_point(selector, Want::Editable).await?;
        let page = self.page();
        page.click(point, MouseButton::Left, 1)
            .await
            .map_err(|e| self.backend(e))?;
        let focused = page
            .evaluate(&element::select_contents_js(selector))
            .await
            .map_err(|e| self.backend(e))?;
        if focused != Value::Bool(true) {
            return Err(WebError::NotActionable {
                action: self.action.to_owned(),
                session: self.id.to_owned(),
                selector: selector.to_owned(),
                state: "did not take the keyboard focus".to_owned(),
                timeout_ms: 0,
            });
        }
        if text.is_empty() {
            page.key("Delete").await.map_err(|e| self.backend(e))?;
        } else {
            page.type_text(text, None)
                .await
                .map_err(|e| self.backend(e))?;
        }
        let note = self.settle().await?;
        let count = text.chars().count();
        Ok((
            format!("Typed {count} characters into `{selector}`{note}"),
            Some(serde_json::json!({ "characters": count })),
        ))
    }

    pub(super) async fn save_variable(&self, selector: &str, name: &str) -> Result<Done, WebError> {
        check_variable_name(self.action, name)?;
        let ready = self.wait(selector, Want::Present).await?;
        let value = ready.text.unwrap_or_default();
        lock(&self.session.variables).insert(name.to_owned(), value.clone());
        Ok((
            format!("Saved {name} = {value:?}"),
            Some(serde_json::json!({ "variableName": name, "value": value })),
        ))
    }

    pub(super) async fn get_dom(&self) -> Result<Done, WebError> {
        let snapshot = self
            .page()
            .dom_snapshot()
            .await
            .map_err(|e| self.backend(e))?;
        let (text, view) = bound_dom(snapshot, self.config.max_dom_chars);
        Ok((text, Some(view)))
    }
}
