//! The one reader of a JSON value in a model's answer. Models wrap JSON in code fences or put
//! prose before and after it; every part of retrace that asks a model for JSON (structured
//! decisions, the visual judge, image QA, naming a recording's parameters) reads the answer
//! here, by the strictest of the rules those parts once had:
//! - an answer over [`MAX_ANSWER_BYTES`] is refused without parsing;
//! - the whole answer, when it is one JSON value of the expected kind, is that value;
//! - otherwise every `{` (or `[`, by the kind expected) is tried as the start of a value; a
//!   value that parses is skipped past whole, so nested values are not counted twice, and
//!   text that only looks like JSON (`{name}` in prose) is passed over;
//! - several *different* values are an error (which one is meant is unclear); the same value
//!   repeated is accepted.

use serde_json::Value;

/// Answers larger than this are refused without parsing.
pub const MAX_ANSWER_BYTES: usize = 1024 * 1024;

/// The kind of JSON value asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expected {
    /// A JSON object.
    Object,
    /// A JSON array.
    Array,
    /// An object or an array.
    ObjectOrArray,
}

impl Expected {
    fn accepts(self, value: &Value) -> bool {
        match self {
            Self::Object => value.is_object(),
            Self::Array => value.is_array(),
            Self::ObjectOrArray => value.is_object() || value.is_array(),
        }
    }

    fn starts(self) -> &'static [char] {
        match self {
            Self::Object => &['{'],
            Self::Array => &['['],
            Self::ObjectOrArray => &['{', '['],
        }
    }

    /// "object", "array", "object or array".
    pub fn noun(self) -> &'static str {
        match self {
            Self::Object => "object",
            Self::Array => "array",
            Self::ObjectOrArray => "object or array",
        }
    }
}

/// Why no one JSON value could be read from an answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AnswerJsonError {
    /// The answer is larger than [`MAX_ANSWER_BYTES`].
    TooLarge {
        /// Size of the answer, in bytes.
        len: usize,
    },
    /// The answer holds no JSON value of the kind expected.
    Missing {
        /// The kind expected.
        expected: Expected,
        /// Length of the answer, in characters.
        chars: usize,
    },
    /// The answer holds several different values of the kind expected.
    Several {
        /// The kind expected.
        expected: Expected,
        /// How many distinct values were found.
        count: usize,
    },
}

impl std::fmt::Display for AnswerJsonError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::TooLarge { len } => write!(
                f,
                "the answer is {len} bytes; at most {MAX_ANSWER_BYTES} are accepted"
            ),
            Self::Missing { expected, chars } => write!(
                f,
                "the answer holds no JSON {} ({chars} characters of text)",
                expected.noun()
            ),
            Self::Several { expected, count } => write!(
                f,
                "the answer holds {count} different JSON values (each an {}); answer with exactly one",
                expected.noun()
            ),
        }
    }
}

impl std::error::Error for AnswerJsonError {}

/// The one JSON value of kind `expected` in `text` (see the module doc for the rules).
pub fn extract(text: &str, expected: Expected) -> Result<Value, AnswerJsonError> {
    if text.len() > MAX_ANSWER_BYTES {
        return Err(AnswerJsonError::TooLarge { len: text.len() });
    }
    if let Ok(value) = serde_json::from_str::<Value>(text.trim())
        && expected.accepts(&value)
    {
        return Ok(value);
    }
    let mut found: Vec<Value> = Vec::new();
    let mut at = 0;
    while let Some(offset) = text[at..].find(expected.starts()) {
        let start = at + offset;
        let mut stream = serde_json::Deserializer::from_str(&text[start..]).into_iter::<Value>();
        match stream.next() {
            Some(Ok(value)) if expected.accepts(&value) => {
                at = start + stream.byte_offset();
                if !found.contains(&value) {
                    found.push(value);
                }
            }
            _ => at = start + 1,
        }
    }
    match found.len() {
        0 => Err(AnswerJsonError::Missing {
            expected,
            chars: text.chars().count(),
        }),
        1 => Ok(found.remove(0)),
        count => Err(AnswerJsonError::Several { expected, count }),
    }
}

#[cfg(test)]
#[path = "answer_json_tests.rs"]
mod tests;
