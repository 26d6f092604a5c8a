use serde_json::Value;
use serde_json::json;

use super::*;

/// A valid value of a field of `json_type`.
fn sample(json_type: JsonType) -> Value {
    match json_type {
        JsonType::Point => json!([1, 2]),
        JsonType::Region => json!([0, 0, 10, 10]),
        JsonType::Text => json!("a"),
        JsonType::Choice(choices) => json!(choices[0]),
        JsonType::Integer => json!(1),
        JsonType::Number => json!(1),
    }
}

/// The input of `spec` with every field it needs, at a valid value.
fn minimal(spec: &ActionSpec) -> serde_json::Map<String, Value> {
    let mut input = serde_json::Map::new();
    input.insert("action".into(), json!(spec.name));
    for used in spec.fields.iter().filter(|used| used.required) {
        input.insert(used.field.name.into(), sample(used.field.json_type));
    }
    input
}

/// The catalogue's `required` flags are what the parser enforces: each action parses with
/// its required fields alone, and refuses its input without any one of them, naming it.
#[test]
fn required_fields_are_what_the_parser_needs() {
    for spec in ACTIONS {
        let input = minimal(spec);
        let parsed = parse(&Value::Object(input.clone()));
        assert!(parsed.is_ok(), "{}: {parsed:?}", spec.name);
        for used in spec.fields.iter().filter(|used| used.required) {
            let mut without = input.clone();
            without.remove(used.field.name);
            let error = parse(&Value::Object(without)).expect_err(spec.name);
            assert_eq!(error.field, used.field.name, "{}: {error}", spec.name);
            assert!(error.message.contains(spec.name), "{error}");
        }
    }
}

#[test]
fn names_and_fields_are_unique_and_every_field_is_in_the_schema() {
    let mut names: Vec<_> = COMPUTER_ACTIONS.to_vec();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), ACTIONS.len());
    let schema = input_schema();
    for spec in ACTIONS {
        for used in spec.fields {
            assert!(field(used.field.name).is_some(), "{}", used.field.name);
            assert!(schema["properties"].get(used.field.name).is_some());
        }
    }
}

/// The schema the model sees, as it was written by hand before the catalogue.
#[test]
fn schema_is_the_hand_written_one() {
    let schema = input_schema();
    assert_eq!(schema["required"], json!(["action"]));
    assert_eq!(
        schema["properties"]["coordinate"],
        json!({"type": "array", "items": {"type": "integer", "minimum": 0}, "minItems": 2,
               "maxItems": 2, "description": "[x, y] in screenshot pixels: where to click, move, scroll, or where a drag ends."})
    );
    assert_eq!(
        schema["properties"]["scroll_direction"],
        json!({"type": "string", "enum": ["up", "down", "left", "right"]})
    );
    assert_eq!(
        schema["properties"]["duration"],
        json!({"type": "number", "minimum": 0, "maximum": 300.0,
               "description": "Seconds, for `wait` and `hold_key`."})
    );
    let keys: Vec<_> = schema["properties"]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    assert_eq!(
        keys,
        [
            "action",
            "coordinate",
            "start_coordinate",
            "text",
            "scroll_direction",
            "scroll_amount",
            "duration",
            "repeat",
            "region"
        ]
    );
}

#[test]
fn description_lists_every_action_with_its_usage() {
    let text = description();
    for spec in ACTIONS {
        assert!(text.contains(spec.name), "{}", spec.name);
    }
    assert!(text.contains(
        "triple_click (optional `coordinate`, optional `text` with modifier keys to hold), \
         mouse_move (`coordinate`)"
    ));
    assert!(
        text.contains("screenshot, left_click, right_click,"),
        "{text}"
    );
}

#[test]
fn parse_names_the_field_at_fault() {
    let error = parse(&json!({"action": "fly"})).unwrap_err();
    assert_eq!(error.field, "action");
    assert!(
        error
            .message
            .starts_with("unknown action `fly`; valid actions: screenshot")
    );
    let error = parse(&json!({"action": "left_mouse_down", "coordinate": [1, 2]})).unwrap_err();
    assert_eq!(error.field, "coordinate");
    assert_eq!(
        parse(&json!({"action": "double_click", "coordinate": [3, 4], "text": " "})),
        Ok(ComputerAction::Click {
            button: MouseButton::Left,
            count: 2,
            at: Some((3, 4)),
            modifiers: None
        })
    );
    assert_eq!(
        parse(
            &json!({"action": "left_click_drag", "start_coordinate": [1, 2], "coordinate": [3, 4]})
        )
        .unwrap()
        .points(),
        vec![("start_coordinate", (1, 2)), ("coordinate", (3, 4))]
    );
}
