//! Mutations of valid files: byte-level (overwrite, insert a token, delete, truncate, splice
//! in part of another file) and structure-aware for JSON (replace a value by an awkward one,
//! remove, duplicate or move a value, rename a key, nest a value deeply). Each mutation is a
//! proptest value, so a failing input shrinks to the fewest, simplest edits.

use proptest::prelude::*;
use proptest::sample::Index;
use serde_json::Value;

/// Byte strings that mean something to a JSON or TOML reader, or to retrace's fields.
const TOKENS: &[&[u8]] = &[
    b"{",
    b"}",
    b"[",
    b"]",
    b"\"",
    b",",
    b":",
    b"=",
    b"[[",
    b"]]",
    b"'''",
    b"\"\"\"",
    b"\n",
    b"\r",
    b"\\u0000",
    b"\\ud800",
    b"\xEF\xBB\xBF",
    b"\xFF\xFE",
    b"\xC3",
    b"{{",
    b"}}",
    b"{{unclosed",
    b"-",
    b"1e999",
    b"-0",
    b"null",
    b"true",
    b"#",
    b"\t",
    b"\0",
];

/// One edit of a file's bytes.
#[derive(Debug, Clone)]
pub enum ByteEdit {
    Overwrite(Index, u8),
    Insert(Index, usize),
    Delete(Index, usize),
    Truncate(Index),
    /// Inserts `len` bytes of corpus file `file` from `from` at `at`.
    Splice {
        file: Index,
        from: Index,
        len: usize,
        at: Index,
    },
}

pub fn byte_edit() -> impl Strategy<Value = ByteEdit> {
    prop_oneof![
        (any::<Index>(), any::<u8>()).prop_map(|(at, byte)| ByteEdit::Overwrite(at, byte)),
        (any::<Index>(), 0..TOKENS.len()).prop_map(|(at, token)| ByteEdit::Insert(at, token)),
        (any::<Index>(), 1usize..64).prop_map(|(at, len)| ByteEdit::Delete(at, len)),
        any::<Index>().prop_map(ByteEdit::Truncate),
        (any::<Index>(), any::<Index>(), 1usize..256, any::<Index>()).prop_map(
            |(file, from, len, at)| ByteEdit::Splice {
                file,
                from,
                len,
                at
            }
        ),
    ]
}

/// `bytes` with `edits` applied in order; `corpus` is what a splice takes from.
pub fn apply_bytes(mut bytes: Vec<u8>, edits: &[ByteEdit], corpus: &[Vec<u8>]) -> Vec<u8> {
    for edit in edits {
        let at = |index: &Index, len: usize| if len == 0 { 0 } else { index.index(len + 1) };
        match edit {
            ByteEdit::Overwrite(index, byte) if !bytes.is_empty() => {
                let at = index.index(bytes.len());
                bytes[at] = *byte;
            }
            ByteEdit::Overwrite(..) => {}
            ByteEdit::Insert(index, token) => {
                let at = at(index, bytes.len());
                bytes.splice(at..at, TOKENS[*token].iter().copied());
            }
            ByteEdit::Delete(index, len) => {
                let start = at(index, bytes.len());
                let end = (start + len).min(bytes.len());
                bytes.drain(start..end);
            }
            ByteEdit::Truncate(index) => bytes.truncate(at(index, bytes.len())),
            ByteEdit::Splice {
                file,
                from,
                len,
                at: to,
            } => {
                let source = &corpus[file.index(corpus.len())];
                let start = at(from, source.len());
                let end = (start + len).min(source.len());
                let to = at(to, bytes.len());
                bytes.splice(to..to, source[start..end].iter().copied());
            }
        }
    }
    bytes
}

/// Values that readers get wrong: wrong types, extremes, placeholders, long and odd text.
pub fn awkward_values() -> Vec<Value> {
    use serde_json::json;
    vec![
        Value::Null,
        json!(true),
        json!(-1),
        json!(0),
        json!(-5),
        json!(99999),
        json!(i64::MIN),
        json!(u64::MAX),
        json!(0.5),
        json!(-1e308),
        json!(1e308),
        json!(""),
        json!(" "),
        json!("zz"),
        json!("{{unclosed"),
        json!("{{unknown}}"),
        json!("{{ }}"),
        json!("teleport"),
        json!("/"),
        json!("\u{0}"),
        json!("\u{202e}é\u{fffd}"),
        json!("ffffffffffffffff"),
        json!("-1x-1"),
        json!("a".repeat(1000)),
        json!(format!("/{}", "a".repeat(1000))),
        json!("x".repeat(100_000)),
        json!([]),
        json!({}),
        json!([-5, 99999]),
        json!([1.5, "a", null]),
        json!({"x": -1, "y": 1e308}),
    ]
}

/// Keys to rename a key to: retrace's own field names, and ones it does not know.
const KEYS: &[&str] = &[
    "action",
    "text",
    "coordinate",
    "input",
    "name",
    "id",
    "type",
    "metadata",
    "trajectory",
    "version",
    "visual_representation",
    "toolset_name",
    "path",
    "pages",
    "masks",
    "tests",
    "status",
    "browser",
    "fonts",
    "",
    "x",
    "__proto__",
];

/// One structure-aware edit of a JSON document; `Index`es pick among its values in order.
#[derive(Debug, Clone)]
pub enum TreeEdit {
    Replace(Index, usize),
    Remove(Index),
    Duplicate(Index),
    CopyOver { from: Index, to: Index },
    RenameKey(Index, usize),
    Nest(Index, usize),
}

pub fn tree_edit() -> impl Strategy<Value = TreeEdit> {
    let values = awkward_values().len();
    prop_oneof![
        4 => (any::<Index>(), 0..values).prop_map(|(at, value)| TreeEdit::Replace(at, value)),
        2 => any::<Index>().prop_map(TreeEdit::Remove),
        1 => any::<Index>().prop_map(TreeEdit::Duplicate),
        1 => (any::<Index>(), any::<Index>()).prop_map(|(from, to)| TreeEdit::CopyOver { from, to }),
        1 => (any::<Index>(), 0..KEYS.len()).prop_map(|(at, key)| TreeEdit::RenameKey(at, key)),
        1 => (any::<Index>(), 1usize..300).prop_map(|(at, depth)| TreeEdit::Nest(at, depth)),
    ]
}

/// A value's place in a document: the keys and indices from the root.
#[derive(Debug, Clone)]
enum Step {
    Key(String),
    Item(usize),
}

/// Every value's place, in document order (the root first).
fn places(value: &Value) -> Vec<Vec<Step>> {
    fn walk(value: &Value, here: &mut Vec<Step>, out: &mut Vec<Vec<Step>>) {
        out.push(here.clone());
        match value {
            Value::Object(map) => {
                for (key, child) in map {
                    here.push(Step::Key(key.clone()));
                    walk(child, here, out);
                    here.pop();
                }
            }
            Value::Array(items) => {
                for (index, child) in items.iter().enumerate() {
                    here.push(Step::Item(index));
                    walk(child, here, out);
                    here.pop();
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(value, &mut Vec::new(), &mut out);
    out
}

fn at_mut<'a>(value: &'a mut Value, place: &[Step]) -> Option<&'a mut Value> {
    place.iter().try_fold(value, |value, step| match step {
        Step::Key(key) => value.get_mut(key.as_str()),
        Step::Item(index) => value.get_mut(*index),
    })
}

/// `document` with `edits` applied in order (an edit whose place is gone does nothing).
pub fn apply_tree(mut document: Value, edits: &[TreeEdit]) -> Value {
    let values = awkward_values();
    for edit in edits {
        let all = places(&document);
        let pick = |index: &Index| all[index.index(all.len())].clone();
        match edit {
            TreeEdit::Replace(at, value) => {
                if let Some(slot) = at_mut(&mut document, &pick(at)) {
                    *slot = values[*value].clone();
                }
            }
            TreeEdit::Remove(at) => {
                let place = pick(at);
                if let Some((last, parent)) = place.split_last()
                    && let Some(parent) = at_mut(&mut document, parent)
                {
                    match (last, parent) {
                        (Step::Key(key), Value::Object(map)) => {
                            map.shift_remove(key);
                        }
                        (Step::Item(index), Value::Array(items)) if *index < items.len() => {
                            items.remove(*index);
                        }
                        _ => {}
                    }
                }
            }
            TreeEdit::Duplicate(at) => {
                let place = pick(at);
                if let Some((last, parent)) = place.split_last()
                    && let Some(parent) = at_mut(&mut document, parent)
                {
                    match (last, parent) {
                        (Step::Key(key), Value::Object(map)) => {
                            if let Some(copy) = map.get(key).cloned() {
                                map.insert(format!("{key}_"), copy);
                            }
                        }
                        (Step::Item(index), Value::Array(items)) if *index < items.len() => {
                            let copy = items[*index].clone();
                            items.insert(*index, copy);
                        }
                        _ => {}
                    }
                }
            }
            TreeEdit::CopyOver { from, to } => {
                let copy = at_mut(&mut document, &pick(from)).map(|value| value.clone());
                if let (Some(copy), Some(slot)) = (copy, at_mut(&mut document, &pick(to))) {
                    *slot = copy;
                }
            }
            TreeEdit::RenameKey(at, key) => {
                let place = pick(at);
                if let Some((Step::Key(old), parent)) = place.split_last()
                    && let Some(Value::Object(map)) = at_mut(&mut document, parent)
                    && let Some(value) = map.shift_remove(old)
                {
                    map.insert(KEYS[*key].to_owned(), value);
                }
            }
            TreeEdit::Nest(at, depth) => {
                if let Some(slot) = at_mut(&mut document, &pick(at)) {
                    let mut nested = slot.take();
                    for _ in 0..*depth {
                        nested = Value::Array(vec![nested]);
                    }
                    *slot = nested;
                }
            }
        }
    }
    document
}
