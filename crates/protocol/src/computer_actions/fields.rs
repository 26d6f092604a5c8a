//! Reading one action's input fields, with errors a model can act on: each names the
//! action, the field and what is valid. The catalogue's parsers are written with these.

use serde_json::Map;
use serde_json::Value;

use super::input_error::InputError;
use super::limits::MAX_DURATION_S;
use super::limits::MAX_KEY_REPEAT;
use super::values::DIRECTIONS;
use super::values::ModelPoint;
use super::values::ScrollDirection;

/// The input object of one action.
#[derive(Debug)]
pub struct Fields<'a> {
    object: &'a Map<String, Value>,
    action: &'static str,
}

impl<'a> Fields<'a> {
    /// The fields of `object`, an input of the action named `action`.
    pub fn new(object: &'a Map<String, Value>, action: &'static str) -> Self {
        Self { object, action }
    }

    fn action(&self) -> &'static str {
        self.action
    }

    /// The value of `field`, a JSON `null` read as absent.
    fn get(&self, field: &str) -> Option<&'a Value> {
        self.object.get(field).filter(|value| !value.is_null())
    }

    /// An optional `[x, y]` of non-negative integers.
    pub fn point(&self, field: &str) -> Result<Option<ModelPoint>, InputError> {
        let Some(value) = self.get(field) else {
            return Ok(None);
        };
        let bad = || {
            InputError::new(
                field,
                format!(
                    "`{field}` of `{}` must be [x, y] with two non-negative integers, got {value}",
                    self.action()
                ),
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

    /// A required `[x, y]`.
    pub fn required_point(&self, field: &str) -> Result<ModelPoint, InputError> {
        self.point(field)?.ok_or_else(|| {
            InputError::new(
                field,
                format!("`{}` needs `{field}`: [x, y]", self.action()),
            )
        })
    }

    /// Refuses any of `fields` (an action acting at the pointer takes no point).
    pub fn refuse(&self, fields: &[&str]) -> Result<(), InputError> {
        match fields.iter().find(|field| self.get(field).is_some()) {
            Some(field) => Err(InputError::new(
                *field,
                format!(
                    "`{}` does not take `{field}` (it acts at the current pointer position)",
                    self.action()
                ),
            )),
            None => Ok(()),
        }
    }

    /// Modifier keys to hold, in `text` (blank means none).
    pub fn modifiers(&self) -> Result<Option<String>, InputError> {
        match self.get("text") {
            None => Ok(None),
            Some(Value::String(text)) if text.trim().is_empty() => Ok(None),
            Some(Value::String(text)) => Ok(Some(text.clone())),
            Some(other) => Err(InputError::new(
                "text",
                format!(
                    "`text` of `{}` must be a string of modifier keys such as \"shift\" or \
                     \"ctrl\", got {other}",
                    self.action()
                ),
            )),
        }
    }

    /// A required, non-empty `text`; `what` says what it holds when it is missing.
    pub fn required_text(&self, what: &str) -> Result<String, InputError> {
        let action = self.action();
        match self.object.get("text") {
            Some(Value::String(text)) if !text.is_empty() => Ok(text.clone()),
            Some(Value::String(_)) => Err(InputError::new(
                "text",
                format!("`text` of `{action}` is empty"),
            )),
            None | Some(Value::Null) => Err(InputError::new(
                "text",
                format!("`{action}` needs `text`: {what}"),
            )),
            Some(other) => Err(InputError::new(
                "text",
                format!("`text` of `{action}` must be a string, got {other}"),
            )),
        }
    }

    /// A scroll direction.
    pub fn direction(&self, field: &str) -> Result<ScrollDirection, InputError> {
        match self.get(field).and_then(Value::as_str) {
            Some("up") => Ok(ScrollDirection::Up),
            Some("down") => Ok(ScrollDirection::Down),
            Some("left") => Ok(ScrollDirection::Left),
            Some("right") => Ok(ScrollDirection::Right),
            _ => Err(InputError::new(
                field,
                format!(
                    "`{}` needs `{field}`: one of {} (got {})",
                    self.action(),
                    DIRECTIONS.join(", "),
                    shown(self.get(field))
                ),
            )),
        }
    }

    /// A required non-negative integer; `what` says what it counts.
    pub fn count(&self, field: &str, what: &str) -> Result<u32, InputError> {
        let Some(value) = self.get(field) else {
            return Err(InputError::new(
                field,
                format!(
                    "`{}` needs `{field}`: a non-negative integer number of {what}",
                    self.action()
                ),
            ));
        };
        value
            .as_u64()
            .and_then(|n| u32::try_from(n).ok())
            .ok_or_else(|| {
                InputError::new(
                    field,
                    format!("`{field}` must be a non-negative integer, got {value}"),
                )
            })
    }

    /// How many times to press a key: 1 when absent, at most [`MAX_KEY_REPEAT`].
    pub fn repeat(&self, field: &str) -> Result<u32, InputError> {
        let Some(value) = self.get(field) else {
            return Ok(1);
        };
        value
            .as_u64()
            .and_then(|n| u32::try_from(n).ok())
            .filter(|n| (1..=MAX_KEY_REPEAT).contains(n))
            .ok_or_else(|| {
                InputError::new(
                    field,
                    format!(
                        "`{field}` of `{}` must be a whole number from 1 to {MAX_KEY_REPEAT}, \
                         got {value}",
                        self.action()
                    ),
                )
            })
    }

    /// A region `[x0, y0, x1, y1]` with `x0 < x1` and `y0 < y1`.
    pub fn region(&self, field: &str) -> Result<(ModelPoint, ModelPoint), InputError> {
        let value = self.get(field);
        let numbers: Option<Vec<i64>> = value
            .and_then(Value::as_array)
            .map(|items| items.iter().filter_map(Value::as_i64).collect());
        match numbers.as_deref() {
            Some(&[x0, y0, x1, y1]) if x0 >= 0 && y0 >= 0 && x0 < x1 && y0 < y1 => {
                Ok(((x0, y0), (x1, y1)))
            }
            _ => Err(InputError::new(
                field,
                format!(
                    "`{}` needs `{field}`: [x0, y0, x1, y1] with 0 <= x0 < x1 and 0 <= y0 < y1 \
                     in screenshot pixels, got {}",
                    self.action(),
                    shown(value)
                ),
            )),
        }
    }

    /// A duration in seconds, from 0 to [`MAX_DURATION_S`].
    pub fn duration(&self, field: &str) -> Result<f64, InputError> {
        let value = self.get(field);
        match value.and_then(Value::as_f64) {
            Some(seconds) if (0.0..=MAX_DURATION_S).contains(&seconds) => Ok(seconds),
            Some(seconds) if seconds > MAX_DURATION_S => Err(InputError::new(
                field,
                format!(
                    "`{field}` of `{}` is too long: {seconds} s (at most {MAX_DURATION_S})",
                    self.action()
                ),
            )),
            _ => Err(InputError::new(
                field,
                format!(
                    "`{}` needs `{field}`: a non-negative number of seconds (got {})",
                    self.action(),
                    shown(value)
                ),
            )),
        }
    }
}

/// A value for a message, or `nothing`.
fn shown(value: Option<&Value>) -> String {
    value.map_or_else(|| "nothing".to_owned(), Value::to_string)
}
