//! [`Dialog`]: a JavaScript dialog (`alert`, `confirm`, `prompt`, `beforeunload`) a page
//! opened, and how it was answered. A recording keeps the dialogs a step opened with the step
//! (a dialog opens while the action that caused it is still being dispatched, so replay must
//! know the answer before it acts, not at a step of its own), and replay answers them so.

use serde::Deserialize;
use serde::Serialize;

/// One dialog and its answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Dialog {
    /// `alert`, `confirm`, `prompt` or `beforeunload` (CDP's `DialogType`).
    pub kind: String,
    /// The text the page showed.
    pub message: String,
    /// Whether it was accepted (OK); `false`: dismissed (Cancel, Escape).
    pub accepted: bool,
    /// The text entered into a `prompt` that was accepted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_text: Option<String>,
}

impl Dialog {
    /// How people read it: `confirm 'Delete invoice 7?' accepted`.
    pub fn summary(&self) -> String {
        let answer = if self.accepted {
            "accepted"
        } else {
            "dismissed"
        };
        format!("{} '{}' {answer}", self.kind, self.message)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn a_dialog_reads_back_as_written_and_reads_for_people() {
        let dialog = Dialog {
            kind: "confirm".into(),
            message: "Delete invoice 7?".into(),
            accepted: false,
            prompt_text: None,
        };
        let text = serde_json::to_string(&dialog).unwrap();
        assert!(!text.contains("prompt_text"), "{text}");
        assert_eq!(serde_json::from_str::<Dialog>(&text).unwrap(), dialog);
        assert_eq!(dialog.summary(), "confirm 'Delete invoice 7?' dismissed");
    }
}
