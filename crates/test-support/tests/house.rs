//! Code people can live in, held by a test: no source file under `crates/*/src` over 600
//! lines, no function over 150. A file or function past the limit holds more than one job;
//! split it where the jobs part. Functions are measured on rustfmt's layout: from the line
//! with `fn NAME` to the first closing brace at the same indentation.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers outside #[test] fns

use std::path::Path;
use std::path::PathBuf;

const MAX_FILE_LINES: usize = 600;
const MAX_FUNCTION_LINES: usize = 150;

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Every `.rs` file under `crates/*/src`.
fn source_files() -> Vec<PathBuf> {
    let mut files = Vec::new();
    for krate in std::fs::read_dir(repo_root().join("crates")).unwrap() {
        let src = krate.unwrap().path().join("src");
        if src.is_dir() {
            collect_rust_files(&src, &mut files);
        }
    }
    files.sort();
    files
}

fn collect_rust_files(dir: &Path, files: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            collect_rust_files(&path, files);
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            files.push(path);
        }
    }
}

/// The name of the function a line declares with a body, if it does.
fn declared_function(line: &str) -> Option<&str> {
    let trimmed = line.trim_start();
    if trimmed.starts_with("//") || trimmed.ends_with(';') {
        return None;
    }
    let at = trimmed.find("fn ")?;
    let before = &trimmed[..at];
    let qualifiers_only = before.split_whitespace().all(|word| {
        matches!(
            word,
            "pub" | "const" | "async" | "unsafe" | "extern" | "default"
        ) || word.starts_with("pub(")
            || word.starts_with('"')
    });
    if !qualifiers_only {
        return None;
    }
    let name = trimmed[at + 3..].split(|c: char| !(c.is_alphanumeric() || c == '_'));
    name.into_iter().next().filter(|name| !name.is_empty())
}

/// `(name, first line, length)` of every function in `source` longer than `limit` lines.
fn long_functions(source: &str, limit: usize) -> Vec<(String, usize, usize)> {
    let lines: Vec<&str> = source.lines().collect();
    let mut long = Vec::new();
    for (index, line) in lines.iter().enumerate() {
        let Some(name) = declared_function(line) else {
            continue;
        };
        let indent = &line[..line.len() - line.trim_start().len()];
        let closing = format!("{indent}}}");
        let Some(end) = lines[index + 1..].iter().position(|l| *l == closing) else {
            continue;
        };
        let length = end + 2;
        if length > limit {
            long.push((name.to_string(), index + 1, length));
        }
    }
    long
}

fn relative(path: &Path) -> String {
    path.strip_prefix(repo_root())
        .unwrap_or(path)
        .display()
        .to_string()
}

#[test]
fn no_source_file_is_over_600_lines() {
    let long: Vec<String> = source_files()
        .iter()
        .filter_map(|file| {
            let lines = std::fs::read_to_string(file).unwrap().lines().count();
            (lines > MAX_FILE_LINES).then(|| format!("{}: {lines} lines", relative(file)))
        })
        .collect();
    assert!(
        long.is_empty(),
        "files over {MAX_FILE_LINES} lines (split them where their jobs part):\n{}",
        long.join("\n")
    );
}

#[test]
fn no_function_is_over_150_lines() {
    let long: Vec<String> = source_files()
        .iter()
        .flat_map(|file| {
            let source = std::fs::read_to_string(file).unwrap();
            long_functions(&source, MAX_FUNCTION_LINES)
                .into_iter()
                .map(|(name, line, length)| {
                    format!("{}:{line}: fn {name}: {length} lines", relative(file))
                })
                .collect::<Vec<_>>()
        })
        .collect();
    assert!(
        long.is_empty(),
        "functions over {MAX_FUNCTION_LINES} lines:\n{}",
        long.join("\n")
    );
}

#[test]
fn the_function_measure_finds_a_long_function_and_skips_declarations() {
    let body = "        let x = 1;\n".repeat(5);
    let source = format!(
        "pub(crate) async fn long_one() {{\n{body}}}\n\
         fn short() {{\n}}\n\
         trait T {{\n    fn declared(&self);\n    fn provided(&self) {{\n{body}    }}\n}}\n\
         // fn in_a_comment() {{\n"
    );
    let long = long_functions(&source, 4);
    assert_eq!(
        long,
        vec![
            ("long_one".to_string(), 1, 7),
            ("provided".to_string(), 12, 7)
        ]
    );
}
