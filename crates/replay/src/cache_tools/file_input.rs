//! The input every cache tool takes: the name of a trajectory file.

use serde_json::Value;

/// The input key naming a cache file.
pub(crate) const FILE_KEY: &str = "trajectory_file";

/// The cache file name in `input`, or a message for the model saying what is wrong.
pub(crate) fn file_name(input: &Value) -> Result<&str, String> {
    match input.get(FILE_KEY) {
        Some(Value::String(name)) if !name.trim().is_empty() => Ok(name),
        Some(_) => Err(format!(
            "`{FILE_KEY}` must be a non-empty string: a file name as retrieve_available_trajectories_tool lists it"
        )),
        None => Err(format!(
            "`{FILE_KEY}` is required: a file name as retrieve_available_trajectories_tool lists it"
        )),
    }
}

/// The JSON Schema property for a cache file name.
pub(crate) fn file_property() -> Value {
    serde_json::json!({
        "type": "string",
        "description": "The trajectory file name as retrieve_available_trajectories_tool lists it (for example login.json)."
    })
}
