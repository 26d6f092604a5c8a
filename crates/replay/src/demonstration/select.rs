//! A choice in a dropdown (`<select>`): the person clicked the dropdown, the browser drew its
//! list outside the page, and they chose an option there (by pointer or keys). The page saw
//! the click that opened the list, perhaps keys, then the `change`. Together they become one
//! `select_option` step at the point clicked with the option's label, which replay performs
//! without the list (a headless page has none) and the computer tool checks the dropdown holds
//! the option afterwards. A choice made with the keys on a dropdown with the focus alone is a
//! step at the dropdown's centre.

use std::sync::Arc;

use retrace_drive::chromium::demonstration::Frame;
use retrace_protocol::computer_actions::names;
use retrace_protocol::element::ElementInfo;
use serde_json::json;

use super::Demonstration;
use super::Noted;
use super::step::DemonstratedStep;

impl Demonstration {
    /// Folds in the choice of `label` in the dropdown `element` (centred at `centre`).
    pub(super) fn select(
        &mut self,
        centre: (i64, i64),
        label: String,
        element: Option<ElementInfo>,
        before: Option<Arc<Frame>>,
    ) -> Noted {
        let dropdown = element.as_ref().map(|e| e.selector.clone());
        let on_dropdown = |step: &DemonstratedStep| {
            dropdown.is_some() && step.element.as_ref().map(|e| &e.selector) == dropdown.as_ref()
        };
        // The keys that moved through its list, then the click that opened it.
        let mut opened: Option<DemonstratedStep> = None;
        while let Some(last) = self.steps.last() {
            let part = on_dropdown(last)
                && (last.action() == names::KEY || last.action() == names::LEFT_CLICK);
            if !part {
                break;
            }
            let was_click = last.action() == names::LEFT_CLICK;
            opened = self.steps.pop();
            if was_click {
                break;
            }
        }
        let clicked = opened
            .as_ref()
            .filter(|step| step.action() == names::LEFT_CLICK);
        let at = clicked.and_then(DemonstratedStep::point).unwrap_or(centre);
        let input = json!({"action": names::SELECT_OPTION, "coordinate": [at.0, at.1],
            "text": label});
        let step = match opened {
            Some(first) => {
                let mut step = DemonstratedStep::new(input, first.before, first.element);
                step.place = first.place;
                step
            }
            None => DemonstratedStep::new(input, before, element),
        };
        self.push(step)
    }
}

#[cfg(test)]
#[path = "browser_ui_tests.rs"]
mod tests;
