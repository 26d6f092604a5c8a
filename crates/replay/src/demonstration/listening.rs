//! The listener facts of a demonstrated click (`element.listeners`, see
//! [`crate::wait::listening`]).
//!
//! The page tells its listeners only to CDP, and a demonstration learns of a click once the
//! page has handled it: the facts are read then, at the click's point. A handler may have
//! added listeners the page did not have before the click (an Escape key listener as a menu
//! opens), which replay would then wait for in vain; so a demonstration keeps only the types
//! a click dispatches (the ones that handled it were there before it), and only when the
//! element at the point is still the one clicked and nothing covers it. Typing and keys get none: their field's
//! click before them waits for the page.

use retrace_protocol::element::ElementInfo;

use super::Demonstration;

/// The event types a click dispatches to the element and its ancestors.
const CLICK_DISPATCHES: [&str; 8] = [
    "pointerdown",
    "mousedown",
    "pointerup",
    "mouseup",
    "click",
    "dblclick",
    "auxclick",
    "contextmenu",
];

/// Whether `after` is the element `before` describes (same role, name and selector) and a
/// click there still reaches it (the listeners were read of what is hit there, not of a
/// dialog the click opened over it).
fn same_element(before: &ElementInfo, after: &ElementInfo) -> bool {
    before.role == after.role
        && before.name == after.name
        && before.selector == after.selector
        && after.receives_events
}

impl Demonstration {
    /// Sets the listener facts of click `step` (1-based) from `listeners`, read at its point
    /// once the click was handled, when `after` (the element there then) is the one clicked.
    pub fn clicked_element_listeners(
        &mut self,
        step: usize,
        after: Option<&ElementInfo>,
        listeners: Option<Vec<String>>,
    ) {
        let Some(recorded) = step.checked_sub(1).and_then(|i| self.steps.get_mut(i)) else {
            return;
        };
        let (Some(element), Some(after), Some(listeners)) =
            (recorded.element.as_mut(), after, listeners)
        else {
            return;
        };
        if same_element(element, after) {
            let kept = listeners
                .into_iter()
                .filter(|event_type| CLICK_DISPATCHES.contains(&event_type.as_str()))
                .collect();
            element.listeners = Some(kept);
        }
    }
}
