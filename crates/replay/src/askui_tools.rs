//! askui's computer tools, so trajectories recorded by askui replay on retrace's backends.
//!
//! askui records `move_mouse{x, y}`, `mouse_click{mouse_button, number_of_clicks}`,
//! `mouse_hold_down`/`mouse_release{mouse_button}`, `mouse_scroll{dx, dy}`, `type{text}`,
//! `keyboard_tap{key, modifier_keys}` and `screenshot`, each under a name with a
//! `_tags_..._<uuid>` suffix; [`retrace_drive::tool::Toolbox::get`] matches them by base name. Key
//! names are askui's (`enter`, `control`, `pagedown`) and are mapped to xdotool names here.

use std::sync::Arc;

use async_trait::async_trait;
use retrace_drive::Backend;
use retrace_drive::DriveError;
use retrace_drive::backend::MouseButton;
use retrace_drive::backend::Point;
use retrace_drive::backend::ScrollDirection;
use serde_json::Value;
use serde_json::json;

use retrace_drive::tool::Tool;
use retrace_drive::tool::ToolError;
use retrace_drive::tool::ToolOutput;

/// Pixels of askui's `mouse_scroll` delta per wheel notch.
const PIXELS_PER_NOTCH: i64 = 100;

/// Which askui tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    MoveMouse,
    MouseClick,
    MouseHoldDown,
    MouseRelease,
    MouseScroll,
    Type,
    KeyboardTap,
    Screenshot,
}

impl Kind {
    const ALL: [Kind; 8] = [
        Kind::MoveMouse,
        Kind::MouseClick,
        Kind::MouseHoldDown,
        Kind::MouseRelease,
        Kind::MouseScroll,
        Kind::Type,
        Kind::KeyboardTap,
        Kind::Screenshot,
    ];

    fn name(self) -> &'static str {
        match self {
            Kind::MoveMouse => "move_mouse",
            Kind::MouseClick => "mouse_click",
            Kind::MouseHoldDown => "mouse_hold_down",
            Kind::MouseRelease => "mouse_release",
            Kind::MouseScroll => "mouse_scroll",
            Kind::Type => "type",
            Kind::KeyboardTap => "keyboard_tap",
            Kind::Screenshot => "screenshot",
        }
    }

    fn description(self) -> &'static str {
        match self {
            Kind::MoveMouse => "Move the mouse pointer to (x, y).",
            Kind::MouseClick => "Click a mouse button at the pointer, number_of_clicks times.",
            Kind::MouseHoldDown => "Press and hold a mouse button.",
            Kind::MouseRelease => "Release a held mouse button.",
            Kind::MouseScroll => "Scroll by (dx, dy) pixels at the pointer.",
            Kind::Type => "Type text at the focus.",
            Kind::KeyboardTap => "Press a key, with modifier keys held.",
            Kind::Screenshot => "Take a screenshot.",
        }
    }

    fn schema(self) -> Value {
        let button = json!({"type": "string", "enum": ["left", "right", "middle"]});
        match self {
            Kind::MoveMouse => {
                json!({"type": "object", "properties": {"x": {"type": "integer"}, "y": {"type": "integer"}}, "required": ["x", "y"]})
            }
            Kind::MouseClick => {
                json!({"type": "object", "properties": {"mouse_button": button, "number_of_clicks": {"type": "integer", "minimum": 1}}})
            }
            Kind::MouseHoldDown | Kind::MouseRelease => {
                json!({"type": "object", "properties": {"mouse_button": button}})
            }
            Kind::MouseScroll => {
                json!({"type": "object", "properties": {"dx": {"type": "integer"}, "dy": {"type": "integer"}}})
            }
            Kind::Type => {
                json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]})
            }
            Kind::KeyboardTap => {
                json!({"type": "object", "properties": {"key": {"type": "string"}, "modifier_keys": {"type": "array", "items": {"type": "string"}}}, "required": ["key"]})
            }
            Kind::Screenshot => json!({"type": "object", "properties": {}}),
        }
    }
}

/// One askui tool over a backend.
pub struct AskuiTool {
    kind: Kind,
    backend: Arc<dyn Backend>,
}

impl std::fmt::Debug for AskuiTool {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("AskuiTool")
            .field("name", &self.kind.name())
            .finish()
    }
}

/// askui's computer tools over `backend`.
pub fn askui_tools(backend: Arc<dyn Backend>) -> Vec<Arc<dyn Tool>> {
    Kind::ALL
        .iter()
        .map(|kind| {
            Arc::new(AskuiTool {
                kind: *kind,
                backend: backend.clone(),
            }) as Arc<dyn Tool>
        })
        .collect()
}

/// An askui key name as an xdotool key name.
pub fn xdotool_key(key: &str) -> String {
    let lower = key.to_ascii_lowercase();
    let mapped = match lower.as_str() {
        "enter" | "return" => "Return",
        "control" | "ctrl" => "ctrl",
        "command" | "cmd" | "meta" | "super" | "windows" => "super",
        "alt" | "option" => "alt",
        "shift" => "shift",
        "escape" | "esc" => "Escape",
        "backspace" => "BackSpace",
        "delete" | "del" => "Delete",
        "tab" => "Tab",
        "space" => "space",
        "home" => "Home",
        "end" => "End",
        "pageup" | "page_up" => "Page_Up",
        "pagedown" | "page_down" => "Page_Down",
        "left" => "Left",
        "right" => "Right",
        "up" => "Up",
        "down" => "Down",
        "insert" => "Insert",
        _ => {
            if let Some(number) = lower
                .strip_prefix('f')
                .filter(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
            {
                return format!("F{number}");
            }
            return key.to_owned();
        }
    };
    mapped.to_owned()
}

fn button(input: &Value) -> Result<MouseButton, String> {
    match input
        .get("mouse_button")
        .and_then(Value::as_str)
        .unwrap_or("left")
    {
        "left" => Ok(MouseButton::Left),
        "right" => Ok(MouseButton::Right),
        "middle" => Ok(MouseButton::Middle),
        other => Err(format!(
            "unknown mouse_button `{other}`: use left, right or middle"
        )),
    }
}

fn integer(input: &Value, field: &str) -> Option<i64> {
    match input.get(field)? {
        Value::Number(number) => number
            .as_i64()
            .or_else(|| number.as_f64().map(|f| f.round() as i64)),
        Value::String(text) => text.trim().parse().ok(),
        _ => None,
    }
}

impl AskuiTool {
    async fn run(&self, input: &Value) -> Result<Result<ToolOutput, String>, DriveError> {
        let backend = &self.backend;
        match self.kind {
            Kind::MoveMouse => {
                let (Some(x), Some(y)) = (integer(input, "x"), integer(input, "y")) else {
                    return Ok(Err("move_mouse needs integer `x` and `y`".into()));
                };
                let (Ok(x), Ok(y)) = (i32::try_from(x), i32::try_from(y)) else {
                    return Ok(Err(format!("({x}, {y}) is off the screen")));
                };
                backend.mouse_move(Point { x, y }).await?;
                Ok(Ok(ToolOutput::text(format!(
                    "moved the mouse to ({x}, {y})"
                ))))
            }
            Kind::MouseClick => {
                let button = match button(input) {
                    Ok(button) => button,
                    Err(message) => return Ok(Err(message)),
                };
                let count = integer(input, "number_of_clicks").unwrap_or(1).clamp(1, 3) as u32;
                let at = backend.cursor_position().await?;
                backend.click(at, button, count).await?;
                Ok(Ok(ToolOutput::text(format!("clicked {count} time(s)"))))
            }
            Kind::MouseHoldDown | Kind::MouseRelease => {
                let button = match button(input) {
                    Ok(button) => button,
                    Err(message) => return Ok(Err(message)),
                };
                if self.kind == Kind::MouseHoldDown {
                    backend.mouse_down(button).await?;
                } else {
                    backend.mouse_up(button).await?;
                }
                Ok(Ok(ToolOutput::text("done")))
            }
            Kind::MouseScroll => {
                let dx = integer(input, "dx").unwrap_or(0);
                let dy = integer(input, "dy").unwrap_or(0);
                let at = backend.cursor_position().await?;
                for (delta, positive, negative) in [
                    (dy, ScrollDirection::Down, ScrollDirection::Up),
                    (dx, ScrollDirection::Right, ScrollDirection::Left),
                ] {
                    if delta != 0 {
                        let notches =
                            u32::try_from((delta.abs() + PIXELS_PER_NOTCH - 1) / PIXELS_PER_NOTCH)
                                .unwrap_or(1)
                                .max(1);
                        backend
                            .scroll(at, if delta > 0 { positive } else { negative }, notches)
                            .await?;
                    }
                }
                Ok(Ok(ToolOutput::text(format!("scrolled by ({dx}, {dy})"))))
            }
            Kind::Type => {
                let Some(text) = input.get("text").and_then(Value::as_str) else {
                    return Ok(Err("type needs `text` (a string)".into()));
                };
                backend.type_text(text, None).await?;
                Ok(Ok(ToolOutput::text(format!(
                    "typed {} characters",
                    text.chars().count()
                ))))
            }
            Kind::KeyboardTap => {
                let Some(key) = input.get("key").and_then(Value::as_str) else {
                    return Ok(Err("keyboard_tap needs `key` (a string)".into()));
                };
                let mut combo: Vec<String> = input
                    .get("modifier_keys")
                    .and_then(Value::as_array)
                    .map(|keys| {
                        keys.iter()
                            .filter_map(Value::as_str)
                            .map(xdotool_key)
                            .collect()
                    })
                    .unwrap_or_default();
                combo.push(xdotool_key(key));
                let combo = combo.join("+");
                match backend.key(&combo).await {
                    Ok(()) => Ok(Ok(ToolOutput::text(format!("pressed {combo}")))),
                    Err(DriveError::InvalidInput(message)) => Ok(Err(message)),
                    Err(error) => Err(error),
                }
            }
            Kind::Screenshot => {
                let shot = backend.screenshot().await?;
                Ok(Ok(ToolOutput {
                    screenshot: Some(shot),
                    ..ToolOutput::default()
                }))
            }
        }
    }
}

#[async_trait]
impl Tool for AskuiTool {
    fn name(&self) -> &str {
        self.kind.name()
    }

    fn description(&self) -> &str {
        self.kind.description()
    }

    fn input_schema(&self) -> Value {
        self.kind.schema()
    }

    fn cacheable(&self) -> bool {
        true
    }

    async fn call(&self, input: Value) -> Result<ToolOutput, ToolError> {
        match self.run(&input).await {
            Ok(Ok(reply)) => Ok(reply),
            Ok(Err(message)) => Err(ToolError::for_model(message)),
            Err(DriveError::InvalidInput(message)) => Err(ToolError::for_model(message)),
            Err(error) => Err(ToolError::Fatal(error)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_askui_key_names() {
        assert_eq!(xdotool_key("enter"), "Return");
        assert_eq!(xdotool_key("control"), "ctrl");
        assert_eq!(xdotool_key("pagedown"), "Page_Down");
        assert_eq!(xdotool_key("f5"), "F5");
        assert_eq!(xdotool_key("c"), "c");
    }
}
