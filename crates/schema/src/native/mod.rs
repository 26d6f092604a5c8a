//! A specialised JSON Schema validator for the draft-07 subset retrace's schemas (and the
//! shared ajv vectors' schema) use, several times faster than a general engine.
//!
//! [`compile`](compile::compile) turns a schema document into a tree of typed [`Node`]s:
//! keywords parsed once, regexes compiled once (simple anchored ones to a small DFA,
//! [`pattern`]), `$ref`s resolved in place, property names matched by a short scan of
//! integer [`Key`]s instead of hashing, `required` and `additionalProperties` checked on
//! the names before any value is walked. [`walk::is_valid`] answers the yes/no question
//! without allocating;
//! [`report::collect`] runs only on the failure path and yields the same raw errors, in the
//! same order, as the `jsonschema` crate, so both engines share one translation into
//! field-level errors.
//!
//! Any keyword, `$schema` or `$ref` shape outside the subset makes compilation return
//! [`Unsupported`](compile::Unsupported): the caller then falls back to the `jsonschema`
//! crate, never silently accepting what it cannot check.

pub(crate) mod compile;
pub(crate) mod pattern;
pub(crate) mod report;
pub(crate) mod walk;

use serde_json::Value;

/// A compiled schema object: its keywords in the order the `jsonschema` crate runs them.
#[derive(Debug)]
pub(crate) struct Node {
    /// JSON pointer of this schema object in the document (`""` for the root).
    pub(crate) at: Box<str>,
    /// The keyword checks, in `jsonschema`'s priority order.
    pub(crate) checks: Vec<Check>,
    /// The type bits when `checks` is a lone `type` (the most common leaf): the walk tests
    /// them inline instead of dispatching on the check.
    pub(crate) only_type: Option<u8>,
}

/// Bits of a JSON type set (`integer` is a subset of `number`).
pub(crate) mod types {
    /// `null`.
    pub(crate) const NULL: u8 = 1;
    /// `boolean`.
    pub(crate) const BOOLEAN: u8 = 2;
    /// `integer`.
    pub(crate) const INTEGER: u8 = 4;
    /// `number`.
    pub(crate) const NUMBER: u8 = 8;
    /// `string`.
    pub(crate) const STRING: u8 = 16;
    /// `array`.
    pub(crate) const ARRAY: u8 = 32;
    /// `object`.
    pub(crate) const OBJECT: u8 = 64;
}

/// A numeric bound with the schema's own value (for messages) and its comparable forms.
#[derive(Debug)]
pub(crate) struct Bound {
    /// The schema's value, as written.
    pub(crate) value: Value,
    /// As a float.
    pub(crate) float: f64,
    /// As an integer, when it is one.
    pub(crate) int: Option<i128>,
}

/// A property name as two machine words plus its length: equal keys of up to 16 bytes
/// compare by three integer comparisons, with no `memcmp` call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Key {
    /// Length in bytes.
    pub(crate) len: usize,
    /// The first bytes (overlapping reads of the first and last four, two or one bytes
    /// for names under eight bytes, so the pair is exact for its length).
    pub(crate) head: u64,
    /// The last eight bytes, for names of eight bytes or more.
    pub(crate) tail: u64,
}

impl Key {
    /// The key of `name`.
    #[inline]
    pub(crate) fn of(name: &str) -> Key {
        let bytes = name.as_bytes();
        let len = bytes.len();
        let (head, tail) = if let (Some(first), Some(last)) =
            (bytes.first_chunk::<8>(), bytes.last_chunk::<8>())
        {
            (u64::from_le_bytes(*first), u64::from_le_bytes(*last))
        } else if let (Some(first), Some(last)) =
            (bytes.first_chunk::<4>(), bytes.last_chunk::<4>())
        {
            let (first, last) = (u32::from_le_bytes(*first), u32::from_le_bytes(*last));
            (u64::from(first) | u64::from(last) << 32, 0)
        } else if let (Some(first), Some(last)) =
            (bytes.first_chunk::<2>(), bytes.last_chunk::<2>())
        {
            let (first, last) = (u16::from_le_bytes(*first), u16::from_le_bytes(*last));
            (u64::from(first) | u64::from(last) << 16, 0)
        } else {
            (bytes.first().map_or(0, |&b| u64::from(b)), 0)
        };
        Key { len, head, tail }
    }

    /// Whether `name` (whose key is `self`) equals the declared name `declared` with key
    /// `other`: the words decide up to 16 bytes, longer names compare their bytes too.
    #[inline]
    pub(crate) fn matches(self, other: Key, name: &str, declared: &str) -> bool {
        self == other && (self.len <= 16 || name == declared)
    }
}

/// `properties` with `additionalProperties` and the `required` names they declare.
#[derive(Debug)]
pub(crate) struct ObjectCheck {
    /// Declared properties in schema order.
    pub(crate) props: Vec<(Box<str>, Node)>,
    /// The [`Key`] of each declared name, for matching without a `memcmp` call.
    pub(crate) keys: Vec<Key>,
    /// `additionalProperties: false`.
    pub(crate) deny_additional: bool,
    /// Bits of `props` indices that `required` names (first 64 properties only).
    pub(crate) required_mask: u64,
    /// Required names not covered by `required_mask`.
    pub(crate) required_extra: Vec<Box<str>>,
    /// `jsonschema` fuses a single required name into `additionalProperties: false` and
    /// reports it after the property errors: the name, when that applies.
    pub(crate) required_last: Option<Box<str>>,
}

/// One keyword (or fused group of keywords).
#[derive(Debug)]
pub(crate) enum Check {
    /// `type`: the allowed type bits and the name for messages.
    Type(u8, Box<str>),
    /// `const`.
    Const(Value),
    /// `enum`: the values (the array as written), and the same values as strings with
    /// their [`Key`]s when every one is a string (compared without a `memcmp` call).
    Enum(Value, Option<StringOptions>),
    /// `minimum`.
    Minimum(Bound),
    /// `maximum`.
    Maximum(Bound),
    /// `exclusiveMinimum`.
    ExclusiveMinimum(Bound),
    /// `exclusiveMaximum`.
    ExclusiveMaximum(Bound),
    /// `minLength`, in characters.
    MinLength(u64),
    /// `maxLength`, in characters.
    MaxLength(u64),
    /// `minItems`.
    MinItems(u64),
    /// `maxItems`.
    MaxItems(u64),
    /// `required`; `fused` when the node's [`ObjectCheck`] already checks it.
    Required {
        /// The names, in schema order.
        names: Vec<Box<str>>,
        /// Checked by the object pass rather than by lookups.
        fused: bool,
    },
    /// `pattern`: compiled, and its source.
    Pattern(Box<PatternCheck>),
    /// `format`: its name and a one-keyword `jsonschema` validator, so the format's meaning
    /// is exactly the reference engine's.
    Format(Box<str>, Box<jsonschema::Validator>),
    /// `properties` and `additionalProperties`.
    Object(Box<ObjectCheck>),
    /// `items` (one schema for every item).
    Items(Box<Node>),
    /// `allOf`.
    AllOf(Vec<Node>),
    /// `anyOf`.
    AnyOf(Branches),
    /// `oneOf`.
    OneOf(Branches),
    /// `not`: the compiled schema and the schema as written (for messages).
    Not(Box<Node>, Value),
    /// `if` with `then` and/or `else`.
    IfThenElse(Box<IfThenElse>),
}

/// The options of an all-string `enum`, each with its [`Key`].
pub(crate) type StringOptions = Box<[(Key, Box<str>)]>;

/// A compiled `pattern`.
#[derive(Debug)]
pub(crate) struct PatternCheck {
    /// The `regex` crate's compiled form (what decides, unless `simple` does).
    pub(crate) regex: regex::Regex,
    /// The same pattern without the regex engine, when it is simple enough.
    pub(crate) simple: Option<pattern::SimplePattern>,
    /// The pattern as written, for messages.
    pub(crate) source: Box<str>,
}

impl PatternCheck {
    /// Whether `text` matches.
    #[inline]
    pub(crate) fn is_match(&self, text: &str) -> bool {
        match &self.simple {
            Some(simple) => simple.is_match(text),
            None => self.regex.is_match(text),
        }
    }
}

/// The branches of `anyOf`/`oneOf`.
#[derive(Debug)]
pub(crate) struct Branches {
    /// The branch schemas.
    pub(crate) nodes: Vec<Node>,
    /// When every branch is an object requiring the same property with a distinct
    /// `const`, that property picks the one branch that can match.
    pub(crate) discriminator: Option<Discriminator>,
}

/// The property that tells `anyOf`/`oneOf` branches apart, and each branch's value for it.
#[derive(Debug)]
pub(crate) struct Discriminator {
    /// The property name.
    pub(crate) key: Box<str>,
    /// Its [`Key`].
    pub(crate) key_words: Key,
    /// The `const` of branch `i`.
    pub(crate) values: Vec<Value>,
}

/// The three parts of a conditional.
#[derive(Debug)]
pub(crate) struct IfThenElse {
    /// `if`.
    pub(crate) condition: Node,
    /// `then`.
    pub(crate) then: Option<Node>,
    /// `else`.
    pub(crate) otherwise: Option<Node>,
}
