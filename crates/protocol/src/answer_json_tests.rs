//! The cases of the four readers this one replaced (structured decisions, the judge, image
//! QA, a recording's parameters), each read by the one rule.

use serde_json::json;

use super::*;

#[test]
fn plain_fenced_and_wrapped_objects() {
    let object = json!({ "decision": { "action": "PROCEED", "nested": { "a": [1, { "b": 2 }] } } });
    let plain = object.to_string();
    for text in [
        plain.clone(),
        format!("  {plain}\n"),
        format!("```json\n{plain}\n```"),
        format!("```\n{plain}\n```"),
        format!("Here it is:\n```JSON\n{plain}\n```\nDone."),
        format!(
            "Looking at the page {{name}} shows the form.\n```\n{plain}\n```\nThat is my answer."
        ),
        format!("The answer is {plain}."),
        format!("{plain}\n\nRepeated for clarity: {plain}"),
    ] {
        assert_eq!(
            extract(&text, Expected::Object),
            Ok(object.clone()),
            "{text}"
        );
        assert_eq!(
            extract(&text, Expected::ObjectOrArray),
            Ok(object.clone()),
            "{text}"
        );
    }
}

#[test]
fn arrays_plain_fenced_and_wrapped() {
    let list = json!([{"name": "username", "value": "demo", "description": "who signs in"}]);
    let plain = list.to_string();
    for text in [
        plain.clone(),
        format!("```json\n{plain}\n```"),
        format!("```\n{plain}\n```"),
        format!("Here you go:\n```json\n{plain}\n```"),
        format!("The parameters: {plain} (one of them)."),
    ] {
        assert_eq!(extract(&text, Expected::Array), Ok(list.clone()), "{text}");
    }
    assert_eq!(
        extract("[1, 2]", Expected::ObjectOrArray),
        Ok(json!([1, 2]))
    );
}

#[test]
fn nothing_several_or_too_much_is_an_error() {
    assert_eq!(
        extract("I cannot decide {yet}.", Expected::Object),
        Err(AnswerJsonError::Missing {
            expected: Expected::Object,
            chars: 22
        })
    );
    assert_eq!(
        extract(r#"first {"a": 1} then {"a": 2}"#, Expected::Object),
        Err(AnswerJsonError::Several {
            expected: Expected::Object,
            count: 2
        })
    );
    assert_eq!(
        extract("[1, 2]", Expected::Object),
        Err(AnswerJsonError::Missing {
            expected: Expected::Object,
            chars: 6
        })
    );
    assert!(extract("```json\n{\"a\": \n```", Expected::ObjectOrArray).is_err());
    assert!(extract("I cannot see a button.", Expected::ObjectOrArray).is_err());
    assert!(extract("no list here", Expected::Array).is_err());
    let huge = " ".repeat(MAX_ANSWER_BYTES + 1);
    assert_eq!(
        extract(&huge, Expected::Object),
        Err(AnswerJsonError::TooLarge {
            len: MAX_ANSWER_BYTES + 1
        })
    );
    let message = extract("nothing", Expected::Array).unwrap_err().to_string();
    assert_eq!(
        message,
        "the answer holds no JSON array (7 characters of text)"
    );
}

proptest::proptest! {
    /// Any object, wrapped in any prose without braces and in a fence, is read back.
    #[test]
    fn any_object_in_prose_is_read_back(key in "[a-z]{1,8}", number in 0i64..1000, before in "[a-zA-Z .,:]{0,40}", after in "[a-zA-Z .,:]{0,40}") {
        let object = json!({ key: number });
        let text = format!("{before}\n```json\n{object}\n```\n{after}");
        proptest::prop_assert_eq!(extract(&text, Expected::Object), Ok(object));
    }
}
