//! The computer tool as a plain function, for servers that cannot take Anthropic's native
//! forms: same name, same actions, same input schema (the protocol crate's), so a call from
//! either API is run by the same tool.

use serde_json::Value;
use serde_json::json;

/// The `{type: function, function: {...}}` tool offering the computer on a display of
/// `width` × `height` pixels.
pub fn computer_function(width: u32, height: u32) -> Value {
    json!({
        "type": "function",
        "function": {
            "name": retrace_protocol::tool_names::COMPUTER,
            "description": format!(
                "{} The display is {width}x{height} pixels: x < {width}, y < {height}.",
                retrace_protocol::computer_tool::description()
            ),
            "parameters": retrace_protocol::computer_tool::input_schema(),
        }
    })
}
