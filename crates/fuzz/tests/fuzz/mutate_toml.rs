//! Structure-aware mutations of TOML files, line by line (TOML's grammar is line-based):
//! remove, duplicate or swap lines, replace a `key = value` line's value by an awkward one,
//! rename its key, or insert a line (a table header, a key that does not belong).

use proptest::prelude::*;
use proptest::sample::Index;

/// Values that readers get wrong, as TOML text.
const VALUES: &[&str] = &[
    "-1",
    "0",
    "1e999",
    "nan",
    "-inf",
    "99999999999999999999",
    "0.0000001",
    "true",
    "\"\"",
    "\" \"",
    "\"x\"",
    "\"{{unclosed\"",
    "\"[[[\"",
    "\"**/[\"",
    "\"0x0\"",
    "\"10001x1\"",
    "\"fixed:-1\"",
    "\"fixed:1e999\"",
    "\"stable\"",
    "\"relative/path\"",
    "\"\\u0000\"",
    "[]",
    "[1, \"a\"]",
    "{}",
    "{ env = \"\" }",
    "{ env = \"PATH\" }",
    "1979-05-27T07:32:00Z",
    "'''\nmulti\n'''",
];

/// Lines to insert: headers, keys of other tables, keys nobody knows.
const LINES: &[&str] = &[
    "[defaults]",
    "[[files]]",
    "[[pages]]",
    "[parameters]",
    "[timeouts]",
    "[pages]",
    "match = \"**\"",
    "path = \"/\"",
    "jobs = 0",
    "retries = 4294967296",
    "threshold = -1",
    "step = 0",
    "password = \"hunter2\"",
    "secrets = [\"\"]",
    "a.b.c = 1",
    "x = 1",
    "= 1",
    "[",
];

/// One edit of a TOML file's lines (`Index`es pick a line).
#[derive(Debug, Clone)]
pub enum LineEdit {
    Remove(Index),
    Duplicate(Index),
    Swap(Index, Index),
    ReplaceValue(Index, usize),
    /// A value long enough to stress whoever keeps it (`/` first, so paths stay paths).
    LongValue(Index),
    RenameKey(Index),
    Insert(Index, usize),
}

pub fn line_edit() -> impl Strategy<Value = LineEdit> {
    prop_oneof![
        1 => any::<Index>().prop_map(LineEdit::Remove),
        1 => any::<Index>().prop_map(LineEdit::Duplicate),
        1 => (any::<Index>(), any::<Index>()).prop_map(|(a, b)| LineEdit::Swap(a, b)),
        4 => (any::<Index>(), 0..VALUES.len()).prop_map(|(at, v)| LineEdit::ReplaceValue(at, v)),
        1 => any::<Index>().prop_map(LineEdit::LongValue),
        1 => any::<Index>().prop_map(LineEdit::RenameKey),
        2 => (any::<Index>(), 0..LINES.len()).prop_map(|(at, line)| LineEdit::Insert(at, line)),
    ]
}

/// `text` with `edits` applied in order.
pub fn apply_lines(text: &str, edits: &[LineEdit]) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    for edit in edits {
        if lines.is_empty() {
            lines.push(String::new());
        }
        let pick = |index: &Index, len: usize| index.index(len);
        let len = lines.len();
        match edit {
            LineEdit::Remove(at) => {
                lines.remove(pick(at, len));
            }
            LineEdit::Duplicate(at) => {
                let at = pick(at, len);
                lines.insert(at, lines[at].clone());
            }
            LineEdit::Swap(a, b) => lines.swap(pick(a, len), pick(b, len)),
            LineEdit::ReplaceValue(at, value) => {
                let line = &mut lines[pick(at, len)];
                if let Some((key, _)) = line.split_once('=') {
                    *line = format!("{key}= {}", VALUES[*value]);
                }
            }
            LineEdit::LongValue(at) => {
                let line = &mut lines[pick(at, len)];
                if let Some((key, _)) = line.split_once('=') {
                    *line = format!("{key}= \"/{}\"", "a".repeat(1000));
                }
            }
            LineEdit::RenameKey(at) => {
                let line = &mut lines[pick(at, len)];
                if let Some((key, value)) = line.split_once('=') {
                    *line = format!("{}_x ={value}", key.trim_end());
                }
            }
            LineEdit::Insert(at, new) => lines.insert(pick(at, len + 1), LINES[*new].to_owned()),
        }
    }
    lines.join("\n") + "\n"
}
