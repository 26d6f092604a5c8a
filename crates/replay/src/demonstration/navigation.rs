//! Address-bar navigation in a demonstration: the person typed a URL (or chose a suggestion
//! or bookmark) and the page went there. It becomes a step of its own, the `web_executor`'s
//! `OPEN_PAGE` of that URL, which replay performs on its page and checks arrived
//! (`page_after`, once the person's next input says where the page is). The key that took the
//! person to the address bar (Ctrl+L, Alt+D, F6), which the page saw first, is folded into it.

use retrace_drive::web::OPEN_PAGE;
use retrace_protocol::computer_actions::names;
use retrace_protocol::tool_names;
use serde_json::Value;
use serde_json::json;

use super::Demonstration;
use super::Noted;
use super::step::DemonstratedStep;
use crate::page_location::PageLocation;

/// The keys that put the focus in the address bar, in xdotool's names.
const TO_ADDRESS_BAR: [&str; 3] = ["ctrl+l", "alt+d", "F6"];

impl DemonstratedStep {
    /// Whether the step is a navigation ([`Demonstration::navigate`]).
    pub fn is_navigation(&self) -> bool {
        self.tool == tool_names::WEB_EXECUTOR
            && self.input.get("action").and_then(Value::as_str) == Some(OPEN_PAGE)
    }

    /// The URL a navigation step opens.
    pub fn url(&self) -> Option<&str> {
        self.input
            .get("parameters")
            .and_then(|parameters| parameters.get("url"))
            .and_then(Value::as_str)
    }
}

impl Demonstration {
    /// Folds in a navigation to `url` from the browser's UI.
    pub(super) fn navigate(&mut self, url: String) -> Noted {
        let went_to_address_bar = self.steps.last().is_some_and(|last| {
            last.action() == names::KEY
                && last
                    .input
                    .get("text")
                    .and_then(Value::as_str)
                    .is_some_and(|key| TO_ADDRESS_BAR.contains(&key))
        });
        if went_to_address_bar {
            self.steps.pop();
        }
        // Where it started from: the page of the step before, or, for a first step, nowhere
        // (an empty path, which no page has), so the next input's page is where it went.
        let from = self
            .steps
            .last()
            .and_then(|last| last.page_after.clone().or_else(|| last.place.clone()))
            .unwrap_or(PageLocation {
                path: String::new(),
                title: String::new(),
            });
        let input = json!({"action": OPEN_PAGE, "parameters": {"url": url}});
        let mut step = DemonstratedStep::new(input, None, None);
        step.tool = tool_names::WEB_EXECUTOR;
        step.place = Some(from);
        self.push(step)
    }
}
