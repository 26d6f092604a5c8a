//! The [`Backend`] trait: what retrace needs from anything it can act on (a browser page, an
//! X11 desktop). Tools are written against this trait, never against a concrete backend.
//!
//! Coordinates are in the backend's own pixels (the real display); scaling between the size
//! the model sees and the display is the computer tool's job, not the backend's.

use async_trait::async_trait;

use crate::error::DriveError;
use crate::readiness::PageActivity;
use crate::readiness::Readiness;
use crate::readiness::ReadinessOptions;

/// A PNG screenshot with its pixel size.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Screenshot {
    /// The encoded PNG bytes, exactly as the backend produced them.
    pub png: Vec<u8>,
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
}

/// A mouse button (declared with the action catalogue, whose actions name one).
pub use retrace_protocol::computer_actions::MouseButton;
/// Which way to scroll (declared with the action catalogue).
pub use retrace_protocol::computer_actions::ScrollDirection;

/// A point in backend pixels.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Point {
    /// Pixels from the left edge.
    pub x: i32,
    /// Pixels from the top edge.
    pub y: i32,
}

/// A rectangle in backend pixels (CSS pixels for browsers); defined with [`ElementInfo`],
/// whose box it is.
pub use retrace_protocol::BoundingBox;
pub use retrace_protocol::ElementInfo;

/// Something retrace can see and act on: screenshots in, mouse and keyboard out.
///
/// Every method names what it was doing in its error, so a backend that died mid-run says
/// "taking a screenshot" or "clicking at (10, 20)" rather than "connection closed".
#[async_trait]
pub trait Backend: Send + Sync {
    /// A short name for logs and errors ("chromium", "x11").
    fn name(&self) -> &str;
    /// The display size in pixels (width, height).
    async fn display_size(&self) -> Result<(u32, u32), DriveError>;
    /// Captures the whole display as PNG, holding every change the UI made before the call
    /// (a backend waits for the UI to render them), however loaded the machine is.
    async fn screenshot(&self) -> Result<Screenshot, DriveError>;
    /// Captures the display as it is shown right now, without waiting for anything pending
    /// (what a fixed-delay replay, askui's way, sees after its sleep). Defaults to
    /// [`Backend::screenshot`] for backends that never wait.
    async fn screenshot_as_shown(&self) -> Result<Screenshot, DriveError> {
        self.screenshot().await
    }
    /// Moves the pointer to `to`.
    async fn mouse_move(&self, to: Point) -> Result<(), DriveError>;
    /// Presses `button` at the current pointer position.
    async fn mouse_down(&self, button: MouseButton) -> Result<(), DriveError>;
    /// Releases `button` at the current pointer position.
    async fn mouse_up(&self, button: MouseButton) -> Result<(), DriveError>;
    /// Moves to `at` and clicks `button` `count` times (2 = double click, 3 = triple).
    async fn click(&self, at: Point, button: MouseButton, count: u32) -> Result<(), DriveError>;
    /// Presses the left button at `from`, moves to `to`, releases.
    async fn drag(&self, from: Point, to: Point) -> Result<(), DriveError>;
    /// Scrolls `amount` notches in `direction` with the pointer at `at`.
    async fn scroll(
        &self,
        at: Point,
        direction: ScrollDirection,
        amount: u32,
    ) -> Result<(), DriveError>;
    /// Types `text`; with `delay_ms`, waits that long between characters.
    async fn type_text(&self, text: &str, delay_ms: Option<u64>) -> Result<(), DriveError>;
    /// Presses and releases a key combination in xdotool names (`ctrl+a`, `Return`,
    /// `shift+Tab`).
    async fn key(&self, combo: &str) -> Result<(), DriveError>;
    /// Holds a key combination down for `duration_ms`, then releases it.
    async fn hold_key(&self, combo: &str, duration_ms: u64) -> Result<(), DriveError>;
    /// Presses the keys of a combination and leaves them held (for modifiers held during a
    /// click or scroll). Backends that cannot hold keys say so.
    async fn key_down(&self, combo: &str) -> Result<(), DriveError> {
        Err(DriveError::InvalidInput(format!(
            "the {} backend cannot hold `{combo}` down",
            self.name()
        )))
    }
    /// Releases the keys of a combination pressed with [`Backend::key_down`].
    async fn key_up(&self, combo: &str) -> Result<(), DriveError> {
        Err(DriveError::InvalidInput(format!(
            "the {} backend cannot release `{combo}`",
            self.name()
        )))
    }
    /// The pointer position as the backend last placed it.
    async fn cursor_position(&self) -> Result<Point, DriveError>;
    /// Waits, at most `timeout`, until what the backend shows is still (a desktop window:
    /// two identical captures, a blinking caret not holding it). `Some(still)` when the
    /// backend can tell, `None` (the default) when it cannot: the caller then waits its own way.
    async fn wait_still(&self, timeout: std::time::Duration) -> Result<Option<bool>, DriveError> {
        let _ = timeout;
        Ok(None)
    }
    /// The browser-only capabilities, when this backend is a browser.
    fn as_browser(&self) -> Option<&dyn BrowserBackend> {
        None
    }
}

/// What a browser adds to a [`Backend`]: navigation, the DOM, network idleness, and what is
/// at a point and whether the page is ready (for replay's checks).
///
/// The element and readiness methods have defaults that say "not supported"
/// ([`DriveError::Unsupported`]), so a browser backend without a DOM view still compiles and
/// its callers fall back to visual checks. A desktop backend (X11) is no `BrowserBackend` at
/// all ([`Backend::as_browser`] is `None`): its elements, when the application publishes
/// them, come from an [`ElementSource`] (the accessibility bus).
#[async_trait]
pub trait BrowserBackend: Backend {
    /// Navigates to `url` and waits for the load event.
    async fn navigate(&self, url: &str) -> Result<(), DriveError>;
    /// Waits until no request has been in flight for `idle_ms`, or `timeout_ms` passes.
    async fn wait_for_network_idle(&self, idle_ms: u64, timeout_ms: u64) -> Result<(), DriveError>;
    /// The box of the innermost element at `at`, if any.
    async fn element_box_at(&self, at: Point) -> Result<Option<BoundingBox>, DriveError>;
    /// The box of the first element matching a CSS `selector`, if any.
    async fn query_selector(&self, selector: &str) -> Result<Option<BoundingBox>, DriveError>;
    /// A compact, size-bounded JSON view of the page's interactive elements.
    async fn dom_snapshot(&self) -> Result<serde_json::Value, DriveError>;
    /// The current page URL.
    async fn current_url(&self) -> Result<String, DriveError>;
    /// Evaluates a JavaScript expression in the page and returns its JSON value (promises are
    /// awaited). The escape hatch for page-level logic such as "wait until this selector is
    /// visible and enabled".
    async fn evaluate(&self, expression: &str) -> Result<serde_json::Value, DriveError>;
    /// Closes this page. Later calls fail with [`DriveError::BackendGone`].
    async fn close(&self) -> Result<(), DriveError>;
    /// The element hit at `at` (CSS pixels of the viewport), as its actionable ancestor (the
    /// closest link, button, form field, label's control, widget, focusable or clickable
    /// element; else the hit element itself), with whether a click at `at` reaches it.
    /// `None` where nothing is.
    async fn element_at(&self, at: Point) -> Result<Option<ElementInfo>, DriveError> {
        Err(unsupported(
            self.name(),
            &format!("the element at ({}, {})", at.x, at.y),
        ))
    }
    /// The element with the keyboard focus (through shadow roots and iframes), with its
    /// value; `None` when nothing has the focus.
    async fn focused_element(&self) -> Result<Option<ElementInfo>, DriveError> {
        Err(unsupported(self.name(), "the focused element"))
    }
    /// The visible elements with role `role` and accessible name `name` (exact after
    /// whitespace normalisation), in document order; whether each receives events is judged
    /// at its centre.
    async fn find_elements(&self, role: &str, name: &str) -> Result<Vec<ElementInfo>, DriveError> {
        Err(unsupported(
            self.name(),
            &format!("finding the {role} named {name:?}"),
        ))
    }
    /// The sorted types of the event listeners that matter for acting
    /// ([`retrace_protocol::element::acts_on_event`]) on the element an action at `at` goes
    /// to (the innermost one hit; the focused one for `None`) and on its ancestors up to the
    /// document and window; `None` when there is no such element. What a recording keeps so
    /// replay acts only once the page listens again.
    async fn listener_types(&self, at: Option<Point>) -> Result<Option<Vec<String>>, DriveError> {
        let what = match at {
            Some(at) => format!("the event listeners at ({}, {})", at.x, at.y),
            None => "the event listeners of the focused element".to_owned(),
        };
        Err(unsupported(self.name(), &what))
    }
    /// Captures the part of the viewport in `part` (CSS pixels) as PNG, as fresh as
    /// [`Backend::screenshot`]: what replay takes when its checks read only the pixels around
    /// one point (a fraction of a whole screenshot's cost to the browser).
    async fn screenshot_part(
        &self,
        part: retrace_vision::Region,
    ) -> Result<Screenshot, DriveError> {
        Err(unsupported(
            self.name(),
            &format!("a screenshot of part {part} of the page"),
        ))
    }
    /// Chooses the option labelled `option` (or else of that value) in the dropdown (an HTML
    /// `<select>`) at `at`, as choosing it in the list the browser draws outside the page
    /// does (the `input` and `change` events), and returns the option's label once the
    /// dropdown holds it. [`DriveError::InvalidInput`] names what is there instead (no
    /// dropdown, the options it has).
    async fn select_option(&self, at: Point, option: &str) -> Result<String, DriveError> {
        let _ = option;
        Err(unsupported(
            self.name(),
            &format!("choosing an option of the dropdown at ({}, {})", at.x, at.y),
        ))
    }
    /// Answers the page's next JavaScript dialogs with `dialogs`, in order, instead of
    /// dismissing them and failing the next input (what a replay expects of its next step;
    /// see `chromium::dialogs`). A backend without dialogs ignores it.
    fn expect_dialogs(&self, _dialogs: &[retrace_protocol::dialog::Dialog]) {}
    /// What the page is doing now (requests, navigation, load state, rendering): the cheap
    /// signal to poll; see [`crate::readiness`].
    async fn page_activity(&self) -> Result<PageActivity, DriveError> {
        Err(unsupported(self.name(), "what the page is doing"))
    }
    /// Polls [`BrowserBackend::page_activity`] until every condition `options` requires
    /// holds or its timeout passes; returns the last judgement either way (the report says
    /// which conditions held). Fails only when the backend does (the page or the browser is
    /// gone).
    async fn wait_until_ready(&self, options: &ReadinessOptions) -> Result<Readiness, DriveError> {
        let started = std::time::Instant::now();
        loop {
            let activity = self.page_activity().await?;
            let mut readiness = Readiness::assess(&activity, options);
            let waited = started.elapsed();
            readiness.waited_ms = u64::try_from(waited.as_millis()).unwrap_or(u64::MAX);
            if readiness.ready || waited >= options.timeout {
                return Ok(readiness);
            }
            tokio::time::sleep(options.poll).await;
        }
    }
}

/// The error of a browser backend that cannot tell `what`.
fn unsupported(backend: &str, what: &str) -> DriveError {
    DriveError::Unsupported {
        backend: backend.to_owned(),
        what: what.to_owned(),
    }
}

/// Opens new, independent pages (tabs) in one browser: each web executor session is one page.
#[async_trait]
pub trait PageFactory: Send + Sync {
    /// Opens a blank page at the browser's configured viewport size.
    async fn new_page(&self) -> Result<std::sync::Arc<dyn BrowserBackend>, DriveError>;
}

#[cfg(test)]
#[path = "backend_tests.rs"]
mod tests;

/// What a backend says about the elements on its screen, in its own pixels: a browser's page
/// (its DOM), or a desktop application's accessibility tree (AT-SPI). Replay's semantic and
/// state checks ask this, so they compare desktop elements as they compare a page's.
#[async_trait]
pub trait ElementSource: Send + Sync {
    /// The element at `at`, `None` when nothing is there.
    async fn element_at(&self, at: Point) -> Result<Option<ElementInfo>, DriveError>;
    /// The element with the keyboard focus, `None` when nothing has it.
    async fn focused_element(&self) -> Result<Option<ElementInfo>, DriveError>;
    /// The shown elements with this role and name.
    async fn find_elements(&self, role: &str, name: &str) -> Result<Vec<ElementInfo>, DriveError>;
    /// Whether it still answers: `false` once a desktop's accessibility bus stopped answering
    /// (checks then fall back to pixels).
    fn available(&self) -> bool {
        true
    }
}

/// A browser page as an [`ElementSource`].
pub struct PageElements(pub std::sync::Arc<dyn BrowserBackend>);

#[async_trait]
impl ElementSource for PageElements {
    async fn element_at(&self, at: Point) -> Result<Option<ElementInfo>, DriveError> {
        self.0.element_at(at).await
    }

    async fn focused_element(&self) -> Result<Option<ElementInfo>, DriveError> {
        self.0.focused_element().await
    }

    async fn find_elements(&self, role: &str, name: &str) -> Result<Vec<ElementInfo>, DriveError> {
        self.0.find_elements(role, name).await
    }
}
