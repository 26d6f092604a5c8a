//! The computer tool as a plain function, for servers that cannot take Anthropic's
//! `computer_20250124` tool natively: same name, same actions, same input shape, so a call
//! from either API is run by the same tool.

use serde_json::Value;
use serde_json::json;

use retrace_protocol::tool_input::COMPUTER_ACTIONS;

/// The `{type: function, function: {...}}` tool offering the computer on a display of
/// `width` × `height` pixels.
pub fn computer_function(width: u32, height: u32) -> Value {
    let point = |what: &str| {
        json!({
            "type": "array",
            "items": {"type": "integer", "minimum": 0},
            "minItems": 2,
            "maxItems": 2,
            "description": format!("{what}: [x, y] in screen pixels, x < {width}, y < {height}"),
        })
    };
    json!({
        "type": "function",
        "function": {
            "name": retrace_protocol::tool_names::COMPUTER,
            "description": format!(
                "Use a mouse and keyboard to operate the screen, and take screenshots. The display \
                 is {width}x{height} pixels. Take a screenshot first to see where things are; click \
                 on the middle of elements; after an action that changes the screen, look at the \
                 new screenshot before going on."
            ),
            "parameters": {
                "type": "object",
                "properties": {
                    "action": {
                        "type": "string",
                        "enum": COMPUTER_ACTIONS,
                        "description": "What to do. key/hold_key need `text` (an xdotool key combo such as `ctrl+s` or `Return`); type needs `text`; mouse_move and the clicks take `coordinate`; left_click_drag needs `start_coordinate` and `coordinate`; scroll needs `coordinate`, `scroll_direction` and `scroll_amount`; wait and hold_key need `duration`."
                    },
                    "coordinate": point("Where to act"),
                    "start_coordinate": point("Where a drag starts"),
                    "text": {
                        "type": "string",
                        "description": "Text to type, a key combo for key/hold_key, or modifier keys to hold during a click or scroll."
                    },
                    "scroll_direction": {"type": "string", "enum": ["up", "down", "left", "right"]},
                    "scroll_amount": {"type": "integer", "minimum": 0, "description": "Scroll wheel clicks."},
                    "duration": {"type": "number", "minimum": 0, "maximum": 100, "description": "Seconds, for wait and hold_key."}
                },
                "required": ["action"]
            }
        }
    })
}
