//! The `computer` tool as every model sees it, declared once: its description and the JSON
//! Schema of its input. The browser and desktop backends parse this input
//! (`retrace-drive`), OpenAI-compatible servers get it as a function (`retrace-llm`), and
//! Anthropic's native forms carry the same action set.

use serde_json::Value;
use serde_json::json;

use crate::tool_input::COMPUTER_ACTIONS;

/// The longest `duration` (seconds) `wait` and `hold_key` accept: the computer toolset's
/// limit (issue 37; `anthropic` 2.14.0 `types/computer_wait_input.py`).
pub const MAX_DURATION_S: f64 = 300.0;

/// The most times `key` repeats a press (`repeat`).
pub const MAX_KEY_REPEAT: u32 = 100;

/// What the tool does and how each action is called, for the model.
pub const DESCRIPTION: &str = "Use a mouse and keyboard to interact with a screen, and take \
screenshots. Coordinates are pixels of the screenshot you see, [x, y] from the top-left. \
Actions: screenshot, left_click, right_click, middle_click, double_click, triple_click \
(optional `coordinate`, optional `text` with modifier keys to hold), mouse_move \
(`coordinate`), left_click_drag (`start_coordinate`, `coordinate`), left_mouse_down, \
left_mouse_up, scroll (`scroll_direction`, `scroll_amount`, optional `coordinate`), type \
(`text`), key (`text`: xdotool names such as Return, Tab, ctrl+a; optional `repeat`), \
hold_key (`text`, `duration` in seconds), wait (`duration`), cursor_position, zoom \
(`region`: [x0, y0, x1, y1], answered with that region at full resolution). Each action \
answers with a screenshot taken after it.";

/// The JSON Schema of the tool's input.
pub fn input_schema() -> Value {
    let point = |what: &str| {
        json!({
            "type": "array",
            "items": {"type": "integer", "minimum": 0},
            "minItems": 2,
            "maxItems": 2,
            "description": what,
        })
    };
    json!({
        "type": "object",
        "properties": {
            "action": {
                "type": "string",
                "enum": COMPUTER_ACTIONS,
                "description": "What to do."
            },
            "coordinate": point("[x, y] in screenshot pixels: where to click, move, scroll, or where a drag ends."),
            "start_coordinate": point("[x, y] where `left_click_drag` starts."),
            "text": {
                "type": "string",
                "description": "`type`: the text. `key`, `hold_key`: a key combination in xdotool names (\"Return\", \"ctrl+a\", \"shift+Tab\"). Clicks and `scroll`: modifier keys to hold (\"shift\", \"ctrl\")."
            },
            "scroll_direction": {
                "type": "string",
                "enum": ["up", "down", "left", "right"]
            },
            "scroll_amount": {
                "type": "integer",
                "minimum": 0,
                "description": "Wheel notches to scroll."
            },
            "duration": {
                "type": "number",
                "minimum": 0,
                "maximum": MAX_DURATION_S,
                "description": "Seconds, for `wait` and `hold_key`."
            },
            "repeat": {
                "type": "integer",
                "minimum": 1,
                "maximum": MAX_KEY_REPEAT,
                "description": "`key`: how many times to press it (default 1)."
            },
            "region": {
                "type": "array",
                "items": {"type": "integer", "minimum": 0},
                "minItems": 4,
                "maxItems": 4,
                "description": "`zoom`: [x0, y0, x1, y1] in screenshot pixels; answers with that region at full resolution."
            }
        },
        "required": ["action"]
    })
}
