//! Reading a JSON answer out of a model's text, and checking it against a schema.

use retrace_protocol::answer_json;
use retrace_protocol::answer_json::Expected;
use serde_json::Value;

/// The JSON object or array in a model's answer, by the one reader's rules
/// ([`retrace_protocol::answer_json`]); the error says why none could be read.
pub fn extract_json(text: &str) -> Result<Value, String> {
    answer_json::extract(text, Expected::ObjectOrArray).map_err(|error| error.to_string())
}

/// Every way `value` breaks `schema`, as `"<instance path>: <message>"` (`/` for the root),
/// or the schema's own fault.
pub fn schema_errors(schema: &Value, value: &Value) -> Result<Vec<String>, String> {
    let validator = jsonschema::validator_for(schema).map_err(|e| e.to_string())?;
    Ok(validator
        .iter_errors(value)
        .map(|error| {
            let path = error.instance_path().to_string();
            let path = if path.is_empty() { "/".into() } else { path };
            format!("{path}: {error}")
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn reads_objects_and_arrays_by_the_one_rule() {
        let fenced = "Here it is:\n```JSON\n{\"answer\": 42}\n```\nDone.";
        assert_eq!(extract_json(fenced), Ok(json!({"answer": 42})));
        assert_eq!(extract_json("[1, 2]"), Ok(json!([1, 2])));
        let error = extract_json("I cannot see a button.").unwrap_err();
        assert!(error.starts_with("the answer holds no JSON"), "{error}");
    }

    #[test]
    fn schema_errors_name_the_path() {
        let schema =
            json!({"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]});
        assert_eq!(schema_errors(&schema, &json!({"n": 3})), Ok(vec![]));
        let errors = schema_errors(&schema, &json!({"n": "three"})).unwrap();
        assert_eq!(errors.len(), 1);
        assert!(errors[0].starts_with("/n: "), "{errors:?}");
        let missing = schema_errors(&schema, &json!({})).unwrap();
        assert!(missing[0].starts_with("/: "), "{missing:?}");
        assert!(schema_errors(&json!({"type": 12}), &json!(1)).is_err());
    }
}
