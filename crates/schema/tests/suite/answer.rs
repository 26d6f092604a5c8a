//! `parse_model_answer`: one JSON object out of fences and prose.

use pretty_assertions::assert_eq;
use retrace_schema::MAX_ANSWER_BYTES;
use retrace_schema::SchemaError;
use retrace_schema::parse_model_answer;
use serde_json::json;

#[test]
fn plain_fenced_and_wrapped_answers_yield_the_object() {
    let object = json!({ "decision": { "action": "PROCEED", "nested": { "a": [1, { "b": 2 }] } } });
    let plain = object.to_string();
    let answers = [
        plain.clone(),
        format!("```json\n{plain}\n```"),
        format!(
            "Looking at the page {{name}} shows the form.\n```\n{plain}\n```\nThat is my answer."
        ),
        format!("{plain}\n\nRepeated for clarity: {plain}"),
    ];
    for text in answers {
        assert_eq!(parse_model_answer(&text).unwrap(), object, "{text}");
    }
}

#[test]
fn no_object_or_several_are_errors() {
    assert_eq!(
        parse_model_answer("I cannot decide {yet}."),
        Err(SchemaError::NoJsonObject { chars: 22 })
    );
    assert_eq!(
        parse_model_answer(r#"first {"a": 1} then {"a": 2}"#),
        Err(SchemaError::SeveralJsonObjects { count: 2 })
    );
    assert_eq!(
        parse_model_answer("[1, 2]"),
        Err(SchemaError::NoJsonObject { chars: 6 })
    );
    let huge = " ".repeat(MAX_ANSWER_BYTES + 1);
    assert_eq!(
        parse_model_answer(&huge),
        Err(SchemaError::AnswerTooLarge {
            len: MAX_ANSWER_BYTES + 1,
            limit: MAX_ANSWER_BYTES
        })
    );
}
