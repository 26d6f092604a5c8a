//! What `retrace record` reports while a person demonstrates a flow: one event per input it
//! recorded (so a person, or a test driving the window, sees each one taken), where the
//! viewport is on the screen, and the file written with the parameters it needs.

use std::path::PathBuf;

use serde::Deserialize;
use serde::Serialize;

/// One thing a recording of a demonstration did. Typed text never appears in one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum DemonstrationEvent {
    /// The page is open in the person's browser window and inputs are being recorded.
    Started {
        /// The page opened.
        url: String,
        /// The viewport size in CSS pixels (the recorded screen).
        viewport: [u32; 2],
    },
    /// The pointer entered the page: the viewport's top left corner is at (`x`, `y`) on the
    /// screen (what a script driving the window with screen coordinates needs).
    Viewport {
        /// Screen x of the viewport's left edge.
        x: i64,
        /// Screen y of the viewport's top edge.
        y: i64,
    },
    /// An input was recorded into step `step` (a new step, or one it folded into: a
    /// keystroke into a `type` step, a second click making a double click).
    Input {
        /// The step's 1-based position in the trajectory.
        step: usize,
        /// The step now, for people (`left_click at (412, 300) on checkbox 'Remember me'`).
        summary: String,
    },
    /// The demonstration ended and its trajectory was written.
    Finished {
        /// Where.
        path: PathBuf,
        /// Steps recorded.
        steps: usize,
        /// The parameters a replay must be given (`--param NAME=VALUE`), secrets among them.
        parameters: Vec<String>,
        /// What stopped it (`interrupted`, `window closed`).
        stopped_by: String,
    },
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::events::Event;

    #[test]
    fn a_demonstration_event_is_one_flat_json_object_both_ways() {
        let event = Event::Demonstration(DemonstrationEvent::Input {
            step: 3,
            summary: "key Tab on textbox 'Username'".to_owned(),
        });
        let json = serde_json::to_value(&event).unwrap();
        assert_eq!(
            json,
            serde_json::json!({"type": "demonstration", "kind": "input", "step": 3,
                "summary": "key Tab on textbox 'Username'"})
        );
        assert_eq!(serde_json::from_value::<Event>(json).unwrap(), event);
    }
}
