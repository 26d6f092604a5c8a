//! Every `computer` action is named once, in the catalogue
//! (`crates/protocol/src/computer_actions/catalog.rs`): this test fails when an action name
//! appears as a string literal anywhere else in `crates/*/src`.
//!
//! The rule, as the test applies it:
//! - Scanned: every `.rs` file under `crates/*/src`, except the catalogue itself.
//! - Not scanned (tests and fixtures): files named `tests.rs` or `*_tests.rs` or under a
//!   `tests/` folder, everything from
//!   a file's first `#[cfg(test)]` line on (its test module), comment lines (`//`, doc
//!   comments included) and the `test-support` crate (scripted model servers that speak each
//!   vendor's API as the vendor does, with their own copies of its names on purpose).
//! - An action name with an underscore (`left_click`) is flagged wherever it is a whole
//!   string literal (`"left_click"`).
//! - An action name that is also a common word of JSON and of other vocabularies (`type`,
//!   `key`, `wait`, `scroll`, `screenshot`, `zoom`) is flagged where it is used as an action:
//!   `"action": "key"`, a match arm (`"key" =>`, `"key" |`, `| "key"`) or a comparison
//!   (`== "key"`).
//! - A line naming another vocabulary's action that happens to be spelled like ours (OpenAI's
//!   Responses `double_click`, UI-TARS's `scroll`) carries the comment `// not ours: <whose>`
//!   at its end or on the line before it.
//!
//! Code that needs an action name uses `retrace_protocol::computer_actions::names`, or better,
//! matches on the parsed `ComputerAction`.

use std::path::Path;
use std::path::PathBuf;

use retrace_protocol::computer_actions::COMPUTER_ACTIONS;

const CATALOGUE: &str = "protocol/src/computer_actions/catalog.rs";
const MARKER: &str = "// not ours:";

/// The `.rs` files under `dir`, recursively.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            out.push(path);
        }
    }
}

/// Whether `line` uses `name` as an action, by the rule above.
fn names_action(line: &str, name: &str) -> bool {
    let literal = format!("\"{name}\"");
    if !line.contains(&literal) {
        return false;
    }
    if name.contains('_') {
        return true;
    }
    let compact: String = line.split_whitespace().collect();
    [
        format!("\"action\":{literal}"),
        format!("{literal}=>"),
        format!("{literal}|"),
        format!("|{literal}"),
        format!("=={literal}"),
    ]
    .iter()
    .any(|pattern| compact.contains(pattern.as_str()))
}

/// `file:line: text` for each offending line of `path`.
fn offences(path: &Path, shown: &str) -> Vec<String> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let mut found = Vec::new();
    let mut marked = false;
    for (number, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("#[cfg(test)]") {
            break;
        }
        let after_marker = std::mem::replace(&mut marked, trimmed.starts_with(MARKER));
        if trimmed.starts_with("//") || line.contains(MARKER) || after_marker {
            continue;
        }
        for name in COMPUTER_ACTIONS {
            if names_action(line, name) {
                found.push(format!(
                    "{shown}:{}: `{name}` in {}",
                    number + 1,
                    line.trim()
                ));
            }
        }
    }
    found
}

#[test]
fn action_names_are_written_only_in_the_catalogue() {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    for entry in std::fs::read_dir(&crates).expect("crates/").flatten() {
        if entry.file_name() != "test-support" {
            rust_files(&entry.path().join("src"), &mut files);
        }
    }
    assert!(files.len() > 50, "found only {} source files", files.len());
    let mut found = Vec::new();
    for path in files {
        let shown = path
            .strip_prefix(&crates)
            .unwrap_or(&path)
            .to_string_lossy()
            .replace('\\', "/");
        let file_name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let in_tests_folder = shown.split('/').any(|part| part == "tests");
        if shown == CATALOGUE
            || file_name == "tests.rs"
            || file_name.ends_with("_tests.rs")
            || in_tests_folder
        {
            continue;
        }
        found.extend(offences(&path, &shown));
    }
    assert!(
        found.is_empty(),
        "action names written outside the catalogue ({CATALOGUE}); use \
         retrace_protocol::computer_actions::names or match on ComputerAction:\n{}",
        found.join("\n")
    );
}

/// The rule catches what it should and lets through what it should.
#[test]
fn the_rule_flags_actions_not_words() {
    assert!(names_action(r#"    "left_click" => x,"#, "left_click"));
    assert!(names_action(
        r#"json!({"action": "key", "text": "a"})"#,
        "key"
    ));
    assert!(names_action(r#"    "type" | "key" => x,"#, "key"));
    assert!(names_action(r#"if action == "zoom" {"#, "zoom"));
    assert!(!names_action(r#"json!({"type": "object"})"#, "type"));
    assert!(!names_action(r#"object.get("key")"#, "key"));
    assert!(!names_action(r#"let left_click = 1;"#, "left_click"));
}
