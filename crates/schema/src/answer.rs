//! Finding the one JSON object in a model's answer, which may wrap it in a code fence or
//! put prose before and after it.
//!
//! Every `{` is tried as the start of a JSON value; a successful parse skips past the whole
//! object, so nested objects are not counted twice. Text that only looks like JSON
//! (`{name}` in prose) fails to parse and is passed over. Several *different* objects are
//! an error; the same object repeated is accepted.

use serde_json::Value;

use crate::SchemaError;

/// Answers larger than this are refused without parsing.
pub const MAX_ANSWER_BYTES: usize = 1024 * 1024;

/// Extracts the single JSON object from `text`.
pub fn parse_model_answer(text: &str) -> Result<Value, SchemaError> {
    if text.len() > MAX_ANSWER_BYTES {
        return Err(SchemaError::AnswerTooLarge {
            len: text.len(),
            limit: MAX_ANSWER_BYTES,
        });
    }
    let mut found: Vec<Value> = Vec::new();
    let mut at = 0;
    while let Some(offset) = text[at..].find('{') {
        let start = at + offset;
        let mut stream = serde_json::Deserializer::from_str(&text[start..]).into_iter::<Value>();
        match stream.next() {
            Some(Ok(value @ Value::Object(_))) => {
                at = start + stream.byte_offset();
                if !found.contains(&value) {
                    found.push(value);
                }
            }
            _ => at = start + 1,
        }
    }
    match found.len() {
        0 => Err(SchemaError::NoJsonObject {
            chars: text.chars().count(),
        }),
        1 => Ok(found.remove(0)),
        count => Err(SchemaError::SeveralJsonObjects { count }),
    }
}
