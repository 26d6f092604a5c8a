//! The yes/no walk: does an instance satisfy a [`Node`]? No allocation, first failure wins.

use std::cmp::Ordering;

use serde_json::Number;
use serde_json::Value;

use super::Bound;
use super::Branches;
use super::Check;
use super::Key;
use super::Node;
use super::ObjectCheck;
use super::types;

/// The type bits `value` has (`3.0` is an integer, as draft-07 says).
pub(crate) fn type_bits(value: &Value) -> u8 {
    match value {
        Value::Null => types::NULL,
        Value::Bool(_) => types::BOOLEAN,
        Value::Number(n) => {
            let whole = n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0);
            if whole {
                types::INTEGER | types::NUMBER
            } else {
                types::NUMBER
            }
        }
        Value::String(_) => types::STRING,
        Value::Array(_) => types::ARRAY,
        Value::Object(_) => types::OBJECT,
    }
}

fn as_int(n: &Number) -> Option<i128> {
    n.as_i64()
        .map(i128::from)
        .or_else(|| n.as_u64().map(i128::from))
}

/// `n` compared with `bound`, exactly for integers.
pub(crate) fn compare(n: &Number, bound: &Bound) -> Ordering {
    if let (Some(a), Some(b)) = (as_int(n), bound.int) {
        return a.cmp(&b);
    }
    n.as_f64()
        .and_then(|f| f.partial_cmp(&bound.float))
        .unwrap_or(Ordering::Equal)
}

/// JSON equality with numbers compared by value (`1 == 1.0`), as `const` and `enum` need.
pub(crate) fn equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::String(x), Value::String(y)) => x == y,
        (Value::Number(x), Value::Number(y)) => match (as_int(x), as_int(y)) {
            (Some(i), Some(j)) => i == j,
            _ => x.as_f64() == y.as_f64(),
        },
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| equal(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| equal(v, w)))
        }
        _ => a == b,
    }
}

/// At least `limit` characters (code points).
pub(crate) fn at_least_chars(s: &str, limit: u64) -> bool {
    let bytes = s.len() as u64;
    if bytes < limit {
        return false;
    }
    bytes / 4 >= limit || s.chars().count() as u64 >= limit
}

/// At most `limit` characters (code points).
pub(crate) fn at_most_chars(s: &str, limit: u64) -> bool {
    s.len() as u64 <= limit || s.chars().count() as u64 <= limit
}

/// The index of the declared property `name`.
#[inline]
pub(crate) fn find(object: &ObjectCheck, name: &str) -> Option<usize> {
    let key = Key::of(name);
    object
        .keys
        .iter()
        .zip(&object.props)
        .position(|(&declared, (p, _))| key.matches(declared, name, p))
}

/// What the walk needs of an instance (a `serde_json::Value`).
pub(crate) trait Instance<'a>: Copy {
    /// Array items.
    type Items: Iterator<Item = Self>;
    /// Object entries.
    type Entries: Iterator<Item = (&'a str, Self)> + Clone;
    /// Object values, in entry order.
    type Values: Iterator<Item = Self>;
    /// The type bits.
    fn bits(self) -> u8;
    /// The string, for a string.
    fn as_str(self) -> Option<&'a str>;
    /// The number, for a number.
    fn number(self) -> Option<&'a Number>;
    /// The item count and items, for an array.
    fn items(self) -> Option<(usize, Self::Items)>;
    /// The entries, for an object.
    fn entries(self) -> Option<Self::Entries>;
    /// The values, for an object: its entries without decoding the names.
    fn values(self) -> Option<Self::Values>;
    /// JSON equality with `expected` (numbers by value).
    fn equals(self, expected: &Value) -> bool;
    /// Whether a string passes a `format` validator.
    fn format_ok(self, validator: &jsonschema::Validator) -> bool;
}

impl<'a> Instance<'a> for &'a Value {
    type Items = std::slice::Iter<'a, Value>;
    type Entries = std::iter::Map<
        serde_json::map::Iter<'a>,
        fn((&'a String, &'a Value)) -> (&'a str, &'a Value),
    >;
    type Values = serde_json::map::Values<'a>;

    #[inline]
    fn bits(self) -> u8 {
        type_bits(self)
    }

    #[inline]
    fn as_str(self) -> Option<&'a str> {
        Value::as_str(self)
    }

    #[inline]
    fn number(self) -> Option<&'a Number> {
        match self {
            Value::Number(n) => Some(n),
            _ => None,
        }
    }

    #[inline]
    fn items(self) -> Option<(usize, Self::Items)> {
        self.as_array().map(|a| (a.len(), a.iter()))
    }

    #[inline]
    fn entries(self) -> Option<Self::Entries> {
        let entry: fn((&'a String, &'a Value)) -> (&'a str, &'a Value) = |(k, v)| (k.as_str(), v);
        self.as_object().map(|m| m.iter().map(entry))
    }

    #[inline]
    fn values(self) -> Option<Self::Values> {
        self.as_object().map(serde_json::Map::values)
    }

    #[inline]
    fn equals(self, expected: &Value) -> bool {
        equal(expected, self)
    }

    fn format_ok(self, validator: &jsonschema::Validator) -> bool {
        validator.is_valid(self)
    }
}

/// Whether `value` satisfies `anyOf` (`one == false`) or `oneOf` (`one == true`).
fn branches_valid<'a, I: Instance<'a>>(branches: &Branches, value: I, one: bool) -> bool {
    if let (Some(d), Some(mut entries)) = (&branches.discriminator, value.entries()) {
        // Every branch requires `d.key` to equal its own constant: at most one can match.
        let Some((_, found)) = entries.find(|(k, _)| Key::of(k).matches(d.key_words, k, &d.key))
        else {
            return false;
        };
        return d
            .values
            .iter()
            .position(|c| found.equals(c))
            .is_some_and(|i| is_valid(&branches.nodes[i], value));
    }
    if one {
        let mut matching = branches.nodes.iter().filter(|b| is_valid(b, value));
        matching.next().is_some() && matching.next().is_none()
    } else {
        branches.nodes.iter().any(|b| is_valid(b, value))
    }
}

/// Whether `value` satisfies `node`.
#[inline]
pub(crate) fn is_valid<'a, I: Instance<'a>>(node: &Node, value: I) -> bool {
    if let Some(bits) = node.only_type {
        return value.bits() & bits != 0;
    }
    node.checks.iter().all(|check| check_valid(check, value))
}

fn number_ok<'a, I: Instance<'a>>(value: I, bound: &Bound, ok: fn(Ordering) -> bool) -> bool {
    value.number().is_none_or(|n| ok(compare(n, bound)))
}

/// Whether `value` passes one check.
pub(crate) fn check_valid<'a, I: Instance<'a>>(check: &Check, value: I) -> bool {
    match check {
        Check::Type(bits, _) => value.bits() & bits != 0,
        Check::Const(expected) => value.equals(expected),
        Check::Enum(_, Some(strings)) => value.as_str().is_some_and(|s| {
            let key = Key::of(s);
            strings
                .iter()
                .any(|(words, option)| key.matches(*words, s, option))
        }),
        Check::Enum(options, None) => options
            .as_array()
            .is_some_and(|options| options.iter().any(|o| value.equals(o))),
        Check::Minimum(b) => number_ok(value, b, Ordering::is_ge),
        Check::Maximum(b) => number_ok(value, b, Ordering::is_le),
        Check::ExclusiveMinimum(b) => number_ok(value, b, Ordering::is_gt),
        Check::ExclusiveMaximum(b) => number_ok(value, b, Ordering::is_lt),
        Check::MinLength(limit) => value.as_str().is_none_or(|s| at_least_chars(s, *limit)),
        Check::MaxLength(limit) => value.as_str().is_none_or(|s| at_most_chars(s, *limit)),
        Check::MinItems(limit) => value.items().is_none_or(|(n, _)| n as u64 >= *limit),
        Check::MaxItems(limit) => value.items().is_none_or(|(n, _)| n as u64 <= *limit),
        Check::Required { names, fused } => {
            *fused
                || value.entries().is_none()
                || names.iter().all(|n| {
                    value
                        .entries()
                        .is_some_and(|mut entries| entries.any(|(k, _)| k == &**n))
                })
        }
        Check::Pattern(pattern) => value.as_str().is_none_or(|s| pattern.is_match(s)),
        Check::Format(_, validator) => value.as_str().is_none() || value.format_ok(validator),
        Check::Object(object) => value
            .entries()
            .is_none_or(|entries| object_valid(object, value, entries)),
        Check::Items(items) => value
            .items()
            .is_none_or(|(_, mut all)| all.all(|item| is_valid(items, item))),
        Check::AllOf(branches) => branches.iter().all(|b| is_valid(b, value)),
        Check::AnyOf(branches) => branches_valid(branches, value, false),
        Check::OneOf(branches) => branches_valid(branches, value, true),
        Check::Not(negated, _) => !is_valid(negated, value),
        Check::IfThenElse(rule) => {
            let branch = if is_valid(&rule.condition, value) {
                rule.then.as_ref()
            } else {
                rule.otherwise.as_ref()
            };
            branch.is_none_or(|b| is_valid(b, value))
        }
    }
}

/// Entries whose property index the object pass remembers between its two loops (an object
/// with more entries looks the rest up again).
const REMEMBERED: usize = 32;

/// Marks an entry that matches no declared property.
const UNDECLARED: u16 = u16::MAX;

/// `properties`, `additionalProperties` and `required` over one object, in two loops.
///
/// The first reads only the names: it matches each against the declared ones, rejects an
/// undeclared name under `additionalProperties: false` and checks `required`, so that an
/// instance with a structural defect fails before any value is looked at (as ajv's
/// generated code does). The second loop validates the values of declared names with the
/// matches of the first, walking the values alone (no names decoded again); an object of
/// more than [`REMEMBERED`] entries matches its names again instead.
fn object_valid<'a, I: Instance<'a>>(object: &ObjectCheck, value: I, entries: I::Entries) -> bool {
    let mut seen = 0u64;
    let mut found = [UNDECLARED; REMEMBERED];
    let mut count = 0;
    for (k, (name, _)) in entries.clone().enumerate() {
        count = k + 1;
        match find(object, name) {
            Some(i) => {
                if let Some(slot) = found.get_mut(k) {
                    *slot = u16::try_from(i).unwrap_or(UNDECLARED);
                }
                if i < 64 {
                    seen |= 1 << i;
                }
            }
            None if object.deny_additional => return false,
            None => {}
        }
    }
    if seen & object.required_mask != object.required_mask
        || !object
            .required_extra
            .iter()
            .all(|name| entries.clone().any(|(k, _)| k == &**name))
    {
        return false;
    }
    // Every match remembered: walk the values alone, without decoding the names again.
    if count <= REMEMBERED
        && object.props.len() < usize::from(UNDECLARED)
        && let Some(values) = value.values()
    {
        return found.iter().zip(values).all(|(&i, item)| {
            i == UNDECLARED
                || object
                    .props
                    .get(usize::from(i))
                    .is_some_and(|(_, node)| is_valid(node, item))
        });
    }
    for (name, item) in entries {
        if let Some(i) = find(object, name)
            && !object
                .props
                .get(i)
                .is_some_and(|(_, node)| is_valid(node, item))
        {
            return false;
        }
    }
    true
}
