//! OpenAI's computer actions (`openai` 3.57.0, `types/responses/computer_action.py` and
//! `response_computer_tool_call.py`) to and from the input of retrace's `computer` tool
//! (`retrace_protocol::computer_tool`), as pure functions.
//!
//! | OpenAI action                         | retrace input                                       |
//! |---------------------------------------|-----------------------------------------------------|
//! | `click` left / right / wheel at x, y  | `left_click` / `right_click` / `middle_click`, `coordinate` |
//! | `click` back / forward                | `key` `alt+Left` / `alt+Right` (browser history)    |
//! | `double_click` at x, y                | `double_click`, `coordinate`                        |
//! | `drag` along `path`                   | `left_click_drag` from the first point to the last  |
//! | `move` to x, y                        | `mouse_move`, `coordinate`                          |
//! | `scroll` at x, y by `scroll_x/_y` px  | `scroll`, `scroll_direction`, `scroll_amount` notches of [`PIXELS_PER_NOTCH`] |
//! | `keypress` `["CTRL", "A"]`            | `key` `ctrl+a` (xdotool names)                      |
//! | `type` `text`                         | `type`, `text`                                      |
//! | `wait`                                | `wait`, `duration` [`WAIT_SECONDS`]                 |
//! | `screenshot`                          | `screenshot`                                        |
//!
//! Keys held during a pointer action (`keys`) become the click's `text` (`shift+ctrl`).
//! Going back, an action OpenAI has no form for (`triple_click`, `hold_key`, `zoom`...,
//! only found in histories handed over from another model) is sent as `screenshot`.

use retrace_protocol::computer_actions;
use retrace_protocol::computer_actions::ComputerAction;
use retrace_protocol::computer_actions::MouseButton;
use retrace_protocol::computer_actions::ScrollDirection;
use retrace_protocol::computer_actions::names;
use serde_json::Map;
use serde_json::Value;
use serde_json::json;

/// Pixels one scroll notch stands for (Chromium scrolls about 100 px per wheel notch).
pub const PIXELS_PER_NOTCH: i64 = 100;

/// How long OpenAI's `wait` waits, in seconds (the action has no duration).
pub const WAIT_SECONDS: f64 = 2.0;

/// OpenAI's key names (lowercased) and their xdotool names. OpenAI's own sample maps the
/// same names to Playwright keys (openai-cua-sample-app, `CUA_KEY_TO_PLAYWRIGHT_KEY`).
const KEYS: [(&str, &str); 24] = [
    ("alt", "alt"),
    ("option", "alt"),
    ("ctrl", "ctrl"),
    ("control", "ctrl"),
    ("shift", "shift"),
    ("cmd", "super"),
    ("super", "super"),
    ("win", "super"),
    ("meta", "super"),
    ("enter", "Return"),
    ("return", "Return"),
    ("esc", "Escape"),
    ("escape", "Escape"),
    ("tab", "Tab"),
    ("space", "space"),
    ("backspace", "BackSpace"),
    ("delete", "Delete"),
    ("arrowup", "Up"),
    ("arrowdown", "Down"),
    ("arrowleft", "Left"),
    ("arrowright", "Right"),
    ("pageup", "Page_Up"),
    ("pagedown", "Page_Down"),
    ("capslock", "Caps_Lock"),
];

/// One OpenAI key name as xdotool names it (`CTRL` → `ctrl`, `ENTER` → `Return`, `A` → `a`).
fn xdotool_key(key: &str) -> String {
    let lower = key.to_ascii_lowercase();
    KEYS.iter()
        .find(|(openai, _)| *openai == lower)
        .map(|(_, xdotool)| (*xdotool).to_owned())
        .unwrap_or_else(|| {
            if key.chars().count() == 1 || ["home", "end", "insert"].contains(&lower.as_str()) {
                lower
            } else {
                key.to_owned()
            }
        })
}

/// One xdotool key name as OpenAI names it (`ctrl` → `CTRL`, `Return` → `ENTER`).
fn openai_key(key: &str) -> String {
    KEYS.iter()
        .find(|(_, xdotool)| xdotool.eq_ignore_ascii_case(key))
        .map_or_else(
            || key.to_ascii_uppercase(),
            |(openai, _)| openai.to_ascii_uppercase(),
        )
}

/// `keys` (`["CTRL", "A"]`) as an xdotool combination (`ctrl+a`).
fn combination(keys: &[Value]) -> String {
    keys.iter()
        .filter_map(Value::as_str)
        .map(xdotool_key)
        .collect::<Vec<_>>()
        .join("+")
}

/// An xdotool combination (`ctrl+a`) as OpenAI's `keys` (`["CTRL", "A"]`).
fn keys_of(combination: &str) -> Vec<String> {
    combination
        .split('+')
        .filter(|key| !key.is_empty())
        .map(openai_key)
        .collect()
}

/// The `computer` tool input for one OpenAI action, or what is wrong with it (named by
/// `at`, e.g. `output[1].action`).
pub fn to_computer_input(action: &Value, at: &str) -> Result<Value, String> {
    let kind = action
        .get("type")
        .and_then(Value::as_str)
        .ok_or_else(|| format!("{at} has no string `type`"))?;
    let int = |field: &str| {
        action
            .get(field)
            .and_then(Value::as_i64)
            .ok_or_else(|| format!("{at} ({kind}) has no integer `{field}`"))
    };
    let point = || -> Result<Value, String> { Ok(json!([int("x")?, int("y")?])) };
    let mut input = Map::new();
    let mut set = |key: &str, value: Value| {
        input.insert(key.to_owned(), value);
    };
    match kind {
        "click" => {
            let button = action
                .get("button")
                .and_then(Value::as_str)
                .unwrap_or("left");
            let name = match button {
                "left" => names::LEFT_CLICK,
                "right" => names::RIGHT_CLICK,
                "wheel" => names::MIDDLE_CLICK,
                "back" | "forward" => {
                    set("action", json!(names::KEY));
                    let arrow = if button == "back" { "Left" } else { "Right" };
                    set("text", json!(format!("alt+{arrow}")));
                    return Ok(Value::Object(input));
                }
                other => return Err(format!("{at}: unknown click button `{other}`")),
            };
            set("action", json!(name));
            set("coordinate", point()?);
        }
        // not ours: OpenAI's action type
        "double_click" => {
            set("action", json!(names::DOUBLE_CLICK));
            set("coordinate", point()?);
        }
        "move" => {
            set("action", json!(names::MOUSE_MOVE));
            set("coordinate", point()?);
        }
        "drag" => {
            let path = action
                .get("path")
                .and_then(Value::as_array)
                .filter(|path| path.len() >= 2)
                .ok_or_else(|| format!("{at} (drag) needs a `path` of at least two points"))?;
            let xy = |p: &Value| -> Result<Value, String> {
                match (
                    p.get("x").and_then(Value::as_i64),
                    p.get("y").and_then(Value::as_i64),
                ) {
                    (Some(x), Some(y)) => Ok(json!([x, y])),
                    _ => Err(format!(
                        "{at} (drag): a path point is not {{x, y}} integers: {p}"
                    )),
                }
            };
            set("action", json!(names::LEFT_CLICK_DRAG));
            set("start_coordinate", xy(&path[0])?);
            set("coordinate", xy(&path[path.len() - 1])?);
        }
        // not ours: OpenAI's action type
        "scroll" => {
            let (dx, dy) = (int("scroll_x")?, int("scroll_y")?);
            let (direction, pixels) = if dy.abs() >= dx.abs() {
                (if dy < 0 { "up" } else { "down" }, dy.abs())
            } else {
                (if dx < 0 { "left" } else { "right" }, dx.abs())
            };
            set("action", json!(names::SCROLL));
            set("coordinate", point()?);
            set("scroll_direction", json!(direction));
            set(
                "scroll_amount",
                json!((pixels + PIXELS_PER_NOTCH - 1) / PIXELS_PER_NOTCH),
            );
        }
        "keypress" => {
            let keys = action
                .get("keys")
                .and_then(Value::as_array)
                .filter(|keys| !keys.is_empty())
                .ok_or_else(|| format!("{at} (keypress) has no `keys`"))?;
            set("action", json!(names::KEY));
            set("text", json!(combination(keys)));
        }
        // not ours: OpenAI's action type
        "type" => {
            let text = action
                .get("text")
                .and_then(Value::as_str)
                .ok_or_else(|| format!("{at} (type) has no string `text`"))?;
            set("action", json!(names::TYPE));
            set("text", json!(text));
        }
        // not ours: OpenAI's action type
        "wait" => {
            set("action", json!(names::WAIT));
            set("duration", json!(WAIT_SECONDS));
        }
        "screenshot" => set("action", json!(names::SCREENSHOT)), // not ours: OpenAI's
        other => {
            return Err(format!(
                "{at}: unknown action `{other}` (known: click, double_click, drag, keypress, \
                 move, screenshot, scroll, type, wait)"
            ));
        }
    }
    if let Some(held) = action.get("keys").filter(|_| kind != "keypress")
        && let Some(held) = held.as_array().filter(|keys| !keys.is_empty())
    {
        set("text", json!(combination(held)));
    }
    Ok(Value::Object(input))
}

/// The OpenAI action for a `computer` tool input from the history (parsed by the action
/// catalogue; one OpenAI cannot express goes back as a screenshot).
pub fn from_computer_input(input: &Value) -> Value {
    let Ok(action) = computer_actions::parse(input) else {
        return screenshot();
    };
    let held = |mut value: Value, modifiers: &Option<String>| {
        if let Some(text) = modifiers {
            value["keys"] = json!(keys_of(text));
        }
        value
    };
    match action {
        ComputerAction::Click {
            button,
            count: 1,
            at: Some((x, y)),
            modifiers,
        } => {
            let button = match button {
                MouseButton::Left => "left",
                MouseButton::Right => "right",
                MouseButton::Middle => "wheel",
            };
            held(
                json!({"type": "click", "button": button, "x": x, "y": y}),
                &modifiers,
            )
        }
        ComputerAction::Click {
            button: MouseButton::Left,
            count: 2,
            at: Some((x, y)),
            modifiers,
        } => {
            // not ours: OpenAI's action type
            held(json!({"type": "double_click", "x": x, "y": y}), &modifiers)
        }
        ComputerAction::MouseMove((x, y)) => json!({"type": "move", "x": x, "y": y}),
        ComputerAction::Drag { from, to } => json!({"type": "drag", "path": [
            {"x": from.0, "y": from.1}, {"x": to.0, "y": to.1}]}),
        ComputerAction::Scroll {
            at,
            direction,
            amount,
            modifiers,
        } => {
            let (x, y) = at.unwrap_or((0, 0));
            let amount = i64::from(amount) * PIXELS_PER_NOTCH;
            let (dx, dy) = match direction {
                ScrollDirection::Up => (0, -amount),
                ScrollDirection::Left => (-amount, 0),
                ScrollDirection::Right => (amount, 0),
                ScrollDirection::Down => (0, amount),
            };
            held(
                json!({"type": "scroll", "x": x, "y": y, "scroll_x": dx, "scroll_y": dy}),
                &modifiers,
            )
        }
        ComputerAction::Type(text) => json!({"type": "type", "text": text}),
        ComputerAction::Key { combo, .. } => json!({"type": "keypress", "keys": keys_of(&combo)}),
        ComputerAction::Wait(_) => json!({"type": "wait"}),
        _ => screenshot(),
    }
}

fn screenshot() -> Value {
    json!({"type": "screenshot"})
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each OpenAI action, the retrace input it becomes, and back.
    fn cases() -> Vec<(Value, Value)> {
        vec![
            (
                json!({"type": "click", "button": "left", "x": 10, "y": 20}),
                json!({"action": "left_click", "coordinate": [10, 20]}),
            ),
            (
                json!({"type": "click", "button": "right", "x": 1, "y": 2, "keys": ["SHIFT"]}),
                json!({"action": "right_click", "coordinate": [1, 2], "text": "shift"}),
            ),
            (
                json!({"type": "click", "button": "wheel", "x": 3, "y": 4}),
                json!({"action": "middle_click", "coordinate": [3, 4]}),
            ),
            (
                json!({"type": "double_click", "x": 5, "y": 6}),
                json!({"action": "double_click", "coordinate": [5, 6]}),
            ),
            (
                json!({"type": "drag", "path": [{"x": 1, "y": 1}, {"x": 9, "y": 9}]}),
                json!({"action": "left_click_drag", "start_coordinate": [1, 1], "coordinate": [9, 9]}),
            ),
            (
                json!({"type": "move", "x": 7, "y": 8}),
                json!({"action": "mouse_move", "coordinate": [7, 8]}),
            ),
            (
                json!({"type": "scroll", "x": 640, "y": 400, "scroll_x": 0, "scroll_y": 300}),
                json!({"action": "scroll", "coordinate": [640, 400], "scroll_direction": "down", "scroll_amount": 3}),
            ),
            (
                json!({"type": "scroll", "x": 0, "y": 0, "scroll_x": -200, "scroll_y": 0}),
                json!({"action": "scroll", "coordinate": [0, 0], "scroll_direction": "left", "scroll_amount": 2}),
            ),
            (
                json!({"type": "keypress", "keys": ["CTRL", "A"]}),
                json!({"action": "key", "text": "ctrl+a"}),
            ),
            (
                json!({"type": "keypress", "keys": ["ENTER"]}),
                json!({"action": "key", "text": "Return"}),
            ),
            (
                json!({"type": "type", "text": "hello"}),
                json!({"action": "type", "text": "hello"}),
            ),
            (
                json!({"type": "wait"}),
                json!({"action": "wait", "duration": WAIT_SECONDS}),
            ),
            (
                json!({"type": "screenshot"}),
                json!({"action": "screenshot"}),
            ),
        ]
    }

    #[test]
    fn every_action_kind_maps_to_the_computer_tool_and_back() {
        for (openai, retrace) in cases() {
            assert_eq!(
                to_computer_input(&openai, "a").unwrap(),
                retrace,
                "{openai}"
            );
            assert_eq!(from_computer_input(&retrace), openai, "{retrace}");
        }
    }

    #[test]
    fn browser_buttons_become_history_keys() {
        let back = json!({"type": "click", "button": "back", "x": 1, "y": 1});
        assert_eq!(
            to_computer_input(&back, "a").unwrap(),
            json!({"action": "key", "text": "alt+Left"})
        );
    }

    #[test]
    fn malformed_actions_are_named() {
        let error =
            to_computer_input(&json!({"type": "click", "x": 1}), "output[0].action").unwrap_err();
        assert_eq!(error, "output[0].action (click) has no integer `y`");
        let error = to_computer_input(&json!({"type": "fly"}), "output[0].action").unwrap_err();
        assert!(
            error.starts_with("output[0].action: unknown action `fly`"),
            "{error}"
        );
    }

    #[test]
    fn actions_openai_has_no_form_for_are_sent_as_screenshots() {
        let zoom = json!({"action": "zoom", "region": [0, 0, 10, 10]});
        assert_eq!(from_computer_input(&zoom), json!({"type": "screenshot"}));
    }
}
