//! Parsing the `computer` tool's input (Anthropic's computer action set, `zoom` and `key`'s
//! `repeat` included) into a typed [`Action`], with errors a model can act on: each names the
//! action, the field and what is valid.

use serde_json::Value;

use crate::backend::MouseButton;
use crate::backend::ScrollDirection;

/// Every action the tool accepts, in the order the schema lists them (one list for every
/// crate: [`retrace_protocol::tool_input::COMPUTER_ACTIONS`]).
pub use retrace_protocol::tool_input::COMPUTER_ACTIONS as ACTIONS;

pub use retrace_protocol::computer_tool::MAX_DURATION_S;
pub use retrace_protocol::computer_tool::MAX_KEY_REPEAT;

/// A point in the model's coordinates.
pub type ModelPoint = (i64, i64);

/// One validated `computer` action.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// Take a screenshot.
    Screenshot,
    /// Click `count` times with `button`, at `at` or the current position, holding the
    /// `modifiers` combo (xdotool names) if given.
    Click {
        /// Which button.
        button: MouseButton,
        /// 1, 2 or 3.
        count: u32,
        /// Where; `None` clicks at the pointer.
        at: Option<ModelPoint>,
        /// Keys held during the click.
        modifiers: Option<String>,
    },
    /// Move the pointer.
    MouseMove(ModelPoint),
    /// Press at `from`, move to `to`, release.
    Drag {
        /// Start.
        from: ModelPoint,
        /// End.
        to: ModelPoint,
    },
    /// Press the left button at the pointer.
    MouseDown,
    /// Release the left button at the pointer.
    MouseUp,
    /// Turn the wheel.
    Scroll {
        /// Where; `None` scrolls at the pointer.
        at: Option<ModelPoint>,
        /// Which way.
        direction: ScrollDirection,
        /// How many notches.
        amount: u32,
        /// Keys held while scrolling.
        modifiers: Option<String>,
    },
    /// Type text.
    Type(String),
    /// Press a key combination `repeat` times.
    Key {
        /// The combination (xdotool names).
        combo: String,
        /// How many presses, at least 1.
        repeat: u32,
    },
    /// Hold a key combination for `seconds`.
    HoldKey {
        /// The combination (xdotool names).
        combo: String,
        /// How long, in seconds.
        seconds: f64,
    },
    /// Do nothing for `seconds`, then screenshot.
    Wait(f64),
    /// Report the pointer position.
    CursorPosition,
    /// A screenshot of a region, at the display's full resolution.
    Zoom {
        /// Left and top edges, in the model's coordinates.
        from: ModelPoint,
        /// Right and bottom edges (exclusive), in the model's coordinates.
        to: ModelPoint,
    },
}

/// Parses and validates the tool input. The message of an `Err` is for the model.
pub fn parse(input: &Value) -> Result<Action, String> {
    let Some(object) = input.as_object() else {
        return Err(format!(
            "the computer tool input must be a JSON object with an `action` field, got {input}"
        ));
    };
    let action = match object.get("action") {
        Some(Value::String(action)) => action.as_str(),
        Some(other) => return Err(format!("`action` must be a string, got {other}")),
        None => {
            return Err(format!(
                "missing `action`; valid actions: {}",
                ACTIONS.join(", ")
            ));
        }
    };
    let fields = Fields { object, action };
    let parsed = match action {
        "screenshot" => Action::Screenshot,
        "left_click" | "right_click" | "middle_click" | "double_click" | "triple_click" => {
            let (button, count) = match action {
                "right_click" => (MouseButton::Right, 1),
                "middle_click" => (MouseButton::Middle, 1),
                "double_click" => (MouseButton::Left, 2),
                "triple_click" => (MouseButton::Left, 3),
                _ => (MouseButton::Left, 1),
            };
            Action::Click {
                button,
                count,
                at: fields.point("coordinate")?,
                modifiers: fields.text_opt()?,
            }
        }
        "mouse_move" => Action::MouseMove(fields.required_point("coordinate")?),
        "left_click_drag" => Action::Drag {
            from: fields.required_point("start_coordinate")?,
            to: fields.required_point("coordinate")?,
        },
        "left_mouse_down" | "left_mouse_up" => {
            fields.refuse("coordinate")?;
            fields.refuse("text")?;
            if action == "left_mouse_down" {
                Action::MouseDown
            } else {
                Action::MouseUp
            }
        }
        "scroll" => Action::Scroll {
            at: fields.point("coordinate")?,
            direction: fields.direction()?,
            amount: fields.amount()?,
            modifiers: fields.text_opt()?,
        },
        "type" => Action::Type(fields.required_text()?),
        "key" => Action::Key {
            combo: fields.required_text()?,
            repeat: fields.repeat()?,
        },
        "hold_key" => Action::HoldKey {
            combo: fields.required_text()?,
            seconds: fields.duration()?,
        },
        "wait" => Action::Wait(fields.duration()?),
        "cursor_position" => Action::CursorPosition,
        "zoom" => {
            let (from, to) = fields.region()?;
            Action::Zoom { from, to }
        }
        other => {
            return Err(format!(
                "unknown action `{other}`; valid actions: {}",
                ACTIONS.join(", ")
            ));
        }
    };
    Ok(parsed)
}

/// The input object of one action, for field-level errors naming the action.
struct Fields<'a> {
    object: &'a serde_json::Map<String, Value>,
    action: &'a str,
}

impl Fields<'_> {
    fn point(&self, field: &str) -> Result<Option<ModelPoint>, String> {
        let Some(value) = self.object.get(field).filter(|v| !v.is_null()) else {
            return Ok(None);
        };
        let bad = || {
            format!(
                "`{field}` of `{}` must be [x, y] with two non-negative integers, got {value}",
                self.action
            )
        };
        let Some([x, y]) = value.as_array().map(Vec::as_slice) else {
            return Err(bad());
        };
        let coordinate = |v: &Value| {
            v.as_i64()
                .or_else(|| v.as_f64().filter(|f| f.fract() == 0.0).map(|f| f as i64))
        };
        match (coordinate(x), coordinate(y)) {
            (Some(x), Some(y)) if x >= 0 && y >= 0 => Ok(Some((x, y))),
            _ => Err(bad()),
        }
    }

    fn required_point(&self, field: &str) -> Result<ModelPoint, String> {
        self.point(field)?
            .ok_or_else(|| format!("`{}` needs `{field}`: [x, y]", self.action))
    }

    fn refuse(&self, field: &str) -> Result<(), String> {
        match self.object.get(field) {
            Some(value) if !value.is_null() => Err(format!(
                "`{}` does not take `{field}` (it acts at the current pointer position)",
                self.action
            )),
            _ => Ok(()),
        }
    }

    fn text_opt(&self) -> Result<Option<String>, String> {
        match self.object.get("text") {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(text)) if text.trim().is_empty() => Ok(None),
            Some(Value::String(text)) => Ok(Some(text.clone())),
            Some(other) => Err(format!(
                "`text` of `{}` must be a string of modifier keys such as \"shift\" or \
                 \"ctrl\", got {other}",
                self.action
            )),
        }
    }

    fn required_text(&self) -> Result<String, String> {
        match self.object.get("text") {
            Some(Value::String(text)) if !text.is_empty() => Ok(text.clone()),
            Some(Value::String(_)) => Err(format!("`text` of `{}` is empty", self.action)),
            Some(other) => Err(format!(
                "`text` of `{}` must be a string, got {other}",
                self.action
            )),
            None => Err(format!(
                "`{}` needs `text`{}",
                self.action,
                if self.action == "type" {
                    ": the text to type"
                } else {
                    ": a key combination in xdotool names such as \"Return\" or \"ctrl+a\""
                }
            )),
        }
    }

    fn direction(&self) -> Result<ScrollDirection, String> {
        match self.object.get("scroll_direction").and_then(Value::as_str) {
            Some("up") => Ok(ScrollDirection::Up),
            Some("down") => Ok(ScrollDirection::Down),
            Some("left") => Ok(ScrollDirection::Left),
            Some("right") => Ok(ScrollDirection::Right),
            _ => Err(format!(
                "`scroll` needs `scroll_direction`: one of up, down, left, right (got {})",
                self.object
                    .get("scroll_direction")
                    .map_or_else(|| "nothing".to_owned(), Value::to_string)
            )),
        }
    }

    fn amount(&self) -> Result<u32, String> {
        match self.object.get("scroll_amount") {
            None | Some(Value::Null) => Err(
                "`scroll` needs `scroll_amount`: a non-negative integer number of wheel notches"
                    .to_owned(),
            ),
            Some(value) => value
                .as_u64()
                .and_then(|n| u32::try_from(n).ok())
                .ok_or_else(|| {
                    format!("`scroll_amount` must be a non-negative integer, got {value}")
                }),
        }
    }

    fn repeat(&self) -> Result<u32, String> {
        match self.object.get("repeat") {
            None | Some(Value::Null) => Ok(1),
            Some(value) => value
                .as_u64()
                .and_then(|n| u32::try_from(n).ok())
                .filter(|n| (1..=MAX_KEY_REPEAT).contains(n))
                .ok_or_else(|| {
                    format!(
                        "`repeat` of `key` must be a whole number from 1 to {MAX_KEY_REPEAT}, \
                         got {value}"
                    )
                }),
        }
    }

    fn region(&self) -> Result<(ModelPoint, ModelPoint), String> {
        let value = self.object.get("region");
        let bad = || {
            format!(
                "`zoom` needs `region`: [x0, y0, x1, y1] with 0 <= x0 < x1 and 0 <= y0 < y1 in \
                 screenshot pixels, got {}",
                value.map_or_else(|| "nothing".to_owned(), Value::to_string)
            )
        };
        let numbers: Option<Vec<i64>> = value
            .and_then(Value::as_array)
            .map(|items| items.iter().filter_map(Value::as_i64).collect());
        match numbers.as_deref() {
            Some(&[x0, y0, x1, y1]) if x0 >= 0 && y0 >= 0 && x0 < x1 && y0 < y1 => {
                Ok(((x0, y0), (x1, y1)))
            }
            _ => Err(bad()),
        }
    }

    fn duration(&self) -> Result<f64, String> {
        let value = self.object.get("duration");
        match value.and_then(Value::as_f64) {
            Some(seconds) if (0.0..=MAX_DURATION_S).contains(&seconds) => Ok(seconds),
            Some(seconds) if seconds > MAX_DURATION_S => Err(format!(
                "`duration` of `{}` is too long: {seconds} s (at most {MAX_DURATION_S})",
                self.action
            )),
            _ => Err(format!(
                "`{}` needs `duration`: a non-negative number of seconds (got {})",
                self.action,
                value.map_or_else(|| "nothing".to_owned(), Value::to_string)
            )),
        }
    }
}

/// The JSON Schema of the tool input (declared once, in the protocol crate).
pub fn input_schema() -> Value {
    retrace_protocol::computer_tool::input_schema()
}
