//! Reading a JSON answer out of a model's text, and checking it against a schema.

use serde_json::Value;

/// The JSON value in a model's answer: the whole text, else the inside of a ```` ``` ````
/// fence (with or without a language tag), else the span from the first `{`/`[` to the last
/// `}`/`]`. The error says why each way failed.
pub fn extract_json(text: &str) -> Result<Value, String> {
    let trimmed = text.trim();
    let whole_error = match serde_json::from_str(trimmed) {
        Ok(value) => return Ok(value),
        Err(e) => e,
    };
    if let Some(inner) = fenced(trimmed)
        && let Ok(value) = serde_json::from_str(inner.trim())
    {
        return Ok(value);
    }
    if let Some(span) = outer_span(trimmed)
        && let Ok(value) = serde_json::from_str(span)
    {
        return Ok(value);
    }
    Err(format!(
        "the answer is not JSON ({whole_error}) and holds no fenced or embedded JSON value"
    ))
}

/// The text between the first ```` ``` ```` fence (its language tag dropped) and the next.
fn fenced(text: &str) -> Option<&str> {
    let start = text.find("```")? + 3;
    let rest = &text[start..];
    let body_start = rest.find('\n').map_or(0, |newline| {
        let tag = rest[..newline].trim();
        if tag.chars().all(|c| c.is_ascii_alphanumeric()) {
            newline + 1
        } else {
            0
        }
    });
    let body = &rest[body_start..];
    let end = body.find("```").unwrap_or(body.len());
    Some(&body[..end])
}

/// From the first `{` or `[` to the last `}` or `]`.
fn outer_span(text: &str) -> Option<&str> {
    let start = text.find(['{', '['])?;
    let end = text.rfind(['}', ']'])?;
    (end > start).then(|| &text[start..=end])
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
    fn reads_plain_fenced_and_embedded_json() {
        let expected = json!({"answer": 42});
        for text in [
            r#"{"answer": 42}"#,
            "  {\"answer\": 42}\n",
            "```json\n{\"answer\": 42}\n```",
            "```\n{\"answer\": 42}\n```",
            "Here it is:\n```JSON\n{\"answer\": 42}\n```\nDone.",
            "The answer is {\"answer\": 42}.",
        ] {
            assert_eq!(extract_json(text), Ok(expected.clone()), "{text:?}");
        }
        assert_eq!(extract_json("[1, 2]"), Ok(json!([1, 2])));
    }

    #[test]
    fn says_why_when_there_is_no_json() {
        let error = extract_json("I cannot see a button.").unwrap_err();
        assert!(error.starts_with("the answer is not JSON"), "{error}");
        assert!(extract_json("```json\n{\"a\": \n```").is_err());
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
