//! Reading and adjusting recorded step inputs: which steps only observe, what action a step
//! is, moving its point, and a summary safe to show (typed text is not repeated).

use retrace_protocol::ToolUseBlock;
use retrace_protocol::tool_names::base_name;
use serde_json::Value;

/// Actions and tools that only look at the screen: replay skips them.
const OBSERVE_ONLY: &[&str] = &["screenshot", "cursor_position", "GET_DOM"];

/// Whether a step only observes (a screenshot, the cursor position, a DOM read).
pub fn is_observe_only(step: &ToolUseBlock) -> bool {
    let action = step
        .input
        .get("action")
        .or_else(|| step.input.get("command"))
        .and_then(Value::as_str);
    OBSERVE_ONLY.contains(&base_name(&step.name))
        || action.is_some_and(|action| OBSERVE_ONLY.contains(&action))
}

/// The step's action (`left_click`), or its tool's base name (`mouse_click`).
pub fn action_name(step: &ToolUseBlock) -> String {
    step.input
        .get("action")
        .or_else(|| step.input.get("command"))
        .and_then(Value::as_str)
        .map_or_else(|| base_name(&step.name).to_owned(), str::to_owned)
}

/// Moves the point of a tool input by `offset`, wherever askui's rules find it
/// (`coordinate`, else `x`/`y`, else `x1`/`y1`), keeping numbers as numbers and numeric
/// strings as strings.
pub fn shift_point(input: &mut Value, offset: (i64, i64)) {
    if let Some(Value::Array(coordinate)) = input.get_mut("coordinate")
        && coordinate.len() == 2
    {
        shift_number(&mut coordinate[0], offset.0);
        shift_number(&mut coordinate[1], offset.1);
        return;
    }
    for (x, y) in [("x", "y"), ("x1", "y1")] {
        if input.get(x).is_some() && input.get(y).is_some() {
            if let Some(value) = input.get_mut(x) {
                shift_number(value, offset.0);
            }
            if let Some(value) = input.get_mut(y) {
                shift_number(value, offset.1);
            }
            return;
        }
    }
}

fn shift_number(value: &mut Value, delta: i64) {
    match value {
        Value::Number(number) => {
            if let Some(integer) = number.as_i64() {
                *value = Value::from(integer + delta);
            } else if let Some(float) = number.as_f64() {
                *value = Value::from(float + delta as f64);
            }
        }
        Value::String(text) => {
            if let Ok(integer) = text.trim().parse::<i64>() {
                *text = (integer + delta).to_string();
            }
        }
        _ => {}
    }
}

/// A one-line summary of an input for messages and logs: the action and point, and for text
/// only its length (typed text may be a parameter value, such as a password).
pub fn redacted_input_summary(input: &Value) -> String {
    let mut parts = Vec::new();
    if let Some(action) = input
        .get("action")
        .or_else(|| input.get("command"))
        .and_then(Value::as_str)
    {
        parts.push(action.to_owned());
    }
    if let Some((x, y)) = retrace_vision::action_point(input) {
        parts.push(format!("at ({x}, {y})"));
    }
    if let Some(text) = input.get("text").and_then(Value::as_str) {
        parts.push(format!("text of {} characters", text.chars().count()));
    }
    if let Some(selector) = input.get("selector").and_then(Value::as_str) {
        parts.push(format!("selector {selector}"));
    }
    parts.join(" ")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn shifts_every_point_shape_and_keeps_types() {
        let mut a = json!({"action": "left_click", "coordinate": [100, 200]});
        shift_point(&mut a, (5, -3));
        assert_eq!(a["coordinate"], json!([105, 197]));
        let mut b = json!({"x": "85", "y": 40});
        shift_point(&mut b, (-5, 10));
        assert_eq!(b, json!({"x": "80", "y": 50}));
        let mut c = json!({"x1": 1.5, "y1": 2});
        shift_point(&mut c, (1, 1));
        assert_eq!(c, json!({"x1": 2.5, "y1": 3}));
    }

    #[test]
    fn observe_only_steps() {
        assert!(is_observe_only(&ToolUseBlock::new(
            "1",
            "computer",
            json!({"action": "screenshot"})
        )));
        assert!(is_observe_only(&ToolUseBlock::new(
            "1",
            "screenshot_tags_computer_831bfe95-59f6-48b4-b54f",
            json!({})
        )));
        assert!(!is_observe_only(&ToolUseBlock::new(
            "1",
            "computer",
            json!({"action": "left_click", "coordinate": [1, 2]})
        )));
    }

    #[test]
    fn summary_hides_typed_text() {
        let summary = redacted_input_summary(&json!({"action": "type", "text": "hunter2"}));
        assert_eq!(summary, "type text of 7 characters");
        assert!(!summary.contains("hunter2"));
    }
}
