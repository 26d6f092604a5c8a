//! Small JSON Schema building blocks shared by the generators: objects that honour the
//! validation mode, strings, confidences and bounding boxes.

use serde_json::Map;
use serde_json::Value;

use crate::ValidationMode;

/// The draft every generated schema declares (the draft ajv and `jsonschema` both run).
pub(crate) const DRAFT_07: &str = "http://json-schema.org/draft-07/schema#";

/// The `$id` of a generated schema: a URN naming the kind and the version.
pub(crate) fn schema_id(kind: &str, version: &str) -> String {
    format!("urn:retrace:schema:{kind}:{version}")
}

/// An object schema. `required` names must be keys of `properties`.
pub(crate) fn object(
    description: &str,
    properties: Map<String, Value>,
    required: &[&str],
    mode: ValidationMode,
) -> Value {
    let mut schema = Map::with_capacity(5);
    schema.insert("type".into(), "object".into());
    if !description.is_empty() {
        schema.insert("description".into(), description.into());
    }
    schema.insert("properties".into(), Value::Object(properties));
    if !required.is_empty() {
        schema.insert("required".into(), names(required));
    }
    schema.insert("additionalProperties".into(), (!mode.is_strict()).into());
    Value::Object(schema)
}

/// A string; `min_length` 1 makes it non-empty.
pub(crate) fn string(description: &str, min_length: u64) -> Value {
    let mut schema = Map::with_capacity(3);
    schema.insert("type".into(), "string".into());
    schema.insert("description".into(), description.into());
    if min_length > 0 {
        schema.insert("minLength".into(), min_length.into());
    }
    Value::Object(schema)
}

/// A list of strings.
pub(crate) fn string_list(description: &str) -> Value {
    obj([
        ("type", "array".into()),
        ("description", description.into()),
        ("items", obj([("type", "string".into())])),
    ])
}

/// A number in `min..=max`.
pub(crate) fn number(description: &str, min: f64, max: Option<f64>) -> Value {
    let mut schema = Map::with_capacity(4);
    schema.insert("type".into(), "number".into());
    schema.insert("description".into(), description.into());
    schema.insert("minimum".into(), min.into());
    if let Some(max) = max {
        schema.insert("maximum".into(), max.into());
    }
    Value::Object(schema)
}

/// A non-negative integer count.
pub(crate) fn count(description: &str) -> Value {
    obj([
        ("type", "integer".into()),
        ("description", description.into()),
        ("minimum", 0.into()),
    ])
}

/// A confidence in 0..=1.
pub(crate) fn confidence(description: &str) -> Value {
    number(description, 0.0, Some(1.0))
}

/// A string from a closed list.
pub(crate) fn one_of(description: &str, values: &[&str]) -> Value {
    obj([
        ("type", "string".into()),
        ("description", description.into()),
        ("enum", names(values)),
    ])
}

/// The seed's bounding box: pixels from the top-left corner, never extra fields.
pub(crate) fn bounding_box() -> Value {
    let px = |d: &str| number(d, 0.0, None);
    obj([
        ("type", "object".into()),
        (
            "description",
            "Box in screenshot pixels, from the top-left corner.".into(),
        ),
        (
            "properties",
            obj([
                ("x", px("Left edge.")),
                ("y", px("Top edge.")),
                ("width", px("Width.")),
                ("height", px("Height.")),
            ]),
        ),
        ("required", names(&["x", "y", "width", "height"])),
        ("additionalProperties", false.into()),
    ])
}

/// The seed's metadata block: a few known fields, anything else allowed.
pub(crate) fn metadata() -> Value {
    let positive = || obj([("type", "number".into()), ("minimum", 1.into())]);
    obj([
        ("type", "object".into()),
        (
            "description",
            "Facts about how the answer was produced; free-form beyond these fields.".into(),
        ),
        (
            "properties",
            obj([
                ("processingTime", number("Seconds spent.", 0.0, None)),
                (
                    "imageSize",
                    obj([
                        ("type", "object".into()),
                        (
                            "description",
                            "Size of the analysed screenshot in pixels.".into(),
                        ),
                        (
                            "properties",
                            obj([("width", positive()), ("height", positive())]),
                        ),
                        ("required", names(&["width", "height"])),
                    ]),
                ),
                ("analysisVersion", string("Version of the analysis.", 0)),
                ("timestamp", string("When the analysis ran (ISO 8601).", 0)),
            ]),
        ),
        ("additionalProperties", true.into()),
    ])
}

/// A `required` (or any) list of names.
pub(crate) fn names(names: &[&str]) -> Value {
    Value::Array(names.iter().map(|&name| name.into()).collect())
}

/// Builds a property map from `(name, schema)` pairs.
pub(crate) fn props<const N: usize>(pairs: [(&str, Value); N]) -> Map<String, Value> {
    pairs.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()
}

/// An object from `(key, value)` pairs, moving the values in (`json!` would copy an
/// embedded `Value` through serialization).
pub(crate) fn obj<const N: usize>(pairs: [(&str, Value); N]) -> Value {
    Value::Object(props(pairs))
}
