//! [`CompactRef`]: a value inside a [`CompactJson`], and what the validator's walk needs
//! of it ([`Instance`]).

use std::cell::RefCell;

use serde_json::Number;
use serde_json::Value;

use super::compact::CompactJson;
use super::compact::Token;
use super::compact::kind;
use super::types;
use super::walk::Instance;
use super::walk::equal;

const NULL_TOKEN: Token = Token {
    kind: kind::NULL,
    off: 0,
    len: 0,
    end: 0,
};

/// A value inside a [`CompactJson`]: the document and the index of its first token.
#[derive(Debug, Clone, Copy)]
pub(crate) struct CompactRef<'a> {
    doc: &'a CompactJson,
    at: u32,
}

impl<'a> CompactRef<'a> {
    /// The document's root value.
    pub(crate) fn root(doc: &'a CompactJson) -> Self {
        CompactRef { doc, at: 0 }
    }

    #[inline]
    fn token(self) -> Token {
        self.doc
            .tokens
            .get(self.at as usize)
            .copied()
            .unwrap_or(NULL_TOKEN)
    }

    /// The index just past this value's tokens.
    #[inline]
    fn end(self) -> u32 {
        self.token().end.max(self.at + 1)
    }

    fn to_value(self) -> Value {
        let token = self.token();
        match token.kind {
            kind::TRUE => Value::Bool(true),
            kind::FALSE => Value::Bool(false),
            kind::NUMBER => self.number().cloned().map_or(Value::Null, Value::Number),
            kind::STRING | kind::ESCAPED => Value::String(self.doc.str_at(token).to_owned()),
            kind::ARRAY => Value::Array(
                self.items()
                    .map(|(_, i)| i.map(Self::to_value).collect())
                    .unwrap_or_default(),
            ),
            kind::OBJECT => Value::Object(
                self.entries()
                    .map(|e| e.map(|(k, v)| (k.to_owned(), v.to_value())).collect())
                    .unwrap_or_default(),
            ),
            _ => Value::Null,
        }
    }
}

/// The items of a compact array.
#[derive(Debug)]
pub(crate) struct CompactItems<'a> {
    doc: &'a CompactJson,
    next: u32,
    left: u32,
}

impl<'a> Iterator for CompactItems<'a> {
    type Item = CompactRef<'a>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let item = CompactRef {
            doc: self.doc,
            at: self.next,
        };
        self.next = item.end();
        Some(item)
    }
}

/// The entries of a compact object.
#[derive(Debug, Clone)]
pub(crate) struct CompactEntries<'a> {
    doc: &'a CompactJson,
    next: u32,
    left: u32,
}

impl<'a> Iterator for CompactEntries<'a> {
    type Item = (&'a str, CompactRef<'a>);

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let key = self
            .doc
            .tokens
            .get(self.next as usize)
            .copied()
            .unwrap_or(NULL_TOKEN);
        let value = CompactRef {
            doc: self.doc,
            at: self.next + 1,
        };
        self.next = value.end();
        Some((self.doc.str_at(key), value))
    }
}

/// The values of a compact object (its entries without the names).
#[derive(Debug)]
pub(crate) struct CompactValues<'a> {
    doc: &'a CompactJson,
    next: u32,
    left: u32,
}

impl<'a> Iterator for CompactValues<'a> {
    type Item = CompactRef<'a>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let value = CompactRef {
            doc: self.doc,
            at: self.next + 1,
        };
        self.next = value.end();
        Some(value)
    }
}

impl<'a> Instance<'a> for CompactRef<'a> {
    type Items = CompactItems<'a>;
    type Entries = CompactEntries<'a>;
    type Values = CompactValues<'a>;

    #[inline]
    fn bits(self) -> u8 {
        match self.token().kind {
            kind::NULL => types::NULL,
            kind::TRUE | kind::FALSE => types::BOOLEAN,
            kind::NUMBER => self.number().map_or(types::NUMBER, |n| {
                if n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0) {
                    types::INTEGER | types::NUMBER
                } else {
                    types::NUMBER
                }
            }),
            kind::STRING | kind::ESCAPED => types::STRING,
            kind::ARRAY => types::ARRAY,
            _ => types::OBJECT,
        }
    }

    #[inline]
    fn as_str(self) -> Option<&'a str> {
        let token = self.token();
        matches!(token.kind, kind::STRING | kind::ESCAPED).then(|| self.doc.str_at(token))
    }

    #[inline]
    fn number(self) -> Option<&'a Number> {
        let token = self.token();
        if token.kind == kind::NUMBER {
            self.doc.numbers.get(token.off as usize)
        } else {
            None
        }
    }

    #[inline]
    fn items(self) -> Option<(usize, Self::Items)> {
        let token = self.token();
        (token.kind == kind::ARRAY).then_some((
            token.len as usize,
            CompactItems {
                doc: self.doc,
                next: self.at + 1,
                left: token.len,
            },
        ))
    }

    #[inline]
    fn entries(self) -> Option<Self::Entries> {
        let token = self.token();
        (token.kind == kind::OBJECT).then_some(CompactEntries {
            doc: self.doc,
            next: self.at + 1,
            left: token.len,
        })
    }

    #[inline]
    fn values(self) -> Option<Self::Values> {
        let token = self.token();
        (token.kind == kind::OBJECT).then_some(CompactValues {
            doc: self.doc,
            next: self.at + 1,
            left: token.len,
        })
    }

    fn equals(self, expected: &Value) -> bool {
        match (self.token().kind, expected) {
            (kind::STRING | kind::ESCAPED, Value::String(s)) => self.as_str() == Some(s.as_str()),
            (kind::STRING | kind::ESCAPED, _) => false,
            (kind::NULL, _) => expected.is_null(),
            (kind::TRUE, _) => *expected == Value::Bool(true),
            (kind::FALSE, _) => *expected == Value::Bool(false),
            _ => equal(expected, &self.to_value()),
        }
    }

    /// The `format` validator takes a `serde_json::Value`: a string is copied into this
    /// thread's reusable one, so checking a format allocates only when a string is longer
    /// than any this thread has checked before.
    fn format_ok(self, validator: &jsonschema::Validator) -> bool {
        let Some(text) = self.as_str() else {
            return validator.is_valid(&self.to_value());
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

thread_local! {
    /// The reusable string [`CompactRef::format_ok`] hands to `format` validators.
    static FORMAT_SCRATCH: RefCell<Value> = const { RefCell::new(Value::Null) };
}
