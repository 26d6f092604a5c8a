//! The `computer` tool's input as the tool runs it: parsed once by the action catalogue in
//! `retrace-protocol` ([`retrace_protocol::computer_actions`]) into a typed [`Action`], the
//! same parser replay and `retrace cache check` use. Errors are for the model: each names
//! the action, the field and what is valid.

use serde_json::Value;

/// Every action the tool accepts, in the order the schema lists them (the catalogue's).
pub use retrace_protocol::computer_actions::COMPUTER_ACTIONS as ACTIONS;
/// One validated `computer` action (the catalogue's typed action).
pub use retrace_protocol::computer_actions::ComputerAction as Action;
/// A point in the model's coordinates.
pub use retrace_protocol::computer_actions::ModelPoint;
pub use retrace_protocol::computer_tool::MAX_DURATION_S;
pub use retrace_protocol::computer_tool::MAX_KEY_REPEAT;

/// Parses and validates the tool input by the catalogue. The message of an `Err` is for the
/// model.
pub fn parse(input: &Value) -> Result<Action, String> {
    retrace_protocol::computer_actions::parse(input).map_err(|error| error.message)
}

/// The JSON Schema of the tool input (derived from the catalogue, in the protocol crate).
pub fn input_schema() -> Value {
    retrace_protocol::computer_tool::input_schema()
}
