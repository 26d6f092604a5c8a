//! [`CompactValue`]: one value inside a [`CompactJson`] (the root, or an item of an array
//! of instances parsed together), and the rarer questions the run asks of a value (its
//! number, equality with a schema value, a `format`).

use std::cell::RefCell;

use serde_json::Number;
use serde_json::Value;

use super::compact::CompactJson;
use super::compact::TOKEN;
use super::compact::Token;
use super::compact::kind;
use super::types;
use super::walk::equal;

/// A value inside a [`CompactJson`]: the document and the position of its token.
///
/// Instances parsed together (a JSON array of them, as one [`CompactJson`]) sit in one
/// contiguous buffer, read front to back as they are validated one after the other:
/// [`items`](Self::items) yields them for
/// [`CompiledSchema::is_valid_compact_value`](crate::CompiledSchema::is_valid_compact_value).
#[derive(Debug, Clone, Copy)]
pub struct CompactValue<'a> {
    pub(crate) doc: &'a CompactJson,
    pub(crate) at: usize,
}

impl<'a> CompactValue<'a> {
    /// The items, when this value is an array (none otherwise).
    pub fn items(self) -> impl Iterator<Item = CompactValue<'a>> {
        let token = self.token();
        let items = if token.kind() == kind::ARRAY {
            token.len() as usize
        } else {
            0
        };
        self.children(token).take(items)
    }

    /// The value as a `serde_json::Value` (a repeated key keeps its last value, as
    /// `serde_json` does).
    pub fn to_value(self) -> Value {
        self.value()
    }

    /// The value of `doc` whose token is at position `at`.
    pub(crate) fn at(doc: &'a CompactJson, at: usize) -> Self {
        CompactValue { doc, at }
    }

    fn token(self) -> Token {
        self.doc.token(self.at).unwrap_or(Token {
            head: kind::NULL,
            data: 0,
        })
    }

    /// The string, for a string.
    pub(crate) fn as_str(self) -> Option<&'a str> {
        let token = self.token();
        (token.kind() == kind::STRING).then(|| self.doc.str_at(self.at, token))
    }

    /// The number, for a number.
    pub(crate) fn number(self) -> Option<&'a Number> {
        let token = self.token();
        if matches!(token.kind(), kind::INTEGER | kind::FLOAT) {
            self.doc.numbers.get(token.data as usize)
        } else {
            None
        }
    }

    /// The values inside a container: an array's items, or an object's keys and values
    /// alternating.
    fn children(self, token: Token) -> impl Iterator<Item = CompactValue<'a>> {
        let doc = self.doc;
        let (count, object) = match token.kind() {
            kind::OBJECT => (2 * token.len() as usize, true),
            kind::ARRAY => (token.len() as usize, false),
            _ => (0, false),
        };
        let mut next = self.at + TOKEN;
        let mut is_key = object;
        (0..count).map(move |_| {
            let child = CompactValue { doc, at: next };
            let token = child.token();
            next = if is_key {
                token.value_at(next)
            } else {
                token.next(next)
            };
            is_key = object && !is_key;
            child
        })
    }

    fn value(self) -> Value {
        let token = self.token();
        match token.kind() {
            kind::TRUE => Value::Bool(true),
            kind::FALSE => Value::Bool(false),
            kind::INTEGER | kind::FLOAT => {
                self.number().cloned().map_or(Value::Null, Value::Number)
            }
            kind::STRING => Value::String(self.doc.str_at(self.at, token).to_owned()),
            kind::ARRAY => Value::Array(self.children(token).map(Self::value).collect()),
            kind::OBJECT => {
                let mut map = serde_json::Map::new();
                let mut children = self.children(token);
                while let (Some(key), Some(value)) = (children.next(), children.next()) {
                    map.insert(key.as_str().unwrap_or_default().to_owned(), value.value());
                }
                Value::Object(map)
            }
            _ => Value::Null,
        }
    }

    /// JSON equality with `expected` (numbers by value), as `const` and `enum` need.
    pub(crate) fn equals(self, expected: &Value) -> bool {
        match (self.token().kind(), expected) {
            (kind::STRING, Value::String(s)) => self.as_str() == Some(s.as_str()),
            (kind::STRING, _) => false,
            (kind::NULL, _) => expected.is_null(),
            (kind::TRUE, _) => *expected == Value::Bool(true),
            (kind::FALSE, _) => *expected == Value::Bool(false),
            _ => equal(expected, &self.value()),
        }
    }

    /// Whether a string passes a `format` validator, which takes a `serde_json::Value`:
    /// the string is copied into this thread's reusable one, so checking a format
    /// allocates only when a string is longer than any this thread has checked before.
    pub(crate) fn format_ok(self, validator: &jsonschema::Validator) -> bool {
        let Some(text) = self.as_str() else {
            return validator.is_valid(&self.value());
        };
        FORMAT_SCRATCH.with(|scratch| match scratch.try_borrow_mut() {
            Ok(mut value) => {
                if let Value::String(buffer) = &mut *value {
                    buffer.clear();
                    buffer.push_str(text);
                } else {
                    *value = Value::String(text.to_owned());
                }
                validator.is_valid(&value)
            }
            // Re-entered (a format validator validating a compact document): copy instead.
            Err(_) => validator.is_valid(&Value::String(text.to_owned())),
        })
    }
}

/// The type bits of a token kind.
#[inline]
pub(crate) fn bits_of(kind: u32) -> u8 {
    const BITS: [u8; 8] = [
        types::NULL,
        types::BOOLEAN,
        types::BOOLEAN,
        types::INTEGER | types::NUMBER,
        types::NUMBER,
        types::STRING,
        types::ARRAY,
        types::OBJECT,
    ];
    BITS[(kind & 7) as usize]
}

thread_local! {
    /// The reusable string [`CompactValue::format_ok`] hands to `format` validators.
    static FORMAT_SCRATCH: RefCell<Value> = const { RefCell::new(Value::Null) };
}
