//! Finding the one JSON object in a model's answer: the one reader
//! ([`retrace_protocol::answer_json`]), its errors told as [`SchemaError`]s.

use retrace_protocol::answer_json;
use retrace_protocol::answer_json::AnswerJsonError;
use retrace_protocol::answer_json::Expected;
use serde_json::Value;

use crate::SchemaError;

pub use retrace_protocol::answer_json::MAX_ANSWER_BYTES;

/// Extracts the single JSON object from `text`.
pub fn parse_model_answer(text: &str) -> Result<Value, SchemaError> {
    answer_json::extract(text, Expected::Object).map_err(|error| match error {
        AnswerJsonError::TooLarge { len } => SchemaError::AnswerTooLarge {
            len,
            limit: MAX_ANSWER_BYTES,
        },
        AnswerJsonError::Missing { chars, .. } => SchemaError::NoJsonObject { chars },
        AnswerJsonError::Several { count, .. } => SchemaError::SeveralJsonObjects { count },
    })
}
