//! The defaults of [`BrowserBackend`]'s element and readiness methods: a browser backend that
//! has no DOM view says "not supported", so its callers fall back to visual checks.

use super::*;
use crate::readiness::ReadinessOptions;

/// A browser backend that implements only what it must.
struct Bare;

fn nothing<T>() -> Result<T, DriveError> {
    Err(DriveError::InvalidInput("not used in this test".to_owned()))
}

#[async_trait]
impl Backend for Bare {
    fn name(&self) -> &str {
        "bare"
    }
    async fn display_size(&self) -> Result<(u32, u32), DriveError> {
        nothing()
    }
    async fn screenshot(&self) -> Result<Screenshot, DriveError> {
        nothing()
    }
    async fn mouse_move(&self, _to: Point) -> Result<(), DriveError> {
        nothing()
    }
    async fn mouse_down(&self, _button: MouseButton) -> Result<(), DriveError> {
        nothing()
    }
    async fn mouse_up(&self, _button: MouseButton) -> Result<(), DriveError> {
        nothing()
    }
    async fn click(&self, _at: Point, _button: MouseButton, _count: u32) -> Result<(), DriveError> {
        nothing()
    }
    async fn drag(&self, _from: Point, _to: Point) -> Result<(), DriveError> {
        nothing()
    }
    async fn scroll(
        &self,
        _at: Point,
        _direction: ScrollDirection,
        _amount: u32,
    ) -> Result<(), DriveError> {
        nothing()
    }
    async fn type_text(&self, _text: &str, _delay_ms: Option<u64>) -> Result<(), DriveError> {
        nothing()
    }
    async fn key(&self, _combo: &str) -> Result<(), DriveError> {
        nothing()
    }
    async fn hold_key(&self, _combo: &str, _duration_ms: u64) -> Result<(), DriveError> {
        nothing()
    }
    async fn cursor_position(&self) -> Result<Point, DriveError> {
        nothing()
    }
}

#[async_trait]
impl BrowserBackend for Bare {
    async fn navigate(&self, _url: &str) -> Result<(), DriveError> {
        nothing()
    }
    async fn wait_for_network_idle(
        &self,
        _idle_ms: u64,
        _timeout_ms: u64,
    ) -> Result<(), DriveError> {
        nothing()
    }
    async fn element_box_at(&self, _at: Point) -> Result<Option<BoundingBox>, DriveError> {
        nothing()
    }
    async fn query_selector(&self, _selector: &str) -> Result<Option<BoundingBox>, DriveError> {
        nothing()
    }
    async fn dom_snapshot(&self) -> Result<serde_json::Value, DriveError> {
        nothing()
    }
    async fn current_url(&self) -> Result<String, DriveError> {
        nothing()
    }
    async fn evaluate(&self, _expression: &str) -> Result<serde_json::Value, DriveError> {
        nothing()
    }
    async fn close(&self) -> Result<(), DriveError> {
        nothing()
    }
}

fn unsupported_what(result: Result<impl std::fmt::Debug, DriveError>) -> String {
    match result {
        Err(DriveError::Unsupported { backend, what }) => {
            assert_eq!(backend, "bare");
            what
        }
        other => panic!("expected Unsupported, got {other:?}"),
    }
}

#[tokio::test]
async fn element_and_readiness_questions_default_to_unsupported() {
    let page = Bare;
    assert_eq!(
        unsupported_what(page.element_at(Point { x: 3, y: 4 }).await),
        "the element at (3, 4)"
    );
    assert_eq!(
        unsupported_what(page.focused_element().await),
        "the focused element"
    );
    assert_eq!(
        unsupported_what(page.find_elements("button", "Save").await),
        "finding the button named \"Save\""
    );
    assert_eq!(
        unsupported_what(page.page_activity().await),
        "what the page is doing"
    );
    // Waiting fails at once rather than polling out its timeout.
    let error = page
        .wait_until_ready(&ReadinessOptions::ready_to_act())
        .await
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "the bare backend cannot tell what the page is doing"
    );
}
