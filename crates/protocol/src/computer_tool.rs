//! The `computer` tool as every model sees it: its description and the JSON Schema of its
//! input, both derived from the action catalogue ([`crate::computer_actions`]). The browser and desktop backends parse this input
//! (`retrace-drive`), OpenAI-compatible servers get it as a function (`retrace-llm`), and
//! Anthropic's native forms carry the same action set.

use serde_json::Value;

pub use crate::computer_actions::MAX_DURATION_S;
pub use crate::computer_actions::MAX_KEY_REPEAT;

/// What the tool does and how each action is called, for the model (derived from the
/// catalogue, [`crate::computer_actions`]).
pub fn description() -> &'static str {
    crate::computer_actions::description()
}

/// The JSON Schema of the tool's input (derived from the catalogue).
pub fn input_schema() -> Value {
    crate::computer_actions::input_schema()
}
