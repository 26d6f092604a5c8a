//! Every file retrace writes goes through `retrace-files` (a temporary name, then a rename):
//! this test reads the source of every crate and fails on a direct write anywhere else,
//! naming the file and line. Test code (`#[cfg(test)]` modules at the end of a file, `*_tests.rs`,
//! `tests.rs`) and the test-support crate may write as they like.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::path::PathBuf;

/// Calls that create or replace a file's content in place.
const DIRECT_WRITES: &[&str] = &[
    "fs::write(",
    "File::create(",
    "File::create_new(",
    "OpenOptions",
    "fs::copy(",
    "fs::rename(",
    ".persist(",
    "tempfile_in(",
];

/// Direct writes that are not retrace's files, each with why.
const ALLOWED: &[(&str, &str, &str)] = &[
    (
        "crates/drive/src/chromium/process.rs",
        "File::create(",
        "Chromium's own output, in the temporary profile folder removed with the browser",
    ),
    (
        "crates/cache/src/durable.rs",
        "OpenOptions",
        "the lock sidecar: opened without truncating, locked, never written",
    ),
];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            out.push(path);
        }
    }
}

fn is_test_file(path: &Path) -> bool {
    let name = path.file_name().unwrap().to_string_lossy();
    name.ends_with("_tests.rs") || name == "tests.rs"
}

/// Every direct write in `crates/*/src` outside test code and the allowed ones, as
/// `file:line: text`.
fn direct_writes(root: &Path) -> Vec<String> {
    let mut found = Vec::new();
    for krate in std::fs::read_dir(root.join("crates")).unwrap() {
        let krate = krate.unwrap().path();
        let name = krate.file_name().unwrap().to_string_lossy().into_owned();
        if ["files", "test-support", "fuzz"].contains(&name.as_str()) {
            continue;
        }
        let mut files = Vec::new();
        rust_files(&krate.join("src"), &mut files);
        for file in files.into_iter().filter(|file| !is_test_file(file)) {
            let relative = file
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            let text = std::fs::read_to_string(&file).unwrap();
            // Unit tests sit at the end of a file, after `#[cfg(test)]`.
            let code = text.split("#[cfg(test)]").next().unwrap_or_default();
            for (number, line) in code.lines().enumerate() {
                if line.trim_start().starts_with("//") {
                    continue;
                }
                for call in DIRECT_WRITES {
                    let allowed = ALLOWED
                        .iter()
                        .any(|(path, what, _)| *path == relative && what == call);
                    if line.contains(call) && !allowed {
                        found.push(format!("{relative}:{}: {}", number + 1, line.trim()));
                    }
                }
            }
        }
    }
    found
}

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

#[test]
fn no_file_is_written_except_through_retrace_files() {
    let found = direct_writes(&workspace_root());
    assert!(
        found.is_empty(),
        "write these with retrace_files::write_atomic (or copy_atomic, AtomicLog) so no fault \
         leaves a half-written file:\n{}",
        found.join("\n")
    );
}

#[test]
fn a_new_direct_write_is_found() {
    let root = tempfile::tempdir().unwrap();
    let src = root.path().join("crates/report/src");
    std::fs::create_dir_all(&src).unwrap();
    std::fs::write(
        src.join("lib.rs"),
        "//! std::fs::write(doc, example)\nfn save() { std::fs::write(p, b).unwrap(); }\n\
         #[cfg(test)]\nmod tests { fn t() { std::fs::write(p, b).unwrap(); } }\n",
    )
    .unwrap();
    std::fs::write(
        src.join("lib_tests.rs"),
        "fn t() { std::fs::write(p, b); }\n",
    )
    .unwrap();
    assert_eq!(
        direct_writes(root.path()),
        ["crates/report/src/lib.rs:2: fn save() { std::fs::write(p, b).unwrap(); }"]
    );
}
