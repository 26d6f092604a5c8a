//! The step-level checks of [`crate::check()`]: each step's input by the tool catalogue (the
//! `computer` tool's actions and fields, askui's tools by the fields replay reads), its points
//! on the recorded screen, its `{{placeholders}}`, its hashes, its element descriptions and
//! its id. Every problem names
//! the step (1-based) and the JSON path of the field.
//!
//! The `computer` tool's rules are the action catalogue's parser
//! ([`retrace_protocol::computer_actions::parse`]), the one the backends run a step with, so
//! what this reports is what replay would refuse; the field names come from the tool's one
//! schema.

use std::collections::BTreeMap;
use std::collections::HashMap;

use retrace_protocol::ToolUseBlock;
use retrace_protocol::computer_actions;
use retrace_protocol::computer_actions::askui;
use retrace_protocol::computer_tool::input_schema;
use retrace_protocol::element::ElementInfo;
use retrace_protocol::tool_input::action_point;
use retrace_protocol::tool_names::COMPUTER;
use retrace_protocol::tool_names::base_name;
use serde::Deserialize;
use serde_json::Value;

use crate::fields;
use crate::hash_text::is_flat_hash_text;
use crate::hash_text::is_hash_text;
use crate::model::CacheFile;
use crate::params::Template;
use crate::params::Token;
use crate::problem::Problem;

/// The fields of the `computer` tool's input: its schema's properties, declared once in
/// [`retrace_protocol::computer_tool::input_schema`].
fn computer_fields() -> Vec<String> {
    match input_schema().get("properties") {
        Some(Value::Object(properties)) => properties.keys().cloned().collect(),
        _ => Vec::new(),
    }
}

/// askui's tools (by base name) and the string field each needs.
const ASKUI_TEXT_FIELDS: [(&str, &str); 2] = [(askui::TYPE, "text"), (askui::KEYBOARD_TAP, "key")];

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

/// The `computer` tool's input: parsed by the catalogue's parser (the one replay runs the
/// step with, so a step this passes is one replay accepts), known fields only, points on the
/// recorded screen.
fn computer_input(input: &Value, screen: Option<(u32, u32)>, at: &mut StepAt<'_>) {
    if let Some(object) = input.as_object() {
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
    }
    match computer_actions::parse(input) {
        Ok(action) => {
            for (field, found) in action.points() {
                at.off_screen(&format!("input.{field}"), found, screen);
            }
        }
        Err(error) if input.is_object() => {
            at.error(&format!("input.{}", error.field), error.message);
        }
        Err(error) => at.error("input", error.message),
    }
}

/// An askui tool's input: `move_mouse` needs a point, `type` and `keyboard_tap` a string;
/// any tool's point must be on the recorded screen.
fn askui_input(step: &ToolUseBlock, screen: Option<(u32, u32)>, at: &mut StepAt<'_>) {
    let base = base_name(&step.name);
    let found = action_point(&step.input);
    if base == askui::MOVE_MOUSE && found.is_none() {
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
