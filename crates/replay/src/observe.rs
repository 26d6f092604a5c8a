//! What the page said about each action while a run was recorded: the semantic half of a
//! recording.
//!
//! [`ObservingTool`] wraps the computer tool of a browser run. Around every action at a point
//! it asks the page ([`PageProbe`]) for the element there before acting, and, after acting,
//! for the element there again when it carries a state (checked, expanded, selected,
//! pressed). Around an action on the focus (typing, keys) it asks for the element holding
//! the focus before acting (where the keys go) and, after typing, again (what it holds). The
//! [`Observations`] it collects are matched to the history's tool calls by the recorder
//! ([`crate::recorder::build_cache_file`]), which stores them in the step's extra fields
//! (`element`, `element_after`, `focused_after`) that askui ignores; replay's semantic and
//! state checks compare against them.
//!
//! With the element before acting it reads the event listeners on it and its ancestors (their
//! types, [`ElementInfo::listeners`]), so replay acts only once the page listens again (see
//! [`crate::wait::listening`]).
//!
//! Around every action it also reads where the page is (its URL path and title): when the
//! action changed either, the step started a navigation, and where it led is stored
//! (`page_after`) for replay's navigation check.
//!
//! Observing never fails an action: a page that cannot answer leaves the step without the
//! field (it then replays with the visual checks only), and a warning says so.

use std::sync::Arc;
use std::sync::Mutex;

use async_trait::async_trait;
use retrace_drive::tool::Tool;
use retrace_drive::tool::ToolError;
use retrace_drive::tool::ToolOutput;
use retrace_drive::tool::ToolSpec;
use retrace_protocol::computer_actions;
use retrace_protocol::computer_actions::ActionKind;
use retrace_protocol::computer_actions::ComputerAction;
use retrace_protocol::element::ElementInfo;
use serde_json::Value;

use crate::page_location::PageLocation;
use crate::screen::ElementProbe;
use crate::screen::PageProbe;

/// What the page said about one action.
#[derive(Debug, Clone, PartialEq)]
pub struct Observation {
    /// The action's input, as the model gave it (how the recorder finds its step).
    pub input: Value,
    /// The element the action acted on, before it acted: the one at its point, or the one
    /// with the focus for an action on the focus.
    pub element: Option<ElementInfo>,
    /// The element at the point after it acted, when it has a state to check.
    pub element_after: Option<ElementInfo>,
    /// The element with the focus after typing.
    pub focused_after: Option<ElementInfo>,
    /// Where the page went, when the action changed its URL path or title.
    pub page_after: Option<PageLocation>,
}

impl Observation {
    /// Whether the page said anything worth storing.
    pub fn is_empty(&self) -> bool {
        self.element.is_none()
            && self.element_after.is_none()
            && self.focused_after.is_none()
            && self.page_after.is_none()
    }
}

/// The observations of one run, in the order the actions ran; shared between the tool that
/// makes them and the recorder that stores them.
#[derive(Debug, Clone, Default)]
pub struct Observations(Arc<Mutex<Vec<Observation>>>);

impl Observations {
    /// No observations yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds one observation (in the order the actions ran).
    pub fn push(&self, observation: Observation) {
        if let Ok(mut list) = self.0.lock() {
            list.push(observation);
        }
    }

    /// Every observation so far, in order.
    pub fn snapshot(&self) -> Vec<Observation> {
        self.0.lock().map(|list| list.clone()).unwrap_or_default()
    }
}

/// Takes observations out in call order: each tool call of the history takes the first
/// unused observation made with the same input.
#[derive(Debug)]
pub struct ObservationQueue {
    pending: Vec<Option<Observation>>,
}

impl ObservationQueue {
    /// A queue over `observations`.
    pub fn new(observations: Vec<Observation>) -> Self {
        Self {
            pending: observations.into_iter().map(Some).collect(),
        }
    }

    /// The observation of the first unmatched call with this input.
    pub fn take(&mut self, input: &Value) -> Option<Observation> {
        self.pending
            .iter_mut()
            .find(|slot| slot.as_ref().is_some_and(|seen| &seen.input == input))
            .and_then(Option::take)
    }
}

/// Whether an element carries a state a later check can compare.
fn has_state(element: &ElementInfo) -> bool {
    element.checked.is_some()
        || element.expanded.is_some()
        || element.selected.is_some()
        || element.pressed.is_some()
}

/// The computer tool of a browser run, observing the page around each action (or of a
/// desktop run, observing the application's accessibility tree: elements only, no URL and
/// no event listeners).
pub struct ObservingTool {
    inner: Arc<dyn Tool>,
    elements: ElementProbe,
    probe: Option<PageProbe>,
    observations: Observations,
}

impl std::fmt::Debug for ObservingTool {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("ObservingTool")
            .field("inner", &self.inner.name())
            .field("probe", &self.probe)
            .finish()
    }
}

impl ObservingTool {
    /// Wraps `inner` (the computer tool), observing `probe`'s page into `observations`.
    pub fn new(inner: Arc<dyn Tool>, probe: PageProbe, observations: Observations) -> Self {
        Self {
            inner,
            elements: probe.elements(),
            probe: Some(probe),
            observations,
        }
    }

    /// Wraps `inner` (the computer tool of a desktop run), observing `elements` (the
    /// application's accessibility tree) into `observations`.
    pub fn desktop(
        inner: Arc<dyn Tool>,
        elements: ElementProbe,
        observations: Observations,
    ) -> Self {
        Self {
            inner,
            elements,
            probe: None,
            observations,
        }
    }

    /// The element with the focus (`None`: the document's body, or the page did not say).
    async fn focused(&self, when: &str) -> Option<ElementInfo> {
        match self.elements.focused_element().await {
            Ok(focused) => focused,
            Err(error) => {
                tracing::warn!(%error, "could not read the focused element {when}: the step keeps its visual checks only");
                None
            }
        }
    }

    /// Where the page is (`None`, with a warning, when it did not say).
    async fn location(&self, when: &str) -> Option<PageLocation> {
        match self.probe.as_ref()?.location().await {
            Ok(location) => Some(location),
            Err(error) => {
                tracing::warn!(%error, "could not read where the page is {when}: a navigation the step starts is not recorded");
                None
            }
        }
    }

    /// `element` (the one at `at`, or with the focus for `None`) with the event listeners
    /// the page has on it and its ancestors, so replay waits until the page listens again;
    /// without them (a warning says why) when the page did not say.
    async fn listening(
        &self,
        element: Option<ElementInfo>,
        at: Option<(i64, i64)>,
    ) -> Option<ElementInfo> {
        let mut element = element?;
        let Some(probe) = &self.probe else {
            return Some(element);
        };
        match probe.listener_types(at).await {
            Ok(listeners) => element.listeners = listeners,
            Err(error) => {
                tracing::warn!(%error, "could not read the event listeners before acting: replay will not wait for them");
            }
        }
        Some(element)
    }

    async fn element_at(&self, at: (i64, i64), when: &str) -> Option<ElementInfo> {
        match self.elements.element_at(at).await {
            Ok(element) => element,
            Err(error) => {
                tracing::warn!(%error, "could not read the element at ({}, {}) {when}: the step keeps its visual checks only", at.0, at.1);
                None
            }
        }
    }
}

#[async_trait]
impl Tool for ObservingTool {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn description(&self) -> &str {
        self.inner.description()
    }

    fn input_schema(&self) -> Value {
        self.inner.input_schema()
    }

    fn spec(&self) -> ToolSpec {
        self.inner.spec()
    }

    fn cacheable(&self) -> bool {
        self.inner.cacheable()
    }

    async fn call(&self, input: Value) -> Result<ToolOutput, ToolError> {
        let point = retrace_protocol::tool_input::action_point(&input);
        let action = input.get("action").and_then(Value::as_str).unwrap_or("");
        // Only an action that acts on the UI has an effect to observe.
        let observes = match computer_actions::kind_of(action) {
            Some(kind) => !matches!(kind, ActionKind::Observe | ActionKind::Wait),
            None => !action.is_empty(),
        };
        let parsed = computer_actions::parse(&input).ok();
        let clicks = matches!(parsed, Some(ComputerAction::Click { .. }));
        let types = matches!(parsed, Some(ComputerAction::Type(_)));
        let element = match point {
            Some(at) if observes => self.element_at(at, "before acting").await,
            // Its value is left out: no check compares it, and it may be a secret typed before.
            None if crate::plan::acts_on_focus(action) => {
                self.focused("before acting").await.map(|mut element| {
                    element.value = None;
                    element
                })
            }
            _ => None,
        };
        let element = self.listening(element, point).await;
        let location = match observes {
            true => self.location("before acting").await,
            false => None,
        };
        let reply = self.inner.call(input.clone()).await?;
        if !observes {
            return Ok(reply);
        }
        let page_after = match location {
            Some(before) => self
                .location("after acting")
                .await
                .filter(|after| *after != before),
            None => None,
        };
        let element_after = match point {
            Some(at) if clicks => self.element_at(at, "after acting").await.filter(has_state),
            _ => None,
        };
        let focused_after = match types {
            true => self
                .focused("after typing")
                .await
                .filter(|element| element.editable),
            false => None,
        };
        let observation = Observation {
            input,
            element,
            element_after,
            focused_after,
            page_after,
        };
        if !observation.is_empty() {
            self.observations.push(observation);
        }
        Ok(reply)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use serde_json::json;

    use super::*;

    fn seen(input: Value, name: &str) -> Observation {
        Observation {
            input,
            element: Some(
                serde_json::from_value(json!({
                    "role": "button", "name": name, "text": name, "tag": "button",
                    "selector": "", "box": {"x": 0.0, "y": 0.0, "width": 1.0, "height": 1.0},
                    "disabled": false, "focused": false, "editable": false,
                    "receives_events": true
                }))
                .unwrap(),
            ),
            element_after: None,
            focused_after: None,
            page_after: None,
        }
    }

    #[test]
    fn calls_take_observations_in_order_by_input() {
        let click = json!({"action": "left_click", "coordinate": [1, 2]});
        let other = json!({"action": "left_click", "coordinate": [5, 5]});
        let mut queue = ObservationQueue::new(vec![
            seen(click.clone(), "first"),
            seen(other.clone(), "other"),
            seen(click.clone(), "second"),
        ]);
        let name = |observation: Option<Observation>| observation.unwrap().element.unwrap().name;
        assert_eq!(name(queue.take(&click)), "first");
        assert_eq!(name(queue.take(&click)), "second");
        assert!(queue.take(&click).is_none());
        assert_eq!(name(queue.take(&other)), "other");
    }
}
