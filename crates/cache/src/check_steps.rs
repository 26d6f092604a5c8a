//! The step-level checks of [`crate::check()`]: each step's input by the tool catalogue (the
//! `computer` tool's actions and fields, askui's tools by the fields replay reads), its points
//! on the recorded screen, its `{{placeholders}}`, its hashes, its element descriptions and
//! its id. Every problem names
//! the step (1-based) and the JSON path of the field.
//!
//! The `computer` tool's rules are those of `retrace-drive`'s input parser (which replay runs
//! the step with), restated here as checks on the recorded value: this crate reads files
//! without a browser. The action names come from one list,
//! [`retrace_protocol::tool_input::COMPUTER_ACTIONS`], and the field names from the tool's
//! one schema.

use std::collections::BTreeMap;
use std::collections::HashMap;

use retrace_protocol::ToolUseBlock;
use retrace_protocol::computer_tool::input_schema;
use retrace_protocol::element::ElementInfo;
use retrace_protocol::tool_input::COMPUTER_ACTIONS;
use retrace_protocol::tool_input::action_point;
use retrace_protocol::tool_names::COMPUTER;
use retrace_protocol::tool_names::base_name;
use serde::Deserialize;
use serde_json::Value;

use crate::check::Problem;
use crate::check::is_flat_hash_text;
use crate::check::is_hash_text;
use crate::fields;
use crate::model::CacheFile;
use crate::params::Template;
use crate::params::Token;

/// The fields of the `computer` tool's input: its schema's properties, declared once in
/// [`retrace_protocol::computer_tool::input_schema`].
fn computer_fields() -> Vec<String> {
    match input_schema().get("properties") {
        Some(Value::Object(properties)) => properties.keys().cloned().collect(),
        _ => Vec::new(),
    }
}

/// The `computer` actions that need `text`.
const TEXT_ACTIONS: [&str; 3] = ["type", "key", "hold_key"];

/// The directions `scroll` accepts.
const SCROLL_DIRECTIONS: [&str; 4] = ["up", "down", "left", "right"];

/// askui's tools (by base name) and the string field each needs.
const ASKUI_TEXT_FIELDS: [(&str, &str); 2] = [("type", "text"), ("keyboard_tap", "key")];

/// Adds the problems of every step of `file` (paths under `prefix`) to `problems`.
pub(crate) fn check_steps(file: &CacheFile, prefix: &str, problems: &mut Vec<Problem>) {
    let screen = fields::display_size(&file.metadata);
    let mut seen_ids: HashMap<&str, usize> = HashMap::new();
    for (index, step) in file.trajectory.iter().enumerate() {
        let mut at = StepAt {
            path: format!("{prefix}[{index}]"),
            number: index + 1,
            problems,
        };
        if step.name.is_empty() {
            at.error("name", "the tool name is empty".into());
        }
        if let Some(first) = seen_ids.insert(step.id.as_str(), index + 1) {
            at.error(
                "id",
                format!("id {:?} is also used by step {first}", step.id),
            );
        }
        if base_name(&step.name) == COMPUTER {
            computer_input(&step.input, screen, &mut at);
        } else {
            askui_input(step, screen, &mut at);
        }
        placeholders(&step.input, "input", &file.cache_parameters, &mut at);
        hashes(step, &mut at);
        elements(step, &mut at);
    }
}

/// One step's place, for its problems.
struct StepAt<'a> {
    /// `trajectory[3]`.
    path: String,
    /// The 1-based step.
    number: usize,
    problems: &'a mut Vec<Problem>,
}

impl StepAt<'_> {
    fn field(&self, field: &str) -> String {
        format!("{}.{field}", self.path)
    }

    fn error(&mut self, field: &str, message: String) {
        let field = self.field(field);
        self.problems
            .push(Problem::error(field, Some(self.number), message));
    }

    fn warning(&mut self, field: &str, message: String) {
        let field = self.field(field);
        self.problems
            .push(Problem::warning(field, Some(self.number), message));
    }

    /// A point read from `field` that is off the recorded `screen`.
    fn off_screen(&mut self, field: &str, (x, y): (i64, i64), screen: Option<(u32, u32)>) {
        let Some((width, height)) = screen else {
            return;
        };
        if x < 0 || y < 0 || x >= i64::from(width) || y >= i64::from(height) {
            self.error(
                field,
                format!(
                    "({x}, {y}) is outside the recorded screen of {width}x{height} \
                     (metadata.{})",
                    fields::DISPLAY_SIZE
                ),
            );
        }
    }
}

/// The `computer` tool's input: a known action, known fields of the right types, the fields
/// the action needs, points on the recorded screen.
fn computer_input(input: &Value, screen: Option<(u32, u32)>, at: &mut StepAt<'_>) {
    let Some(object) = input.as_object() else {
        at.error("input", "must be an object with an `action` field".into());
        return;
    };
    let action = match object.get("action") {
        Some(Value::String(action)) if COMPUTER_ACTIONS.contains(&action.as_str()) => {
            action.as_str()
        }
        Some(Value::String(action)) => {
            at.error(
                "input.action",
                format!(
                    "unknown action {action:?} of the computer tool; valid actions: {}",
                    COMPUTER_ACTIONS.join(", ")
                ),
            );
            return;
        }
        Some(other) => {
            at.error(
                "input.action",
                format!("must be a string naming the action, got {other}"),
            );
            return;
        }
        None => {
            at.error(
                "input.action",
                format!("missing; valid actions: {}", COMPUTER_ACTIONS.join(", ")),
            );
            return;
        }
    };
    let known = computer_fields();
    for key in object.keys() {
        if !known.contains(key) {
            at.error(
                &format!("input.{key}"),
                format!(
                    "not a field of the computer tool (its fields: {})",
                    known.join(", ")
                ),
            );
        }
    }
    let needs_point = match action {
        "mouse_move" => &["coordinate"][..],
        "left_click_drag" => &["start_coordinate", "coordinate"][..],
        _ => &[][..],
    };
    for field in ["start_coordinate", "coordinate"] {
        match object.get(field).filter(|value| !value.is_null()) {
            None if needs_point.contains(&field) => at.error(
                &format!("input.{field}"),
                format!("missing: `{action}` needs `{field}`: [x, y]"),
            ),
            None => {}
            Some(value) => match point(value) {
                Some(found) => at.off_screen(&format!("input.{field}"), found, screen),
                None => at.error(
                    &format!("input.{field}"),
                    format!("must be [x, y] with two non-negative integers, got {value}"),
                ),
            },
        }
    }
    match object.get("text") {
        None | Some(Value::Null) if TEXT_ACTIONS.contains(&action) => {
            at.error("input.text", format!("missing: `{action}` needs `text`"))
        }
        None | Some(Value::Null) | Some(Value::String(_)) => {}
        Some(other) => at.error("input.text", format!("must be a string, got {other}")),
    }
    if action == "scroll" {
        match object.get("scroll_direction").and_then(Value::as_str) {
            Some(direction) if SCROLL_DIRECTIONS.contains(&direction) => {}
            _ => at.error(
                "input.scroll_direction",
                format!(
                    "`scroll` needs one of {} (got {})",
                    SCROLL_DIRECTIONS.join(", "),
                    object
                        .get("scroll_direction")
                        .map_or_else(|| "nothing".to_owned(), Value::to_string)
                ),
            ),
        }
    }
}

/// `[x, y]` with two non-negative integers, as the computer tool reads a point.
fn point(value: &Value) -> Option<(i64, i64)> {
    let [x, y] = value.as_array()?.as_slice() else {
        return None;
    };
    let coordinate = |v: &Value| {
        v.as_i64()
            .or_else(|| v.as_f64().filter(|f| f.fract() == 0.0).map(|f| f as i64))
            .filter(|n| *n >= 0)
    };
    Some((coordinate(x)?, coordinate(y)?))
}

/// An askui tool's input: `move_mouse` needs a point, `type` and `keyboard_tap` a string;
/// any tool's point must be on the recorded screen.
fn askui_input(step: &ToolUseBlock, screen: Option<(u32, u32)>, at: &mut StepAt<'_>) {
    let base = base_name(&step.name);
    let found = action_point(&step.input);
    if base == "move_mouse" && found.is_none() {
        at.error(
            "input.x",
            format!(
                "`move_mouse` needs `x` and `y` (integers), got {}",
                step.input
            ),
        );
    }
    if let Some(found) = found {
        let field = ["coordinate", "x", "x1"]
            .into_iter()
            .find(|key| step.input.get(key).is_some())
            .unwrap_or("x");
        at.off_screen(&format!("input.{field}"), found, screen);
    }
    for (tool, field) in ASKUI_TEXT_FIELDS {
        if base == tool && !step.input.get(field).is_some_and(Value::is_string) {
            at.error(
                &format!("input.{field}"),
                format!(
                    "`{tool}` needs `{field}` (a string), got {}",
                    step.input
                        .get(field)
                        .map_or_else(|| "nothing".to_owned(), Value::to_string)
                ),
            );
        }
    }
}

/// Every string of `value` (at JSON path `path` under the step): a `{{` or `}}` that is not
/// part of a `{{name}}` placeholder, and placeholders `cache_parameters` does not declare.
fn placeholders(
    value: &Value,
    path: &str,
    declared: &BTreeMap<String, String>,
    at: &mut StepAt<'_>,
) {
    match value {
        Value::String(text) => {
            let template = Template::parse(text);
            let malformed = template.tokens().iter().any(|token| {
                matches!(token, Token::Literal(literal) if literal.contains("{{") || literal.contains("}}"))
            });
            if malformed {
                at.error(
                    path,
                    "holds a `{{` or `}}` that is not a placeholder: a placeholder is \
                     `{{name}}` with a name of letters, digits and underscores, not starting \
                     with a digit"
                        .into(),
                );
            }
            for name in template.parameters() {
                if !declared.contains_key(name) {
                    at.error(
                        path,
                        format!(
                            "uses the placeholder {{{{{name}}}}}, which cache_parameters does \
                             not declare"
                        ),
                    );
                }
            }
        }
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                placeholders(item, &format!("{path}[{index}]"), declared, at);
            }
        }
        Value::Object(map) => {
            for (key, item) in map {
                placeholders(item, &format!("{path}.{key}"), declared, at);
            }
        }
        _ => {}
    }
}

/// The recorded hashes: text of the right length and alphabet; a before-hash that can check
/// something (not a blank region) at a point the input names.
fn hashes(step: &ToolUseBlock, at: &mut StepAt<'_>) {
    if let Some(hash) = &step.visual_representation {
        if !is_hash_text(hash) {
            at.error("visual_representation", not_a_hash(hash));
        } else if is_flat_hash_text(hash) {
            at.warning(
                "visual_representation",
                format!(
                    "step {}'s region is blank: its check can detect nothing (hash {hash})",
                    at.number
                ),
            );
        } else if action_point(&step.input).is_none() {
            at.warning(
                "visual_representation",
                "the step has a hash but its input names no point to check it at".into(),
            );
        }
    }
    match step.extra.get(fields::AFTER_HASH) {
        None | Some(Value::Null) => {}
        Some(Value::String(hash)) if is_hash_text(hash) => {}
        Some(Value::String(hash)) => at.error(fields::AFTER_HASH, not_a_hash(hash)),
        Some(other) => at.error(
            fields::AFTER_HASH,
            format!("expected a hash (a string of hexadecimal digits), got {other}"),
        ),
    }
}

/// The recorded element descriptions (what the browser said about the element before and
/// after acting): each one replay reads must be one.
fn elements(step: &ToolUseBlock, at: &mut StepAt<'_>) {
    for field in [
        fields::ELEMENT,
        fields::ELEMENT_AFTER,
        fields::FOCUSED_AFTER,
    ] {
        let Some(value) = step.extra.get(field).filter(|value| !value.is_null()) else {
            continue;
        };
        if let Err(error) = ElementInfo::deserialize(value) {
            at.error(field, format!("not an element description: {error}"));
        }
    }
}

fn not_a_hash(hash: &str) -> String {
    let shown: String = hash.chars().take(80).collect();
    format!(
        "expected 16 hexadecimal digits (an 8x8 hash; 64 for a 16x16 one), got {shown:?} \
         ({} characters)",
        hash.chars().count()
    )
}

#[cfg(test)]
#[path = "check_steps_tests.rs"]
mod tests;
