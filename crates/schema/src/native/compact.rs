//! [`CompactJson`]: a JSON document parsed into one flat, pre-ordered token array whose
//! strings stay in the source text. Walking it reads memory front to back, where a
//! `serde_json::Value` tree chases a pointer per string and per map; validation of a
//! compact document is several times cheaper once the data no longer fits in cache.
//! [`super::compact_ref`] walks it.

use std::fmt;

use serde::Deserializer;
use serde::de::DeserializeSeed;
use serde::de::MapAccess;
use serde::de::SeqAccess;
use serde::de::Visitor;
use serde_json::Number;
use serde_json::Value;

use crate::SchemaError;

/// Token kinds.
pub(crate) mod kind {
    /// `null`.
    pub(crate) const NULL: u8 = 0;
    /// `true`.
    pub(crate) const TRUE: u8 = 1;
    /// `false`.
    pub(crate) const FALSE: u8 = 2;
    /// A number; `off` indexes the number table.
    pub(crate) const NUMBER: u8 = 3;
    /// A string in the source text at `off..off + len`.
    pub(crate) const STRING: u8 = 4;
    /// A string with escapes, unescaped into the side buffer at `off..off + len`.
    pub(crate) const ESCAPED: u8 = 5;
    /// An array of `len` items.
    pub(crate) const ARRAY: u8 = 6;
    /// An object of `len` entries, each a key token then the value's tokens.
    pub(crate) const OBJECT: u8 = 7;
}

/// One token; containers are followed by their content, up to `end`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Token {
    pub(crate) kind: u8,
    pub(crate) off: u32,
    pub(crate) len: u32,
    /// Index just past this token's subtree.
    pub(crate) end: u32,
}

/// A JSON document in a flat form built for fast validation
/// ([`CompiledSchema::is_valid_compact`](crate::CompiledSchema::is_valid_compact)).
///
/// Parse once, validate many times: it holds the text, one 16-byte token per value, and
/// the numbers. An object with a repeated key is kept as text only and validated through
/// `serde_json::Value` (which keeps the last occurrence), so both forms agree.
#[derive(Clone)]
pub struct CompactJson {
    text: Box<str>,
    pub(crate) tokens: Vec<Token>,
    pub(crate) numbers: Vec<Number>,
    unescaped: String,
    pub(crate) duplicate_keys: bool,
}

impl fmt::Debug for CompactJson {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CompactJson")
            .field("bytes", &self.text.len())
            .field("tokens", &self.tokens.len())
            .finish_non_exhaustive()
    }
}

impl CompactJson {
    /// Parses `text` (one JSON value, up to 4 GiB).
    pub fn parse(text: impl Into<Box<str>>) -> Result<Self, SchemaError> {
        let text: Box<str> = text.into();
        if u32::try_from(text.len()).is_err() {
            return Err(SchemaError::InvalidJson(
                "document larger than 4 GiB".to_owned(),
            ));
        }
        let mut builder = Builder {
            text: &text,
            tokens: Vec::with_capacity(text.len() / 12 + 4),
            numbers: Vec::new(),
            unescaped: String::new(),
            duplicate_keys: false,
        };
        let mut deserializer = serde_json::Deserializer::from_str(&text);
        ValueSeed(&mut builder)
            .deserialize(&mut deserializer)
            .and_then(|()| deserializer.end())
            .map_err(|error| SchemaError::InvalidJson(error.to_string()))?;
        let Builder {
            tokens,
            numbers,
            unescaped,
            duplicate_keys,
            ..
        } = builder;
        Ok(CompactJson {
            text,
            tokens,
            numbers,
            unescaped,
            duplicate_keys,
        })
    }

    /// The source text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The document as a `serde_json::Value`.
    pub fn to_value(&self) -> Result<Value, SchemaError> {
        serde_json::from_str(&self.text)
            .map_err(|error| SchemaError::InvalidJson(error.to_string()))
    }

    /// The string of a `STRING` or `ESCAPED` token.
    #[inline]
    pub(crate) fn str_at(&self, token: Token) -> &str {
        let source = if token.kind == kind::STRING {
            &*self.text
        } else {
            &self.unescaped
        };
        let start = token.off as usize;
        source
            .get(start..start + token.len as usize)
            .unwrap_or_default()
    }
}

struct Builder<'t> {
    text: &'t str,
    tokens: Vec<Token>,
    numbers: Vec<Number>,
    unescaped: String,
    duplicate_keys: bool,
}

impl Builder<'_> {
    fn push(&mut self, kind: u8, off: usize, len: usize) {
        let end = self.tokens.len() + 1;
        // Offsets are below 4 GiB: `parse` checked the text, and the side buffer and the
        // number table are smaller than it.
        self.tokens.push(Token {
            kind,
            off: off as u32,
            len: len as u32,
            end: end as u32,
        });
    }

    fn string(&mut self, s: &str, borrowed: bool) {
        if borrowed {
            let off = (s.as_ptr() as usize).wrapping_sub(self.text.as_ptr() as usize);
            self.push(kind::STRING, off, s.len());
        } else {
            let off = self.unescaped.len();
            self.unescaped.push_str(s);
            self.push(kind::ESCAPED, off, s.len());
        }
    }

    fn number(&mut self, n: Number) {
        let off = self.numbers.len();
        self.numbers.push(n);
        self.push(kind::NUMBER, off, 0);
    }

    fn close(&mut self, at: usize, count: usize) {
        let end = self.tokens.len() as u32;
        if let Some(token) = self.tokens.get_mut(at) {
            token.len = count as u32;
            token.end = end;
        }
    }

    fn key(&self, at: u32) -> &str {
        let Some(&token) = self.tokens.get(at as usize) else {
            return "";
        };
        let source = if token.kind == kind::STRING {
            self.text
        } else {
            &self.unescaped
        };
        let start = token.off as usize;
        source
            .get(start..start + token.len as usize)
            .unwrap_or_default()
    }

    fn check_duplicates(&mut self, keys: &[u32]) {
        if self.duplicate_keys || keys.len() < 2 {
            return;
        }
        let names: Vec<&str> = keys.iter().map(|&k| self.key(k)).collect();
        let repeated = if names.len() <= 16 {
            names
                .iter()
                .enumerate()
                .any(|(i, a)| names[..i].contains(a))
        } else {
            let mut seen = std::collections::HashSet::with_capacity(names.len());
            !names.iter().all(|name| seen.insert(*name))
        };
        self.duplicate_keys = repeated;
    }
}

struct ValueSeed<'b, 't>(&'b mut Builder<'t>);

impl<'de> DeserializeSeed<'de> for ValueSeed<'_, '_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ValueSeed<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_unit<E>(self) -> Result<(), E> {
        self.0.push(kind::NULL, 0, 0);
        Ok(())
    }

    fn visit_bool<E>(self, v: bool) -> Result<(), E> {
        self.0.push(if v { kind::TRUE } else { kind::FALSE }, 0, 0);
        Ok(())
    }

    fn visit_u64<E>(self, v: u64) -> Result<(), E> {
        self.0.number(v.into());
        Ok(())
    }

    fn visit_i64<E>(self, v: i64) -> Result<(), E> {
        self.0.number(v.into());
        Ok(())
    }

    fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<(), E> {
        match Number::from_f64(v) {
            Some(n) => {
                self.0.number(n);
                Ok(())
            }
            None => Err(E::custom("number out of range")),
        }
    }

    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<(), E> {
        self.0.string(v, true);
        Ok(())
    }

    fn visit_str<E>(self, v: &str) -> Result<(), E> {
        self.0.string(v, false);
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let at = self.0.tokens.len();
        self.0.push(kind::ARRAY, 0, 0);
        let mut count = 0;
        while seq.next_element_seed(ValueSeed(self.0))?.is_some() {
            count += 1;
        }
        self.0.close(at, count);
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let at = self.0.tokens.len();
        self.0.push(kind::OBJECT, 0, 0);
        let mut keys: Vec<u32> = Vec::new();
        while map.next_key_seed(KeySeed(self.0))?.is_some() {
            keys.push((self.0.tokens.len() - 1) as u32);
            map.next_value_seed(ValueSeed(self.0))?;
        }
        self.0.close(at, keys.len());
        self.0.check_duplicates(&keys);
        Ok(())
    }
}

struct KeySeed<'b, 't>(&'b mut Builder<'t>);

impl<'de> DeserializeSeed<'de> for KeySeed<'_, '_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeySeed<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object key")
    }

    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<(), E> {
        self.0.string(v, true);
        Ok(())
    }

    fn visit_str<E>(self, v: &str) -> Result<(), E> {
        self.0.string(v, false);
        Ok(())
    }
}
