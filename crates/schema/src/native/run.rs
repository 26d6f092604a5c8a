//! Runs a [`Program`] over a [`CompactJson`] document: does the document satisfy it? No
//! allocation, first failure wins, tokens and strings read front to back.

use std::cmp::Ordering;

use super::compact::CompactJson;
use super::compact::TOKEN;
use super::compact::Token;
use super::compact::kind;
use super::compact_ref::CompactValue;
use super::compact_ref::bits_of;
use super::program::ArrayRules;
use super::program::Compare;
use super::program::Logic;
use super::program::Name;
use super::program::ObjectRules;
use super::program::Probe;
use super::program::Program;
use super::program::StringRules;
use super::program::Switch;
use super::walk::compare;

/// Whether the value at position `at` of `document` (free of repeated keys) satisfies
/// `program`.
pub(crate) fn is_valid(program: &Program, document: &CompactJson, at: usize) -> bool {
    let Some(token) = document.token(at) else {
        return false;
    };
    valid(program, document, at, token)
}

/// A string as a [`Probe`]: its length and the two words after its token (its first
/// sixteen bytes; past its end, padding or the next tokens, which lookups mask off).
#[inline]
fn probe(doc: &CompactJson, at: usize, token: Token) -> Probe<'_> {
    Probe {
        len: token.len() as usize,
        head: doc.word(at + TOKEN).unwrap_or(0),
        tail: doc.word(at + 2 * TOKEN).unwrap_or(0),
        doc,
        at,
    }
}

/// The number of characters (code points) in UTF-8 `bytes`: the bytes that do not
/// continue a character.
fn chars(bytes: &[u8]) -> u64 {
    bytes.iter().filter(|&&b| (b as i8) >= -0x40).count() as u64
}

/// At least `limit` characters.
#[inline]
fn at_least_chars(bytes: &[u8], limit: u64) -> bool {
    let len = bytes.len() as u64;
    len >= limit && (len / 4 >= limit || chars(bytes) >= limit)
}

/// At most `limit` characters.
#[inline]
fn at_most_chars(bytes: &[u8], limit: u64) -> bool {
    bytes.len() as u64 <= limit || chars(bytes) <= limit
}

/// Whether the value at `at` (whose token is `token`) satisfies `program`: the type test
/// inline, the rest (when the program has more) out of line.
#[inline(always)]
fn valid(program: &Program, doc: &CompactJson, at: usize, token: Token) -> bool {
    bits_of(token.kind()) & program.types != 0
        && (program.leaf || rules_valid(program, doc, at, token))
}

/// The rules beyond the type test.
fn rules_valid(program: &Program, doc: &CompactJson, at: usize, token: Token) -> bool {
    let ok = match token.kind() {
        kind::STRING => program
            .string
            .as_deref()
            .is_none_or(|rules| string_valid(rules, doc, at, token)),
        kind::OBJECT => program
            .object
            .as_deref()
            .is_none_or(|rules| object_valid(rules, doc, at, token)),
        kind::ARRAY => program
            .array
            .as_deref()
            .is_none_or(|rules| array_valid(rules, doc, at, token)),
        kind::INTEGER | kind::FLOAT => {
            program.numbers.is_empty() || numbers_valid(program, doc, at)
        }
        _ => true,
    };
    ok && (program.equals.is_empty() || equals_valid(program, doc, at))
        && (program.logic.is_empty()
            || program.logic.iter().all(|l| logic_valid(l, doc, at, token)))
}

fn string_valid(rules: &StringRules, doc: &CompactJson, at: usize, token: Token) -> bool {
    if !rules.options.is_empty() {
        let probe = probe(doc, at, token);
        if !rules
            .options
            .iter()
            .all(|names| names.find(probe).is_some())
        {
            return false;
        }
    }
    let bytes = doc.bytes_at(at, token);
    (rules.min_chars == 0 || at_least_chars(bytes, rules.min_chars))
        && (rules.max_chars == u64::MAX || at_most_chars(bytes, rules.max_chars))
        && rules
            .pattern
            .as_ref()
            .is_none_or(|p| p.is_match_bytes(bytes))
        && rules
            .format
            .as_ref()
            .is_none_or(|f| CompactValue::at(doc, at).format_ok(f))
}

fn numbers_valid(program: &Program, doc: &CompactJson, at: usize) -> bool {
    let Some(n) = CompactValue::at(doc, at).number() else {
        return true;
    };
    program.numbers.iter().all(|rule| {
        let order = compare(n, &rule.bound);
        match rule.compare {
            Compare::AtLeast => order != Ordering::Less,
            Compare::AtMost => order != Ordering::Greater,
            Compare::Above => order == Ordering::Greater,
            Compare::Below => order == Ordering::Less,
        }
    })
}

fn equals_valid(program: &Program, doc: &CompactJson, at: usize) -> bool {
    let value = CompactValue::at(doc, at);
    program
        .equals
        .iter()
        .all(|options| options.iter().any(|o| value.equals(o)))
}

fn array_valid(rules: &ArrayRules, doc: &CompactJson, at: usize, token: Token) -> bool {
    let count = u64::from(token.len());
    if count < rules.min_items || count > rules.max_items {
        return false;
    }
    let Some(items) = &rules.items else {
        return true;
    };
    let mut i = at + TOKEN;
    for _ in 0..count {
        let Some(item) = doc.token(i) else {
            return false;
        };
        if !valid(items, doc, i, item) {
            return false;
        }
        i = item.next(i);
    }
    true
}

/// `properties`, `additionalProperties` and `required` over one object, in one pass over
/// the entries ([`walk_names`]): each declared value checked as it is reached, the required
/// names ticked off in a bitset and checked at the end.
fn object_valid(rules: &ObjectRules, doc: &CompactJson, at: usize, token: Token) -> bool {
    // Names are distinct here (a document with a repeated key does not come this way): an
    // object with fewer entries than required names, or with more than the declared ones
    // under `additionalProperties: false`, fails before any name is read.
    let count = token.len() as usize;
    if (count < rules.usual.0 || count > rules.usual.1)
        && !unusual_count_valid(rules, doc, at, count)
    {
        return false;
    }
    let Some(seen) = walk_names(rules, doc, at, count, |program, v| {
        doc.token(v)
            .is_some_and(|value| valid(program, doc, v, value))
    }) else {
        return false;
    };
    seen & rules.required_mask == rules.required_mask
        && rules
            .required_extra
            .iter()
            .all(|name| entry(doc, at, token, name).is_some())
}

/// For an object of `count` entries outside [`ObjectRules::usual`]: enough entries for
/// `required`, not too many for `additionalProperties: false`, and when some declared name
/// is absent (maybe a required one) and values are costly, the names checked first.
#[cold]
#[inline(never)]
fn unusual_count_valid(rules: &ObjectRules, doc: &CompactJson, at: usize, count: usize) -> bool {
    count >= rules.required_count
        && !(rules.deny_additional && count > rules.props.len())
        && (!rules.names_first || count >= rules.props.len() || names_valid(rules, doc, at, count))
}

/// The names of the object at `at` (of `count` entries) alone: every one declared under
/// `additionalProperties: false`, and every required declared name present (the required
/// names not declared are left to [`object_valid`]). Keys are visited from key to key,
/// their values skipped.
fn names_valid(rules: &ObjectRules, doc: &CompactJson, at: usize, count: usize) -> bool {
    walk_names(rules, doc, at, count, |_, _| true)
        .is_some_and(|seen| seen & rules.required_mask == rules.required_mask)
}

/// One pass over the `count` entries of the object at `at`: each name matched against the
/// declared ones (the one after the last match first, as instances mostly follow the
/// schema's order, else by a perfect hash), an undeclared one failing at once under
/// `additionalProperties: false`, and `on_declared(program, value position)` asked of each
/// declared one. The bitset of the declared names seen, or `None` when the object fails.
#[inline(always)]
fn walk_names(
    rules: &ObjectRules,
    doc: &CompactJson,
    at: usize,
    count: usize,
    mut on_declared: impl FnMut(&Program, usize) -> bool,
) -> Option<u64> {
    let mut seen = 0u64;
    let mut guess = 0;
    let mut i = at + TOKEN;
    for _ in 0..count {
        let (key, head, tail) = doc.token_and_words(i)?;
        let probe = Probe {
            len: key.len() as usize,
            head,
            tail,
            doc,
            at: i,
        };
        match rules.names.find_from(probe, guess) {
            Some(p) => {
                if p < 64 {
                    seen |= 1 << p;
                }
                guess = p + 1;
                if !rules
                    .props
                    .get(p)
                    .is_some_and(|program| on_declared(program, key.value_at(i)))
                {
                    return None;
                }
            }
            None if rules.deny_additional => return None,
            None => {}
        }
        // A key's `data` is the position of the next key.
        i = key.data as usize;
    }
    Some(seen)
}

/// The index of the value of entry `name` in the object at `at`.
fn entry(doc: &CompactJson, at: usize, token: Token, name: &Name) -> Option<usize> {
    let mut i = at + TOKEN;
    for _ in 0..token.len() {
        let key = doc.token(i)?;
        if name.matches(probe(doc, i, key)) {
            return Some(key.value_at(i));
        }
        i = key.data as usize;
    }
    None
}

fn logic_valid(logic: &Logic, doc: &CompactJson, at: usize, token: Token) -> bool {
    match logic {
        Logic::AllOf(all) => all.iter().all(|p| valid(p, doc, at, token)),
        Logic::Branches { branches, one } => branches_valid(branches, *one, doc, at, token),
        Logic::Switch(switch) => switch_valid(switch, doc, at, token),
        Logic::Not(negated) => !valid(negated, doc, at, token),
        Logic::Condition(rule) => {
            let branch = if valid(&rule.condition, doc, at, token) {
                rule.then.as_ref()
            } else {
                rule.otherwise.as_ref()
            };
            branch.is_none_or(|p| valid(p, doc, at, token))
        }
    }
}

fn branches_valid(
    branches: &[Program],
    one: bool,
    doc: &CompactJson,
    at: usize,
    token: Token,
) -> bool {
    if one {
        let mut matching = branches.iter().filter(|p| valid(p, doc, at, token));
        matching.next().is_some() && matching.next().is_none()
    } else {
        branches.iter().any(|p| valid(p, doc, at, token))
    }
}

fn switch_valid(switch: &Switch, doc: &CompactJson, at: usize, token: Token) -> bool {
    if token.kind() != kind::OBJECT {
        return branches_valid(&switch.branches, switch.one, doc, at, token);
    }
    // Every branch requires the property: without it, none matches.
    let Some(value_at) = entry(doc, at, token, &switch.key) else {
        return false;
    };
    let Some(value) = doc.token(value_at) else {
        return false;
    };
    let branch = match &switch.strings {
        Some(names) if value.kind() == kind::STRING => names.find(probe(doc, value_at, value)),
        // Every constant is a string and the value is not: no branch's `const` holds.
        Some(_) => None,
        None => {
            let value = CompactValue::at(doc, value_at);
            switch.values.iter().position(|c| value.equals(c))
        }
    };
    branch
        .and_then(|b| switch.branches.get(b))
        .is_some_and(|p| valid(p, doc, at, token))
}
