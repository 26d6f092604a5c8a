//! A compiled [`Node`] tree turned into a validation program for [`CompactJson`]
//! documents: each schema object becomes one [`Program`] node whose keywords are sorted by
//! the instance type they constrain (string, number, array, object rules; value sets;
//! combinators), so the run ([`super::run`]) tests the instance's type once and then only
//! the rules that apply to it, with no per-keyword dispatch.
//!
//! Keyword order does not matter for a yes/no answer (every keyword must hold), which is
//! what allows the regrouping; the error report keeps running on the [`Node`] tree. Other
//! foldings, each exact:
//!
//! - a string `const` or an all-string `enum` becomes a set of [`Name`]s (length and first
//!   eight bytes as integers, the rest compared only when those agree) and narrows the
//!   allowed types to `string`;
//! - `properties`, `additionalProperties: false` and `required` become one pass over the
//!   entries: names matched against the declared [`Name`]s, an undeclared one rejected at
//!   once, each value checked as it is reached, the required ones ticked off in a bitset;
//! - an `anyOf`/`oneOf` whose branches all require one property with distinct `const`s (the
//!   [`Discriminator`](super::Discriminator) the tree found) becomes a [`Switch`]: on an
//!   object, the property's value picks the only branch that can match.
//!
//! [`CompactJson`]: super::compact::CompactJson

use serde_json::Value;

use super::Bound;
use super::Branches;
use super::Check;
use super::Node;
use super::ObjectCheck;
use super::PatternCheck;
use super::compact::CompactJson;
use super::compact::TOKEN;
use super::types;

/// Every type bit.
const ANY_TYPE: u8 = types::NULL
    | types::BOOLEAN
    | types::INTEGER
    | types::NUMBER
    | types::STRING
    | types::ARRAY
    | types::OBJECT;

/// One schema object, its keywords grouped by what they constrain.
#[derive(Debug)]
pub(crate) struct Program {
    /// The allowed type bits (all of them without a `type` keyword).
    pub(crate) types: u8,
    /// Rules for a string instance.
    pub(crate) string: Option<Box<StringRules>>,
    /// Bounds for a number instance.
    pub(crate) numbers: Box<[NumberRule]>,
    /// Rules for an array instance.
    pub(crate) array: Option<Box<ArrayRules>>,
    /// Rules for an object instance.
    pub(crate) object: Option<Box<ObjectRules>>,
    /// `const`s and `enum`s that are not all strings: the instance equals a value of each.
    pub(crate) equals: Box<[Box<[Value]>]>,
    /// `allOf`, `anyOf`, `oneOf`, `not`, `if`.
    pub(crate) logic: Box<[Logic]>,
    /// Only `types` constrains the instance (every other part is empty).
    pub(crate) leaf: bool,
}

/// A name or string option in comparable form: its length and its first sixteen bytes as
/// two zero-padded words, so an instance string is compared by three integer comparisons
/// (no `memcmp` call up to 16 bytes).
#[derive(Debug)]
pub(crate) struct Name {
    /// Length in bytes.
    pub(crate) len: usize,
    /// Bytes 0..8, little-endian, zero-padded.
    pub(crate) head: u64,
    /// Bytes 8..16, little-endian, zero-padded.
    pub(crate) tail: u64,
    /// Keeps the bytes of a word read at a string of this length's start that are its own.
    pub(crate) head_mask: u64,
    /// The same for the word read eight bytes further.
    pub(crate) tail_mask: u64,
    /// The whole text.
    pub(crate) text: Box<str>,
}

/// The mask keeping the first `n` (up to eight) bytes of a little-endian word.
fn mask(n: usize) -> u64 {
    u64::MAX.checked_shr(64 - 8 * n.min(8) as u32).unwrap_or(0)
}

/// A string to look up: its length, the two words read at its start (which hold its first
/// sixteen bytes, and past its end whatever follows), and where to find all its bytes
/// (needed only past sixteen).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Probe<'a> {
    /// Length in bytes.
    pub(crate) len: usize,
    /// The word at the string's start.
    pub(crate) head: u64,
    /// The word eight bytes further.
    pub(crate) tail: u64,
    /// The document holding the string.
    pub(crate) doc: &'a CompactJson,
    /// The position of the string's token.
    pub(crate) at: usize,
}

impl Probe<'_> {
    /// The two words with only the string's own bytes, as [`Name`] holds them.
    #[inline]
    fn words(&self) -> (u64, u64) {
        (
            self.head & mask(self.len),
            self.tail & mask(self.len.saturating_sub(8)),
        )
    }

    /// All the string's bytes.
    #[inline]
    pub(crate) fn bytes(&self) -> &[u8] {
        let start = self.at + TOKEN;
        self.doc
            .buf
            .get(start..start + self.len)
            .unwrap_or_default()
    }
}

impl Name {
    /// The comparable form of `text`.
    pub(crate) fn of(text: &str) -> Name {
        let bytes = text.as_bytes();
        let word = |from: usize| {
            let mut chunk = [0u8; 8];
            for (slot, byte) in chunk.iter_mut().zip(bytes.iter().skip(from)) {
                *slot = *byte;
            }
            u64::from_le_bytes(chunk)
        };
        Name {
            len: bytes.len(),
            head: word(0),
            tail: word(8),
            head_mask: mask(bytes.len()),
            tail_mask: mask(bytes.len().saturating_sub(8)),
            text: text.into(),
        }
    }

    /// Whether `probe` is this name.
    #[inline]
    pub(crate) fn matches(&self, probe: Probe<'_>) -> bool {
        self.head == probe.head & self.head_mask
            && self.tail == probe.tail & self.tail_mask
            && self.len == probe.len
            && (probe.len <= 16 || probe.bytes() == self.text.as_bytes())
    }

    #[inline(always)]
    fn hash(len: usize, head: u64, tail: u64, seed: u64) -> u64 {
        (head ^ tail.rotate_left(31) ^ len as u64).wrapping_mul(seed)
    }
}

/// A set of names with a collision-free hash (a tiny perfect hash found at compile time):
/// a lookup is one multiply and one slot holding the only name that can have that hash,
/// compared in place.
#[derive(Debug)]
pub(crate) struct NameTable {
    /// The names, in schema order.
    pub(crate) names: Box<[Name]>,
    /// `slots[hash >> shift]`; empty when no seed separated the names (then they are
    /// scanned).
    slots: Box<[Slot]>,
    seed: u64,
    shift: u32,
}

/// One slot of a [`NameTable`]: a copy of its name's words, and the name's index.
#[derive(Debug, Clone, Copy)]
struct Slot {
    head: u64,
    tail: u64,
    /// `u32::MAX` for an empty slot (no string is that long).
    len: u32,
    index: u32,
}

const EMPTY: Slot = Slot {
    head: 0,
    tail: 0,
    len: u32::MAX,
    index: u32::MAX,
};

/// Odd multipliers to try, from a splitmix sequence.
fn seeds() -> impl Iterator<Item = u64> {
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    std::iter::repeat_with(move || {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        (z ^ (z >> 31)) | 1
    })
}

impl NameTable {
    /// The table of `names`.
    pub(crate) fn new(names: Vec<Name>) -> NameTable {
        let n = names.len();
        let fallback = |names: Vec<Name>| NameTable {
            names: names.into(),
            slots: Box::new([]),
            seed: 0,
            shift: 0,
        };
        let (Ok(count), true) = (u32::try_from(n), n >= 2) else {
            return fallback(names);
        };
        let min_bits = u32::BITS - (count - 1).leading_zeros();
        for bits in min_bits..=(min_bits + 3).min(16) {
            let shift = 64 - bits;
            for seed in seeds().take(256) {
                let mut slots = vec![EMPTY; 1 << bits];
                let distinct = names.iter().enumerate().all(|(i, name)| {
                    let slot = (Name::hash(name.len, name.head, name.tail, seed) >> shift) as usize;
                    match (slots.get_mut(slot), u32::try_from(name.len)) {
                        (Some(s), Ok(len)) if s.len == u32::MAX => {
                            *s = Slot {
                                head: name.head,
                                tail: name.tail,
                                len,
                                index: i as u32,
                            };
                            true
                        }
                        _ => false,
                    }
                });
                if distinct {
                    return NameTable {
                        names: names.into(),
                        slots: slots.into(),
                        seed,
                        shift,
                    };
                }
            }
        }
        fallback(names)
    }

    /// The index of the name `probe` is, trying `guess` first (the name after the last
    /// one found: instances mostly list names in the schema's order).
    #[inline(always)]
    pub(crate) fn find_from(&self, probe: Probe<'_>, guess: usize) -> Option<usize> {
        if self
            .names
            .get(guess)
            .is_some_and(|name| name.matches(probe))
        {
            return Some(guess);
        }
        self.find(probe)
    }

    /// The index of the name `probe` is.
    #[inline(always)]
    pub(crate) fn find(&self, probe: Probe<'_>) -> Option<usize> {
        if self.slots.is_empty() {
            return self.names.iter().position(|name| name.matches(probe));
        }
        let (head, tail) = probe.words();
        let hash = Name::hash(probe.len, head, tail, self.seed);
        let slot = self.slots.get((hash >> self.shift) as usize)?;
        if slot.head != head || slot.tail != tail || slot.len as usize != probe.len {
            return None;
        }
        let index = slot.index as usize;
        let whole = probe.len <= 16
            || self
                .names
                .get(index)
                .is_some_and(|name| probe.bytes() == name.text.as_bytes());
        whole.then_some(index)
    }
}

/// What a string instance must satisfy.
#[derive(Debug)]
pub(crate) struct StringRules {
    /// `minLength` (characters; 0 when absent).
    pub(crate) min_chars: u64,
    /// `maxLength` (characters; `u64::MAX` when absent).
    pub(crate) max_chars: u64,
    /// `pattern`.
    pub(crate) pattern: Option<Box<PatternCheck>>,
    /// `format`: the reference engine's validator for it.
    pub(crate) format: Option<Box<jsonschema::Validator>>,
    /// String `const`/`enum` sets: the string is one of each.
    pub(crate) options: Vec<NameTable>,
}

/// Which comparison a [`NumberRule`] makes.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Compare {
    /// `minimum`.
    AtLeast,
    /// `maximum`.
    AtMost,
    /// `exclusiveMinimum`.
    Above,
    /// `exclusiveMaximum`.
    Below,
}

/// One numeric bound.
#[derive(Debug)]
pub(crate) struct NumberRule {
    /// The bound.
    pub(crate) bound: Bound,
    /// How the instance compares to it.
    pub(crate) compare: Compare,
}

/// What an array instance must satisfy.
#[derive(Debug)]
pub(crate) struct ArrayRules {
    /// `minItems` (0 when absent).
    pub(crate) min_items: u64,
    /// `maxItems` (`u64::MAX` when absent).
    pub(crate) max_items: u64,
    /// `items`.
    pub(crate) items: Option<Program>,
}

/// What an object instance must satisfy.
#[derive(Debug)]
pub(crate) struct ObjectRules {
    /// Declared property names in schema order.
    pub(crate) names: NameTable,
    /// The program of each declared property, in the same order.
    pub(crate) props: Box<[Program]>,
    /// `additionalProperties: false`.
    pub(crate) deny_additional: bool,
    /// Bits of `props` indices that `required` names (first 64 only).
    pub(crate) required_mask: u64,
    /// Required names not covered by `required_mask`.
    pub(crate) required_extra: Box<[Name]>,
    /// How many distinct names are required (an object has at least that many entries).
    pub(crate) required_count: usize,
    /// Some declared property's value is costly to check (an object or a combinator): an object lacking a declared name then has its names checked
    /// (`required`, `additionalProperties: false`) before its values, so that a missing or
    /// undeclared name fails at once rather than after the costly values.
    pub(crate) names_first: bool,
    /// Entry counts from `usual.0` to `usual.1` need no check beyond the pass over the
    /// entries; any other count is checked first (too few entries for `required`, too many
    /// for `additionalProperties: false`, or names to check first; see [`Self::settle`]).
    pub(crate) usual: (usize, usize),
}

impl ObjectRules {
    /// Derives `required_count` and `usual` from the rest.
    fn settle(&mut self) {
        self.required_count = required_count(self);
        let most = if self.deny_additional {
            self.props.len()
        } else {
            usize::MAX
        };
        let least = if self.names_first {
            self.required_count.max(self.props.len())
        } else {
            self.required_count
        };
        // With `least > most` no count is usual: every one is checked.
        self.usual = if least <= most {
            (least, most)
        } else {
            (usize::MAX, 0)
        };
    }
}

/// A combinator.
#[derive(Debug)]
pub(crate) enum Logic {
    /// `allOf`.
    AllOf(Box<[Program]>),
    /// `anyOf` (`one == false`) or `oneOf` (`one == true`).
    Branches {
        /// The branches.
        branches: Box<[Program]>,
        /// `oneOf`.
        one: bool,
    },
    /// A discriminated `anyOf`/`oneOf`.
    Switch(Box<Switch>),
    /// `not`.
    Not(Box<Program>),
    /// `if` with `then` and/or `else`.
    Condition(Box<Condition>),
}

/// An `anyOf`/`oneOf` whose every branch requires property `key` to equal its own
/// distinct `const`: on an object, at most the branch whose constant the value equals can
/// match (every other one fails on that property).
#[derive(Debug)]
pub(crate) struct Switch {
    /// The property.
    pub(crate) key: Name,
    /// The constant of each branch.
    pub(crate) values: Box<[Value]>,
    /// The same constants as [`Name`]s, when all are strings.
    pub(crate) strings: Option<NameTable>,
    /// The branches.
    pub(crate) branches: Box<[Program]>,
    /// `oneOf` (for instances that are not objects, where every branch is tried).
    pub(crate) one: bool,
}

/// `if`/`then`/`else`.
#[derive(Debug)]
pub(crate) struct Condition {
    /// `if`.
    pub(crate) condition: Program,
    /// `then`.
    pub(crate) then: Option<Program>,
    /// `else`.
    pub(crate) otherwise: Option<Program>,
}

impl Program {
    /// The program of a compiled schema object.
    pub(crate) fn build(node: Node) -> Program {
        let mut types = ANY_TYPE;
        let mut string: Option<Box<StringRules>> = None;
        let mut numbers = Vec::new();
        let mut array: Option<Box<ArrayRules>> = None;
        let mut object: Option<Box<ObjectRules>> = None;
        let mut equals = Vec::new();
        let mut logic = Vec::new();
        for check in node.checks {
            match check {
                Check::Type(bits, _) => types &= bits,
                Check::Const(Value::String(text)) => {
                    types &= types::STRING;
                    string_rules(&mut string)
                        .options
                        .push(NameTable::new(vec![Name::of(&text)]));
                }
                Check::Const(value) => equals.push(Box::from([value])),
                Check::Enum(_, Some(options)) => {
                    types &= types::STRING;
                    string_rules(&mut string).options.push(NameTable::new(
                        options.iter().map(|(_, text)| Name::of(text)).collect(),
                    ));
                }
                Check::Enum(Value::Array(options), None) => equals.push(options.into()),
                // Not an array: no value is among its options.
                Check::Enum(_, None) => equals.push(Box::from([])),
                Check::Minimum(bound) => numbers.push(NumberRule {
                    bound,
                    compare: Compare::AtLeast,
                }),
                Check::Maximum(bound) => numbers.push(NumberRule {
                    bound,
                    compare: Compare::AtMost,
                }),
                Check::ExclusiveMinimum(bound) => numbers.push(NumberRule {
                    bound,
                    compare: Compare::Above,
                }),
                Check::ExclusiveMaximum(bound) => numbers.push(NumberRule {
                    bound,
                    compare: Compare::Below,
                }),
                Check::MinLength(limit) => {
                    let rules = string_rules(&mut string);
                    rules.min_chars = rules.min_chars.max(limit);
                }
                Check::MaxLength(limit) => {
                    let rules = string_rules(&mut string);
                    rules.max_chars = rules.max_chars.min(limit);
                }
                Check::MinItems(limit) => {
                    let rules = array_rules(&mut array);
                    rules.min_items = rules.min_items.max(limit);
                }
                Check::MaxItems(limit) => {
                    let rules = array_rules(&mut array);
                    rules.max_items = rules.max_items.min(limit);
                }
                // A fused `required` is checked by the object's own pass.
                Check::Required { fused: true, .. } => {}
                Check::Required {
                    names,
                    fused: false,
                } => {
                    let rules = object.get_or_insert_with(|| {
                        Box::new(ObjectRules {
                            names: NameTable::new(Vec::new()),
                            props: Box::new([]),
                            deny_additional: false,
                            required_mask: 0,
                            required_extra: Box::new([]),
                            required_count: 0,
                            names_first: false,
                            usual: (0, usize::MAX),
                        })
                    });
                    let mut extra = std::mem::take(&mut rules.required_extra).into_vec();
                    extra.extend(names.iter().map(|name| Name::of(name)));
                    rules.required_extra = extra.into();
                    rules.settle();
                }
                Check::Pattern(pattern) => string_rules(&mut string).pattern = Some(pattern),
                Check::Format(_, validator) => string_rules(&mut string).format = Some(validator),
                Check::Object(check) => {
                    let built = object_rules(*check);
                    let mut rules = match object.take() {
                        // An unfused `required` seen first (not produced by the compiler,
                        // which fuses it whenever `properties` is present): keep both.
                        Some(previous) => ObjectRules {
                            required_extra: previous
                                .required_extra
                                .into_vec()
                                .into_iter()
                                .chain(built.required_extra.into_vec())
                                .collect(),
                            ..built
                        },
                        None => built,
                    };
                    rules.settle();
                    object = Some(Box::new(rules));
                }
                Check::Items(items) => array_rules(&mut array).items = Some(Program::build(*items)),
                Check::AllOf(nodes) => logic.push(Logic::AllOf(build_all(nodes))),
                Check::AnyOf(branches) => logic.push(choice(branches, false)),
                Check::OneOf(branches) => logic.push(choice(branches, true)),
                Check::Not(negated, _) => {
                    logic.push(Logic::Not(Box::new(Program::build(*negated))))
                }
                Check::IfThenElse(rule) => {
                    let rule = *rule;
                    logic.push(Logic::Condition(Box::new(Condition {
                        condition: Program::build(rule.condition),
                        then: rule.then.map(Program::build),
                        otherwise: rule.otherwise.map(Program::build),
                    })));
                }
            }
        }
        let leaf = string.is_none()
            && numbers.is_empty()
            && array.is_none()
            && object.is_none()
            && equals.is_empty()
            && logic.is_empty();
        Program {
            types,
            string,
            numbers: numbers.into(),
            array,
            object,
            equals: equals.into(),
            logic: logic.into(),
            leaf,
        }
    }
}

fn string_rules(string: &mut Option<Box<StringRules>>) -> &mut StringRules {
    string.get_or_insert_with(|| {
        Box::new(StringRules {
            min_chars: 0,
            max_chars: u64::MAX,
            pattern: None,
            format: None,
            options: Vec::new(),
        })
    })
}

fn array_rules(array: &mut Option<Box<ArrayRules>>) -> &mut ArrayRules {
    array.get_or_insert_with(|| {
        Box::new(ArrayRules {
            min_items: 0,
            max_items: u64::MAX,
            items: None,
        })
    })
}

fn build_all(nodes: Vec<Node>) -> Box<[Program]> {
    nodes.into_iter().map(Program::build).collect()
}

/// How many distinct names `rules` requires: the declared ones in the mask, and the
/// others once each (a name both in the mask and among the others counts once).
fn required_count(rules: &ObjectRules) -> usize {
    let mut extra: Vec<&str> = rules
        .required_extra
        .iter()
        .map(|name| &*name.text)
        .filter(|text| {
            !rules
                .names
                .names
                .iter()
                .take(64)
                .enumerate()
                .any(|(i, declared)| &*declared.text == *text && rules.required_mask >> i & 1 == 1)
        })
        .collect();
    extra.sort_unstable();
    extra.dedup();
    rules.required_mask.count_ones() as usize + extra.len()
}

fn object_rules(check: ObjectCheck) -> ObjectRules {
    let (names, props): (Vec<Name>, Vec<Program>) = check
        .props
        .into_iter()
        .map(|(name, node)| (Name::of(&name), Program::build(node)))
        .unzip();
    let names_first = props
        .iter()
        .any(|p| p.object.is_some() || !p.logic.is_empty());
    ObjectRules {
        names_first,
        names: NameTable::new(names),
        props: props.into(),
        deny_additional: check.deny_additional,
        required_mask: check.required_mask,
        required_extra: check
            .required_extra
            .iter()
            .map(|name| Name::of(name))
            .collect(),
        required_count: 0,
        usual: (0, usize::MAX),
    }
}

fn choice(branches: Branches, one: bool) -> Logic {
    let programs = build_all(branches.nodes);
    match branches.discriminator {
        Some(d) => {
            let strings = d
                .values
                .iter()
                .map(|v| v.as_str().map(Name::of))
                .collect::<Option<Vec<Name>>>()
                .map(NameTable::new);
            Logic::Switch(Box::new(Switch {
                key: Name::of(&d.key),
                values: d.values.into(),
                strings,
                branches: programs,
                one,
            }))
        }
        None => Logic::Branches {
            branches: programs,
            one,
        },
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use proptest::prelude::*;

    use super::Name;
    use super::NameTable;
    use super::Probe;
    use crate::native::compact::CompactJson;
    use crate::native::compact::TOKEN;

    const NAMES: [&str; 12] = [
        "",
        "a",
        "action",
        "selector",
        "selectors",
        "expectedElements",
        "expectedElementsX",
        "expectedElementsY",
        "a name longer than sixteen bytes",
        "a name longer than sixteen bytez",
        "é",
        "url",
    ];

    /// Looks up `text` (as a string inside a document, as the run does) in `table`.
    fn lookup(table: &NameTable, text: &str) -> Option<usize> {
        let document = CompactJson::parse(serde_json::json!([text]).to_string()).unwrap();
        let at = TOKEN;
        let token = document.token(at).unwrap();
        let probe = Probe {
            len: token.len() as usize,
            head: document.word(at + TOKEN).unwrap(),
            tail: document.word(at + 2 * TOKEN).unwrap(),
            doc: &document,
            at,
        };
        let found = table.find(probe);
        assert_eq!(found, table.find_from(probe, 0));
        assert_eq!(found, table.find_from(probe, 3));
        found
    }

    #[test]
    fn tables_find_exactly_their_names() {
        for n in 0..=NAMES.len() {
            let table = NameTable::new(NAMES[..n].iter().map(|s| Name::of(s)).collect());
            for (i, name) in NAMES.iter().enumerate() {
                let expected = (i < n).then_some(i);
                assert_eq!(lookup(&table, name), expected, "{name:?} among {n}");
            }
        }
    }

    #[test]
    fn a_perfect_hash_is_found_unless_two_names_share_length_and_sixteen_bytes() {
        let without_twin = NAMES
            .iter()
            .filter(|n| !n.ends_with("bytez") && !n.ends_with("ElementsY"));
        let table = NameTable::new(without_twin.map(|s| Name::of(s)).collect());
        assert!(!table.slots.is_empty());
        // These two hash alike whatever the seed: the table scans (and stays exact, as
        // `tables_find_exactly_their_names` checks).
        let table = NameTable::new(NAMES.iter().map(|s| Name::of(s)).collect());
        assert!(table.slots.is_empty());
    }

    proptest! {
        #[test]
        fn tables_reject_other_strings(text in "[a-zé\" ]{0,20}") {
            let table = NameTable::new(NAMES.iter().map(|s| Name::of(s)).collect());
            prop_assert_eq!(lookup(&table, &text), NAMES.iter().position(|n| *n == text));
        }
    }
}
