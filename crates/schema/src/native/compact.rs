//! [`CompactJson`]: a JSON document parsed into one contiguous buffer of 8-byte tokens in
//! document order, each string's bytes inline right after its token, containers carrying
//! the position just past their subtree. Walking it reads one block of memory front to
//! back, where a `serde_json::Value` tree chases a pointer per string and per map: an
//! object's key is compared with the bytes next to its token, with no second lookup.
//! [`super::run`] validates it; [`super::compact_ref`] reads single values of it.

use std::fmt;

use serde::Deserializer;
use serde::de::DeserializeSeed;
use serde::de::MapAccess;
use serde::de::SeqAccess;
use serde::de::Visitor;
use serde_json::Number;
use serde_json::Value;

use super::compact_ref::CompactValue;
use crate::SchemaError;

/// Token kinds: the low three bits of [`Token::head`].
pub(crate) mod kind {
    /// `null`.
    pub(crate) const NULL: u32 = 0;
    /// `true`.
    pub(crate) const TRUE: u32 = 1;
    /// `false`.
    pub(crate) const FALSE: u32 = 2;
    /// A whole number (`3` or `3.0`: draft-07's `integer`); `data` indexes the number table.
    pub(crate) const INTEGER: u32 = 3;
    /// Any other number; `data` indexes the number table.
    pub(crate) const FLOAT: u32 = 4;
    /// A string (unescaped) of `len` bytes right after the token, zero-padded to a
    /// multiple of eight; `data` is the position just past the padding. An object's keys
    /// are strings too, but their `data` is the position just past the entry's value (the
    /// next key), so a walk over the entries goes from key to key in one step.
    pub(crate) const STRING: u32 = 5;
    /// An array of `len` items; `data` is the position just past its subtree.
    pub(crate) const ARRAY: u32 = 6;
    /// An object of `len` entries, each a key (a `STRING`) then the value; `data` is the
    /// position just past its subtree.
    pub(crate) const OBJECT: u32 = 7;
}

/// Bytes of a token.
pub(crate) const TOKEN: usize = 8;

/// Zero bytes after the last token, so that sixteen bytes can be read after any token.
pub(crate) const PADDING: usize = 16;

/// Documents must stay below this size: the buffer (at most four times the text, plus the
/// padding) then has 32-bit positions and every length fits `len`'s 29 bits.
const MAX_BYTES: usize = 1 << 29;

/// One token: a kind and a length in `head`, a position or number index in `data`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Token {
    /// `len << 3 | kind`.
    pub(crate) head: u32,
    /// Position past the value (strings, containers) or number index (numbers).
    pub(crate) data: u32,
}

impl Token {
    /// The token kind (a [`kind`] constant).
    #[inline]
    pub(crate) fn kind(self) -> u32 {
        self.head & 7
    }

    /// Byte length (strings) or entry count (containers).
    #[inline]
    pub(crate) fn len(self) -> u32 {
        self.head >> 3
    }

    /// The position just past the value whose token is this one, at `at` (not for keys).
    #[inline]
    pub(crate) fn next(self, at: usize) -> usize {
        if self.kind() >= kind::STRING {
            self.data as usize
        } else {
            at + TOKEN
        }
    }

    /// For a key at `at` (whose token this is): the position of the entry's value, right
    /// after the key's bytes.
    #[inline]
    pub(crate) fn value_at(self, at: usize) -> usize {
        at + TOKEN + ((self.len() as usize + (TOKEN - 1)) & !(TOKEN - 1))
    }

    fn new(kind: u32, len: usize, data: usize) -> Token {
        // Lengths and positions are below 2^29 and 2^32: `parse` checked the text's size.
        Token {
            head: (len as u32) << 3 | kind,
            data: data as u32,
        }
    }

    fn bytes(self) -> [u8; TOKEN] {
        (u64::from(self.data) << 32 | u64::from(self.head)).to_le_bytes()
    }
}

/// A JSON document in a flat form built for fast validation
/// ([`CompiledSchema::is_valid_compact`](crate::CompiledSchema::is_valid_compact)).
///
/// Parse once, validate many times. It holds one buffer: an 8-byte token per value and
/// key in document order, each string's bytes (unescaped) right after its token,
/// containers carrying the position just past their subtree (a value is skipped in one
/// step); and a table of the numbers. An object with a repeated key is validated through
/// `serde_json::Value` (which keeps the last occurrence), so both forms agree.
#[derive(Clone)]
pub struct CompactJson {
    text: Box<str>,
    /// Tokens and strings, then [`PADDING`] zero bytes.
    pub(crate) buf: Vec<u8>,
    pub(crate) numbers: Vec<Number>,
    pub(crate) duplicate_keys: bool,
}

impl fmt::Debug for CompactJson {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CompactJson")
            .field("bytes", &self.text.len())
            .field("buffer", &self.buf.len())
            .finish_non_exhaustive()
    }
}

impl CompactJson {
    /// Parses `text` (one JSON value, under 512 MiB).
    pub fn parse(text: impl Into<Box<str>>) -> Result<Self, SchemaError> {
        let text: Box<str> = text.into();
        if text.len() >= MAX_BYTES {
            return Err(SchemaError::InvalidJson(
                "document of 512 MiB or more".to_owned(),
            ));
        }
        let mut builder = Builder {
            buf: Vec::with_capacity(text.len() + text.len() / 2 + PADDING),
            numbers: Vec::new(),
            duplicate_keys: false,
        };
        let mut deserializer = serde_json::Deserializer::from_str(&text);
        ValueSeed(&mut builder)
            .deserialize(&mut deserializer)
            .and_then(|()| deserializer.end())
            .map_err(|error| SchemaError::InvalidJson(error.to_string()))?;
        let Builder {
            mut buf,
            numbers,
            duplicate_keys,
        } = builder;
        buf.resize(buf.len() + PADDING, 0);
        Ok(CompactJson {
            text,
            buf,
            numbers,
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

    /// The document's root value.
    pub fn root(&self) -> CompactValue<'_> {
        CompactValue { doc: self, at: 0 }
    }

    /// The token at position `at`.
    #[inline]
    pub(crate) fn token(&self, at: usize) -> Option<Token> {
        let word = self.word(at)?;
        Some(Token {
            head: word as u32,
            data: (word >> 32) as u32,
        })
    }

    /// The token at position `at` and the two words after it (a string's first sixteen
    /// bytes), with one bounds check: the padding makes them there for any key.
    #[inline]
    pub(crate) fn token_and_words(&self, at: usize) -> Option<(Token, u64, u64)> {
        let bytes = self.buf.get(at..)?.first_chunk::<24>()?;
        let (token, words) = bytes.split_first_chunk::<8>()?;
        let (head, tail) = words.split_first_chunk::<8>()?;
        let token = u64::from_le_bytes(*token);
        Some((
            Token {
                head: token as u32,
                data: (token >> 32) as u32,
            },
            u64::from_le_bytes(*head),
            u64::from_le_bytes(*tail.first_chunk::<8>()?),
        ))
    }

    /// The eight bytes at `at`, little-endian.
    #[inline]
    pub(crate) fn word(&self, at: usize) -> Option<u64> {
        let bytes = self.buf.get(at..)?.first_chunk::<8>()?;
        Some(u64::from_le_bytes(*bytes))
    }

    /// The bytes of the string whose token (at `at`) is `token`.
    #[inline]
    pub(crate) fn bytes_at(&self, at: usize, token: Token) -> &[u8] {
        let start = at + TOKEN;
        self.buf
            .get(start..start + token.len() as usize)
            .unwrap_or_default()
    }

    /// The string whose token (at `at`) is `token`.
    #[inline]
    pub(crate) fn str_at(&self, at: usize, token: Token) -> &str {
        // The bytes were copied from a `&str` whole, so they are UTF-8.
        std::str::from_utf8(self.bytes_at(at, token)).unwrap_or_default()
    }
}

struct Builder {
    buf: Vec<u8>,
    numbers: Vec<Number>,
    duplicate_keys: bool,
}

impl Builder {
    fn push(&mut self, kind: u32, len: usize, data: usize) {
        self.buf
            .extend_from_slice(&Token::new(kind, len, data).bytes());
    }

    fn string(&mut self, s: &str) {
        let start = self.buf.len() + TOKEN;
        let end = start + s.len().next_multiple_of(TOKEN);
        self.push(kind::STRING, s.len(), end);
        self.buf.extend_from_slice(s.as_bytes());
        self.buf.resize(end, 0);
    }

    fn number(&mut self, n: Number, whole: bool) {
        let index = self.numbers.len();
        self.numbers.push(n);
        self.push(if whole { kind::INTEGER } else { kind::FLOAT }, 0, index);
    }

    fn close(&mut self, at: usize, kind: u32, count: usize) {
        let end = self.buf.len();
        if let Some(slot) = self.buf.get_mut(at..at + TOKEN) {
            slot.copy_from_slice(&Token::new(kind, count, end).bytes());
        }
    }

    /// Points the key at `key` past its value (just written).
    fn entry_end(&mut self, key: usize) {
        let end = self.buf.len();
        if let Some(slot) = self.buf.get_mut(key + 4..key + TOKEN) {
            // Positions are below 2^32 (see `Token::new`).
            slot.copy_from_slice(&(end as u32).to_le_bytes());
        }
    }

    fn key(&self, at: usize) -> &[u8] {
        let Some(word) = self
            .buf
            .get(at..at + TOKEN)
            .and_then(|b| b.first_chunk::<8>())
        else {
            return &[];
        };
        let len = (u64::from_le_bytes(*word) as u32 >> 3) as usize;
        self.buf
            .get(at + TOKEN..at + TOKEN + len)
            .unwrap_or_default()
    }

    fn check_duplicates(&mut self, keys: &[usize]) {
        if self.duplicate_keys || keys.len() < 2 {
            return;
        }
        let names: Vec<&[u8]> = keys.iter().map(|&k| self.key(k)).collect();
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

struct ValueSeed<'b>(&'b mut Builder);

impl<'de> DeserializeSeed<'de> for ValueSeed<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ValueSeed<'_> {
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
        self.0.number(v.into(), true);
        Ok(())
    }

    fn visit_i64<E>(self, v: i64) -> Result<(), E> {
        self.0.number(v.into(), true);
        Ok(())
    }

    fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<(), E> {
        match Number::from_f64(v) {
            Some(n) => {
                self.0.number(n, v.fract() == 0.0);
                Ok(())
            }
            None => Err(E::custom("number out of range")),
        }
    }

    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<(), E> {
        self.0.string(v);
        Ok(())
    }

    fn visit_str<E>(self, v: &str) -> Result<(), E> {
        self.0.string(v);
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let at = self.0.buf.len();
        self.0.push(kind::ARRAY, 0, 0);
        let mut count = 0;
        while seq.next_element_seed(ValueSeed(self.0))?.is_some() {
            count += 1;
        }
        self.0.close(at, kind::ARRAY, count);
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let at = self.0.buf.len();
        self.0.push(kind::OBJECT, 0, 0);
        let mut keys: Vec<usize> = Vec::new();
        loop {
            let key = self.0.buf.len();
            if map.next_key_seed(KeySeed(self.0))?.is_none() {
                break;
            }
            keys.push(key);
            map.next_value_seed(ValueSeed(self.0))?;
            self.0.entry_end(key);
        }
        self.0.close(at, kind::OBJECT, keys.len());
        self.0.check_duplicates(&keys);
        Ok(())
    }
}

struct KeySeed<'b>(&'b mut Builder);

impl<'de> DeserializeSeed<'de> for KeySeed<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeySeed<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object key")
    }

    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<(), E> {
        self.0.string(v);
        Ok(())
    }

    fn visit_str<E>(self, v: &str) -> Result<(), E> {
        self.0.string(v);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use proptest::prelude::*;
    use serde_json::Value;
    use serde_json::json;

    use super::CompactJson;
    use super::CompactValue;
    use super::PADDING;
    use super::TOKEN;
    use super::kind;

    /// Any JSON value, with strings that need escapes, non-ASCII text and long keys.
    fn json() -> impl Strategy<Value = Value> {
        let text = prop::sample::select(vec![
            "",
            "a",
            "eight_ch",
            "exactly sixteen!",
            "seventeen bytes!!",
            "a name longer than sixteen bytes",
            "é",
            "quote \" and \\ backslash",
            "tab\there\nnewline",
            "\u{1F600} emoji",
        ])
        .prop_map(str::to_owned);
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            (-1e6f64..1e6).prop_map(Value::from),
            Just(json!(3.0)),
            text.clone().prop_map(Value::from),
        ];
        leaf.prop_recursive(4, 48, 6, move |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
                prop::collection::vec((text.clone(), inner), 0..6)
                    .prop_map(|entries| Value::Object(entries.into_iter().collect())),
            ]
        })
    }

    proptest! {
        #[test]
        fn round_trips_to_the_same_value(value in json()) {
            let text = value.to_string();
            let document = CompactJson::parse(text.as_str()).unwrap();
            prop_assert_eq!(&document.root().to_value(), &value);
            prop_assert_eq!(document.to_value().unwrap(), value);
            prop_assert_eq!(document.text(), text.as_str());
        }

        #[test]
        fn pretty_printed_text_parses_to_the_same_value(value in json()) {
            let text = serde_json::to_string_pretty(&value).unwrap();
            let document = CompactJson::parse(text).unwrap();
            prop_assert_eq!(document.root().to_value(), value);
        }
    }

    #[test]
    fn layout_is_tokens_with_strings_inline_and_keys_linked_to_the_next_key() {
        let document =
            CompactJson::parse(r#"{"ab": "xyz", "k": [1, 2.5, null], "z": {}}"#).unwrap();
        let token = |at: usize| document.token(at).unwrap();
        let root = token(0);
        assert_eq!((root.kind(), root.len()), (kind::OBJECT, 3));
        assert_eq!(root.data as usize + PADDING, document.buf.len());
        // Key "ab": its bytes right after its token, padded to a word; its `data` points
        // past its value, at the next key.
        let key = token(TOKEN);
        assert_eq!((key.kind(), key.len()), (kind::STRING, 2));
        assert_eq!(document.bytes_at(TOKEN, key), b"ab");
        let value_at = key.value_at(TOKEN);
        assert_eq!(value_at, 3 * TOKEN);
        let value = token(value_at);
        assert_eq!(document.str_at(value_at, value), "xyz");
        assert_eq!(value.next(value_at), 5 * TOKEN);
        assert_eq!(key.data as usize, 5 * TOKEN);
        let key = token(5 * TOKEN);
        assert_eq!(document.str_at(5 * TOKEN, key), "k");
        let array_at = key.value_at(5 * TOKEN);
        let array = token(array_at);
        assert_eq!((array.kind(), array.len()), (kind::ARRAY, 3));
        let kinds: Vec<u32> = (1..=3)
            .map(|i| token(array_at + i * TOKEN).kind())
            .collect();
        assert_eq!(kinds, [kind::INTEGER, kind::FLOAT, kind::NULL]);
        assert_eq!(array.next(array_at), array_at + 4 * TOKEN);
        assert_eq!(key.data as usize, array_at + 4 * TOKEN);
        assert_eq!(document.numbers.len(), 2);
        // The padding is zeros.
        assert!(
            document.buf[document.buf.len() - PADDING..]
                .iter()
                .all(|&b| b == 0)
        );
    }

    #[test]
    fn whole_floats_are_integers_and_repeated_keys_are_flagged() {
        let document = CompactJson::parse("[3.0, 3.5, -0.0]").unwrap();
        let kinds: Vec<u32> = (1..=3)
            .map(|i| document.token(i * TOKEN).unwrap().kind())
            .collect();
        assert_eq!(kinds, [kind::INTEGER, kind::FLOAT, kind::INTEGER]);
        assert!(!document.duplicate_keys);
        let document = CompactJson::parse(r#"[{"a": 1}, {"b": {"a": 1, "a": 2}}]"#).unwrap();
        assert!(document.duplicate_keys);
        assert_eq!(
            document.root().to_value(),
            json!([{"a": 1}, {"b": {"a": 2}}])
        );
    }

    #[test]
    fn items_are_the_root_arrays_values() {
        let document = CompactJson::parse(r#"[{"a": "x"}, 2, "s", [true]]"#).unwrap();
        let items: Vec<Value> = document
            .root()
            .items()
            .map(CompactValue::to_value)
            .collect();
        assert_eq!(
            items,
            [json!({"a": "x"}), json!(2), json!("s"), json!([true])]
        );
        let object = CompactJson::parse(r#"{"a": 1}"#).unwrap();
        assert_eq!(object.root().items().count(), 0);
    }

    #[test]
    fn invalid_text_is_an_error() {
        for text in [
            "",
            "{",
            "[1,]",
            "{\"a\" 1}",
            "nul",
            "\"\\x\"",
            "[1] 2",
            "\"\u{1}\"",
        ] {
            assert!(CompactJson::parse(text).is_err(), "{text:?}");
        }
    }
}
