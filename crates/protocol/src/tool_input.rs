//! Reading and adjusting recorded tool inputs, by one set of rules for every crate.
//!
//! - [`COMPUTER_ACTIONS`]: the `computer` tool's action set (Anthropic `computer_20250124`),
//!   the catalogue's ([`crate::computer_actions`]).
//! - [`action_point`] / [`shift_point`]: where an input acts, read as askui reads it
//!   (`coordinate: [x, y]`, else `x`/`y`, else `x1`/`y1`; numbers or numeric strings with
//!   Python `int()` semantics), and moving that point (a replay's repair) by the same rules,
//!   so a point the search found is the point that moves.
//! - [`is_observe_only`] / [`action_name`]: which steps only look at the screen (replay skips
//!   them) and what a step does, for messages.
//! - [`redacted_summary`]: a one-line summary that never repeats typed text (it may be a
//!   parameter value, such as a password).

use serde_json::Value;

use crate::ToolUseBlock;
use crate::computer_actions::ActionKind;
use crate::tool_names::base_name;

/// Every action of the `computer` tool, in the order its schema lists them: the
/// catalogue's ([`crate::computer_actions`]).
pub use crate::computer_actions::COMPUTER_ACTIONS;

/// Tool base names and web executor commands that only look at the screen or the page
/// (askui's `screenshot` tool, a DOM read); the `computer` tool's observe-only actions are
/// those of kind [`ActionKind::Observe`] in the catalogue.
pub const OBSERVE_ONLY_TOOLS: [&str; 2] = [crate::computer_actions::askui::SCREENSHOT, "GET_DOM"];

/// What a tool call that was not run answers, when an earlier action of the same turn failed:
/// the model planned the actions as a sequence, and a later one rarely makes sense once an
/// earlier one did not happen. The wording is the official SDK's for the computer toolset
/// (`anthropic` 2.14.0, `lib/tools/_toolsets/_runnable.py`, `HALT_TEXT`). A recording leaves
/// such calls out.
pub const NOT_EXECUTED: &str = "Not executed: an earlier computer action in this turn failed.";

/// The input key holding a `computer` action (`web_executor` uses `command`).
fn action_of(input: &Value) -> Option<&str> {
    input
        .get("action")
        .or_else(|| input.get("command"))
        .and_then(Value::as_str)
}

/// The `toolset_name` of the computer toolset's calls (`computer_toolset_20260801`).
pub const COMPUTER_TOOLSET: &str = "computer";

/// Turns a computer toolset member call (`name: "left_click"`, `toolset_name: "computer"`,
/// the action's fields as input) into retrace's one shape (`name: "computer"`, the action in
/// `input.action`), so steps written in any form read alike. Returns whether it changed.
pub fn from_toolset_call(step: &mut ToolUseBlock) -> bool {
    let is_member =
        step.extra.get("toolset_name").and_then(Value::as_str) == Some(COMPUTER_TOOLSET);
    if !is_member {
        return false;
    }
    step.extra.remove("toolset_name");
    let action = std::mem::replace(&mut step.name, crate::tool_names::COMPUTER.to_owned());
    let mut input = serde_json::Map::new();
    input.insert("action".into(), Value::String(action));
    if let Value::Object(fields) = std::mem::take(&mut step.input) {
        input.extend(fields);
    }
    step.input = Value::Object(input);
    true
}

/// Whether a step only observes (a screenshot, a zoom, the cursor position, a DOM read).
pub fn is_observe_only(step: &ToolUseBlock) -> bool {
    OBSERVE_ONLY_TOOLS.contains(&base_name(&step.name))
        || action_of(&step.input).is_some_and(|action| {
            OBSERVE_ONLY_TOOLS.contains(&action)
                || crate::computer_actions::kind_of(action) == Some(ActionKind::Observe)
        })
}

/// The step's action (`left_click`), or its tool's base name (`mouse_click`).
pub fn action_name(step: &ToolUseBlock) -> String {
    action_of(&step.input).map_or_else(|| base_name(&step.name).to_owned(), str::to_owned)
}

/// The keys a point may be given under, in askui's order of preference.
const POINT_KEYS: [(&str, &str); 2] = [("x", "y"), ("x1", "y1")];

/// The point a tool input acts on, read as askui reads it: `coordinate: [x, y]` first, then
/// `x`/`y`, then `x1`/`y1`. Values may be numbers or numeric strings (Python `int()`
/// semantics: `"85"`, `" 85 "` and `"1_000"` work; fractions of numbers are truncated toward
/// zero). `None` when the input names no point.
pub fn action_point(input: &Value) -> Option<(i64, i64)> {
    if let Some(Value::Array(items)) = input.get("coordinate")
        && let [x, y] = items.as_slice()
        && let (Some(x), Some(y)) = (python_int(x), python_int(y))
    {
        return Some((x, y));
    }
    POINT_KEYS.iter().find_map(|(kx, ky)| {
        let (x, y) = (input.get(*kx)?, input.get(*ky)?);
        Some((python_int(x)?, python_int(y)?))
    })
}

/// Moves the point [`action_point`] reads by `offset`, in the place it read it from, keeping
/// numbers as numbers and numeric strings as strings. An input with no point is unchanged.
pub fn shift_point(input: &mut Value, offset: (i64, i64)) {
    if let Some(Value::Array(items)) = input.get_mut("coordinate")
        && let [x, y] = items.as_mut_slice()
        && python_int(x).is_some()
        && python_int(y).is_some()
    {
        shift_number(x, offset.0);
        shift_number(y, offset.1);
        return;
    }
    for (kx, ky) in POINT_KEYS {
        let readable = |key: &str| input.get(key).and_then(python_int).is_some();
        if readable(kx) && readable(ky) {
            for (key, delta) in [(kx, offset.0), (ky, offset.1)] {
                if let Some(value) = input.get_mut(key) {
                    shift_number(value, delta);
                }
            }
            return;
        }
    }
}

/// Adds `delta` to a value [`python_int`] reads, keeping its JSON type.
fn shift_number(value: &mut Value, delta: i64) {
    match value {
        Value::Number(number) => {
            if let Some(integer) = number.as_i64() {
                *value = Value::from(integer.saturating_add(delta));
            } else if let Some(float) = number.as_f64() {
                *value = Value::from(float + delta as f64);
            }
        }
        Value::String(text) => {
            if let Some(integer) = parse_python_int(text) {
                *text = integer.saturating_add(delta).to_string();
            }
        }
        Value::Bool(flag) => *value = Value::from(i64::from(*flag).saturating_add(delta)),
        _ => {}
    }
}

/// Python `int(value)` for a JSON number, string or boolean; `None` where Python would raise.
fn python_int(value: &Value) -> Option<i64> {
    match value {
        Value::Number(n) => n.as_i64().or_else(|| {
            let f = n.as_f64()?;
            (f.is_finite() && f.abs() < 9.0e18).then_some(f.trunc() as i64)
        }),
        Value::String(text) => parse_python_int(text),
        Value::Bool(flag) => Some(i64::from(*flag)),
        _ => None,
    }
}

/// Python `int(text)`: surrounding whitespace, an optional sign, decimal digits with single
/// underscores between digits (`"1_000"`, not `"_1"`, `"1_"` or `"1__0"`).
fn parse_python_int(text: &str) -> Option<i64> {
    let trimmed = text.trim();
    let digits = trimmed
        .strip_prefix(['+', '-'])
        .unwrap_or(trimmed)
        .as_bytes();
    let well_formed = !digits.is_empty()
        && digits.first().is_some_and(u8::is_ascii_digit)
        && digits.last().is_some_and(u8::is_ascii_digit)
        && digits.iter().all(|b| b.is_ascii_digit() || *b == b'_')
        && !digits.windows(2).any(|pair| pair == b"__");
    if !well_formed {
        return None;
    }
    trimmed.replace('_', "").parse().ok()
}

/// A one-line summary of an input for messages and logs: the action and point, and for text
/// only its length (typed text may be a parameter value, such as a password).
pub fn redacted_summary(input: &Value) -> String {
    let mut parts = Vec::new();
    if let Some(action) = action_of(input) {
        parts.push(action.to_owned());
    }
    if let Some((x, y)) = action_point(input) {
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
    fn point_prefers_coordinate_then_xy_then_x1y1() {
        assert_eq!(
            action_point(&json!({"coordinate": [3, 4], "x": 1, "y": 2})),
            Some((3, 4))
        );
        assert_eq!(
            action_point(&json!({"x": 1, "y": 2, "x1": 7, "y1": 8})),
            Some((1, 2))
        );
        assert_eq!(action_point(&json!({"x1": 7, "y1": 8})), Some((7, 8)));
        assert_eq!(action_point(&json!({"x": "85", "y": " 9 "})), Some((85, 9)));
        assert_eq!(action_point(&json!({"x": 85.9, "y": -1.5})), Some((85, -1)));
        assert_eq!(action_point(&json!({"text": "hi"})), None);
        assert_eq!(action_point(&json!({"x": "abc", "y": 1})), None);
        assert_eq!(action_point(&json!({"x": 1})), None);
    }

    #[test]
    fn numeric_strings_follow_python_int() {
        assert_eq!(
            action_point(&json!({"x": "1_000", "y": "+2"})),
            Some((1000, 2))
        );
        for bad in ["_1", "1_", "1__0", "1.5", "", " ", "0x10", "+"] {
            assert_eq!(action_point(&json!({"x": bad, "y": 1})), None, "{bad:?}");
        }
    }

    /// Whatever point `action_point` finds is the point `shift_point` moves: the search and
    /// the repair agree (they once disagreed on `"1_000"`).
    #[test]
    fn shifting_moves_the_point_that_is_read_and_keeps_types() {
        let cases = [
            json!({"action": "left_click", "coordinate": [100, 200]}),
            json!({"x": "85", "y": 40}),
            json!({"x1": 1.5, "y1": 2}),
            json!({"x": "1_000", "y": " 20 "}),
            json!({"coordinate": ["7", 8]}),
            json!({"coordinate": [1], "x": 3, "y": 4}),
            json!({"x": "abc", "y": 1, "x1": 5, "y1": 6}),
        ];
        for mut input in cases {
            let before = action_point(&input).unwrap();
            shift_point(&mut input, (5, -3));
            assert_eq!(
                action_point(&input),
                Some((before.0 + 5, before.1 - 3)),
                "{input}"
            );
        }
        let mut b = json!({"x": "85", "y": 40});
        shift_point(&mut b, (-5, 10));
        assert_eq!(b, json!({"x": "80", "y": 50}));
        let mut c = json!({"x1": 1.5, "y1": 2});
        shift_point(&mut c, (1, 1));
        assert_eq!(c, json!({"x1": 2.5, "y1": 3}));
        let mut none = json!({"text": "hi"});
        shift_point(&mut none, (1, 1));
        assert_eq!(none, json!({"text": "hi"}));
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
        assert!(is_observe_only(&ToolUseBlock::new(
            "1",
            "computer",
            json!({"action": "zoom", "region": [0, 0, 1, 1]})
        )));
        assert!(!is_observe_only(&ToolUseBlock::new(
            "1",
            "computer",
            json!({"action": "wait", "duration": 1})
        )));
    }

    #[test]
    fn toolset_calls_read_as_computer_calls() {
        let mut step: ToolUseBlock = serde_json::from_value(json!({
            "type": "tool_use", "id": "t1", "name": "left_click",
            "toolset_name": "computer", "input": {"coordinate": [1, 2]}
        }))
        .unwrap();
        assert!(from_toolset_call(&mut step));
        assert_eq!(step.name, "computer");
        assert_eq!(
            step.input,
            json!({"action": "left_click", "coordinate": [1, 2]})
        );
        assert!(!step.extra.contains_key("toolset_name"));
        assert!(!from_toolset_call(&mut step));
    }

    #[test]
    fn summary_hides_typed_text() {
        let summary = redacted_summary(&json!({"action": "type", "text": "hunter2"}));
        assert_eq!(summary, "type text of 7 characters");
        assert!(!summary.contains("hunter2"));
    }
}
