//! What the model sees of the catalogue: the tool's description (every action with how to
//! call it) and the JSON Schema of its input (every field with its type and bounds).

use std::sync::LazyLock;

use serde_json::Map;
use serde_json::Value;
use serde_json::json;

use super::ACTIONS;
use super::Bound;
use super::COMPUTER_ACTIONS;
use super::FIELDS;
use super::InputField;
use super::JsonType;

/// The description's opening, before the actions.
const PREAMBLE: &str = "Use a mouse and keyboard to interact with a screen, and take \
screenshots. Coordinates are pixels of the screenshot you see, [x, y] from the top-left.";

/// What the tool does and how each action is called, for the model: the catalogue's actions
/// in order, each with its usage (actions in a row with the same usage share it).
pub fn description() -> &'static str {
    static TEXT: LazyLock<String> = LazyLock::new(|| {
        let mut actions = Vec::new();
        for (index, spec) in ACTIONS.iter().enumerate() {
            let shared_with_next = ACTIONS
                .get(index + 1)
                .is_some_and(|next| !spec.usage.is_empty() && next.usage == spec.usage);
            if spec.usage.is_empty() || shared_with_next {
                actions.push(spec.name.to_owned());
            } else {
                actions.push(format!("{} {}", spec.name, spec.usage));
            }
        }
        format!(
            "{PREAMBLE} Actions: {}. Each action answers with a screenshot taken after it.",
            actions.join(", ")
        )
    });
    &TEXT
}

/// The JSON Schema of the tool's input: `action` (one of [`COMPUTER_ACTIONS`]) and every
/// field of the catalogue.
pub fn input_schema() -> Value {
    let mut properties = Map::new();
    properties.insert(
        "action".into(),
        json!({"type": "string", "enum": COMPUTER_ACTIONS, "description": "What to do."}),
    );
    for field in FIELDS {
        properties.insert(field.name.into(), field_schema(field));
    }
    json!({"type": "object", "properties": properties, "required": ["action"]})
}

/// One field's schema.
fn field_schema(field: &InputField) -> Value {
    let pixels = |count: usize| {
        json!({
            "type": "array",
            "items": {"type": "integer", "minimum": 0},
            "minItems": count,
            "maxItems": count,
        })
    };
    let mut schema = match field.json_type {
        JsonType::Point => pixels(2),
        JsonType::Region => pixels(4),
        JsonType::Text => json!({"type": "string"}),
        JsonType::Choice(choices) => json!({"type": "string", "enum": choices}),
        JsonType::Integer => json!({"type": "integer"}),
        JsonType::Number => json!({"type": "number"}),
    };
    if let Value::Object(object) = &mut schema {
        for (key, bound) in [("minimum", field.minimum), ("maximum", field.maximum)] {
            if let Some(bound) = bound {
                object.insert(key.into(), bound_value(bound));
            }
        }
        if !field.description.is_empty() {
            object.insert("description".into(), field.description.into());
        }
    }
    schema
}

fn bound_value(bound: Bound) -> Value {
    match bound {
        Bound::Int(value) => value.into(),
        Bound::Real(value) => value.into(),
    }
}
