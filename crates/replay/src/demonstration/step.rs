//! One step of a demonstration ([`DemonstratedStep`]): the tool input, the frames and
//! elements around it, and how people read it. Its own module, so the folding in the parent
//! and the secrets and navigation rules beside it share it without using each other.

use std::sync::Arc;

use retrace_drive::chromium::demonstration::Frame;
use retrace_protocol::computer_actions::names;
use retrace_protocol::dialog::Dialog;
use retrace_protocol::element::ElementInfo;
use serde_json::Value;

use crate::page_location::PageLocation;

/// One step of a demonstration: a `computer` tool input with what the page said about it
/// and the frames around it.
#[derive(Debug, Clone)]
pub struct DemonstratedStep {
    /// The tool the step is a call of: `computer`, or `web_executor` for a navigation.
    pub tool: &'static str,
    /// The tool input (`{"action": names::LEFT_CLICK, "coordinate": [x, y]}`).
    pub input: Value,
    /// The frame on the screen before the step's first input.
    pub before: Option<Arc<Frame>>,
    /// The frame on the screen before the person's next input.
    pub after: Option<Arc<Frame>>,
    /// The element acted on, read when the input was made: the one under the pointer, or
    /// the one with the focus for keys (its value left out).
    pub element: Option<ElementInfo>,
    /// The element under the pointer once a click was handled, when it has a state.
    pub element_after: Option<ElementInfo>,
    /// The field typed into, after typing (with its value).
    pub focused_after: Option<ElementInfo>,
    /// Where the page was when the step began.
    pub place: Option<PageLocation>,
    /// Where the page went, when the person's next input was on another page (the step
    /// navigated: replay checks it arrives there).
    pub page_after: Option<PageLocation>,
    /// The JavaScript dialogs the step opened, with the person's answers.
    pub dialogs: Vec<Dialog>,
    /// Scroll distance so far, in pixels.
    pub(super) scrolled: f64,
}

impl DemonstratedStep {
    pub(super) fn new(
        input: Value,
        before: Option<Arc<Frame>>,
        element: Option<ElementInfo>,
    ) -> Self {
        Self {
            tool: retrace_protocol::tool_names::COMPUTER,
            input,
            before,
            after: None,
            element,
            element_after: None,
            focused_after: None,
            place: None,
            page_after: None,
            dialogs: Vec::new(),
            scrolled: 0.0,
        }
    }

    /// The action name (`left_click`, `type`...).
    pub fn action(&self) -> &str {
        self.input
            .get("action")
            .and_then(Value::as_str)
            .unwrap_or("")
    }

    /// The text of a `type` step (may be a secret: never log it).
    pub fn typed(&self) -> Option<&str> {
        (self.action() == names::TYPE)
            .then(|| self.input.get("text").and_then(Value::as_str))
            .flatten()
    }

    /// The point acted at, for pointer actions.
    pub fn point(&self) -> Option<(i64, i64)> {
        retrace_protocol::tool_input::action_point(&self.input)
    }

    /// What the step does, for people: the action, the point, the element's role and name;
    /// never typed text nor its length.
    pub fn summary(&self) -> String {
        if let Some(url) = self.is_navigation().then(|| self.url()).flatten() {
            return format!("navigate to {url}");
        }
        // Only a checkpoint makes a pointer move in a demonstration.
        let mut text = match self.action() {
            names::MOUSE_MOVE => "checkpoint".to_owned(),
            action => action.to_owned(),
        };
        if let Some((x, y)) = self.point() {
            text.push_str(&format!(" at ({x}, {y})"));
        }
        if self.action() == names::KEY
            && let Some(key) = self.input.get("text").and_then(Value::as_str)
        {
            text.push_str(&format!(" {key}"));
        }
        if self.action() == names::SELECT_OPTION
            && let Some(label) = self.input.get("text").and_then(Value::as_str)
        {
            text.push_str(&format!(" '{label}'"));
        }
        if let Some(element) = &self.element {
            let preposition = if self.action() == names::TYPE {
                "into"
            } else {
                "on"
            };
            text.push_str(&format!(
                " {preposition} {} '{}'",
                element.role, element.name
            ));
        }
        for dialog in &self.dialogs {
            text.push_str(&format!(", then {}", dialog.summary()));
        }
        text
    }
}
