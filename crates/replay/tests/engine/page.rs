//! A scripted browser page behind the world's screen: the elements at points, the focused
//! field and whether the page is busy, so the semantic, state and readiness behaviour of the
//! engine is tested without Chromium. Like the screen, it changes per probe or per action,
//! never with the clock.

use std::sync::Arc;
use std::sync::Mutex;
use std::time::Duration;

use async_trait::async_trait;
use retrace_drive::Backend;
use retrace_drive::BrowserBackend;
use retrace_drive::DriveError;
use retrace_drive::backend::BoundingBox;
use retrace_drive::backend::ElementInfo;
use retrace_drive::backend::MouseButton;
use retrace_drive::backend::Point;
use retrace_drive::backend::Screenshot;
use retrace_drive::backend::ScrollDirection;
use retrace_drive::readiness::DocumentActivity;
use retrace_drive::readiness::PageActivity;
use serde_json::json;

/// An element with `role` and `name` covering `bounds` (x, y, width, height), enabled and
/// reachable.
pub fn element(role: &str, name: &str, (x, y, width, height): (f64, f64, f64, f64)) -> ElementInfo {
    serde_json::from_value(json!({
        "role": role, "name": name, "text": name, "tag": "button",
        "selector": format!("#{}", name.to_lowercase().replace(' ', "-")),
        "box": {"x": x, "y": y, "width": width, "height": height},
        "disabled": false, "focused": false, "editable": role == "textbox",
        "receives_events": true
    }))
    .unwrap()
}

/// What the page holds.
#[derive(Default)]
pub struct PageModel {
    /// The elements, topmost first: the first whose box holds a point is the one there.
    pub elements: Vec<ElementInfo>,
    /// The field with the focus.
    pub focused: Option<ElementInfo>,
    /// How many more activity probes answer "a request is in flight".
    pub busy_probes: usize,
    /// How many more activity probes answer "a navigation is under way".
    pub navigating_probes: usize,
    /// Activity probes answered so far.
    pub probes: usize,
    /// Times the page was asked which element has the focus.
    pub focus_probes: usize,
    /// Drops every `.` typed into the focused field (the demo's `amount-rewritten` fault).
    pub drops_dots: bool,
    /// How long the page says it has been quiet (network, navigation, DOM and repaints):
    /// zero by default, so a screenshot is never reused unless a test says the page is still.
    pub quiet_for: Duration,
    /// Elements that paint unseen by the DOM (a canvas) the page reports.
    pub opaque_painters: usize,
}

impl PageModel {
    /// Typing into the focused field, as a page would take it.
    pub fn typed(&mut self, text: &str) {
        let drops_dots = self.drops_dots;
        if let Some(field) = &mut self.focused {
            let mut value = field
                .value
                .as_ref()
                .map(|value| value.expose().to_owned())
                .unwrap_or_default();
            value.extend(text.chars().filter(|c| !(drops_dots && *c == '.')));
            field.value = Some(retrace_protocol::element::FieldValue::new(value));
        }
    }
}

/// The page as a browser backend (only what replay's checks ask is answered).
pub struct WorldPage(pub Arc<Mutex<PageModel>>);

fn not_here(what: &str) -> DriveError {
    DriveError::Unsupported {
        backend: "world".into(),
        what: what.into(),
    }
}

#[async_trait]
impl Backend for WorldPage {
    fn name(&self) -> &str {
        "world"
    }
    async fn display_size(&self) -> Result<(u32, u32), DriveError> {
        Ok((super::world::SIDE, super::world::SIDE))
    }
    async fn screenshot(&self) -> Result<Screenshot, DriveError> {
        Err(not_here("screenshots (the world's screen takes them)"))
    }
    async fn mouse_move(&self, _to: Point) -> Result<(), DriveError> {
        Err(not_here("the mouse"))
    }
    async fn mouse_down(&self, _button: MouseButton) -> Result<(), DriveError> {
        Err(not_here("the mouse"))
    }
    async fn mouse_up(&self, _button: MouseButton) -> Result<(), DriveError> {
        Err(not_here("the mouse"))
    }
    async fn click(&self, _at: Point, _button: MouseButton, _count: u32) -> Result<(), DriveError> {
        Err(not_here("the mouse"))
    }
    async fn drag(&self, _from: Point, _to: Point) -> Result<(), DriveError> {
        Err(not_here("the mouse"))
    }
    async fn scroll(
        &self,
        _at: Point,
        _direction: ScrollDirection,
        _amount: u32,
    ) -> Result<(), DriveError> {
        Err(not_here("scrolling"))
    }
    async fn type_text(&self, _text: &str, _delay_ms: Option<u64>) -> Result<(), DriveError> {
        Err(not_here("the keyboard"))
    }
    async fn key(&self, _combo: &str) -> Result<(), DriveError> {
        Err(not_here("the keyboard"))
    }
    async fn hold_key(&self, _combo: &str, _duration_ms: u64) -> Result<(), DriveError> {
        Err(not_here("the keyboard"))
    }
    async fn cursor_position(&self) -> Result<Point, DriveError> {
        Err(not_here("the mouse"))
    }
}

#[async_trait]
impl BrowserBackend for WorldPage {
    async fn navigate(&self, _url: &str) -> Result<(), DriveError> {
        Err(not_here("navigation"))
    }
    async fn wait_for_network_idle(
        &self,
        _idle_ms: u64,
        _timeout_ms: u64,
    ) -> Result<(), DriveError> {
        Err(not_here("the network"))
    }
    async fn element_box_at(&self, _at: Point) -> Result<Option<BoundingBox>, DriveError> {
        Err(not_here("element boxes"))
    }
    async fn query_selector(&self, _selector: &str) -> Result<Option<BoundingBox>, DriveError> {
        Err(not_here("selectors"))
    }
    async fn dom_snapshot(&self) -> Result<serde_json::Value, DriveError> {
        Err(not_here("the DOM"))
    }
    async fn current_url(&self) -> Result<String, DriveError> {
        Ok("world://page".into())
    }
    async fn evaluate(&self, _expression: &str) -> Result<serde_json::Value, DriveError> {
        Err(not_here("scripts"))
    }
    async fn close(&self) -> Result<(), DriveError> {
        Ok(())
    }
    async fn element_at(&self, at: Point) -> Result<Option<ElementInfo>, DriveError> {
        let page = self.0.lock().unwrap();
        Ok(page
            .elements
            .iter()
            .find(|element| element.bounds.contains(f64::from(at.x), f64::from(at.y)))
            .cloned())
    }
    async fn focused_element(&self) -> Result<Option<ElementInfo>, DriveError> {
        let mut page = self.0.lock().unwrap();
        page.focus_probes += 1;
        Ok(page.focused.clone())
    }
    async fn find_elements(&self, role: &str, name: &str) -> Result<Vec<ElementInfo>, DriveError> {
        let page = self.0.lock().unwrap();
        Ok(page
            .elements
            .iter()
            .filter(|element| element.role == role && element.name == name)
            .cloned()
            .collect())
    }
    async fn page_activity(&self) -> Result<PageActivity, DriveError> {
        let mut page = self.0.lock().unwrap();
        page.probes += 1;
        let busy = page.busy_probes > 0;
        page.busy_probes = page.busy_probes.saturating_sub(1);
        let navigating = page.navigating_probes > 0;
        page.navigating_probes = page.navigating_probes.saturating_sub(1);
        Ok(PageActivity {
            requests_in_flight: usize::from(busy),
            network_quiet_for: page.quiet_for,
            navigation_pending: navigating,
            navigation_quiet_for: Duration::from_secs(1).max(page.quiet_for),
            document: Ok(DocumentActivity {
                ready_state: "complete".into(),
                fonts_ready: true,
                animations_running: 0,
                animations: Vec::new(),
                media_playing: 0,
                dom_quiet_for: Duration::from_secs(1).max(page.quiet_for),
                dom_mutations: 0,
                render_quiet_for: page.quiet_for,
                opaque_painters: page.opaque_painters,
                leaving_for: None,
            }),
        })
    }
}
