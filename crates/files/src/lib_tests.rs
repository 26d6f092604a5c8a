//! Unit tests of the whole-file writes: content, permissions, no leftovers, a failed write
//! leaves the old file.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::os::unix::fs::PermissionsExt;

use std::path::Path;

use super::*;

fn leftovers(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".tmp"))
        .collect()
}

#[test]
fn replaces_content_and_keeps_permissions() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.json");
    write_atomic(&path, b"one").unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), b"one");
    let mode = |path: &Path| std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&path), 0o644);
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
    write_atomic(&path, b"two").unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), b"two");
    assert_eq!(mode(&path), 0o600);
    assert_eq!(leftovers(dir.path()), Vec::<String>::new());
}

#[test]
fn a_write_that_cannot_be_renamed_leaves_the_old_file_and_no_temporary() {
    let dir = tempfile::tempdir().unwrap();
    // A folder where the file should be: the rename fails after the write.
    let path = dir.path().join("taken");
    std::fs::create_dir(&path).unwrap();
    std::fs::write(path.join("inside"), "x").unwrap();
    let error = write_atomic(&path, b"new").unwrap_err();
    assert!(error.to_string().contains("cannot rename"), "{error}");
    assert!(path.is_dir());
    assert_eq!(leftovers(dir.path()), Vec::<String>::new());
}

#[test]
fn an_unwritable_folder_is_named() {
    let error = write_atomic(Path::new("/proc/retrace-no-such/report.json"), b"x").unwrap_err();
    assert_eq!(
        error.to_string(),
        "cannot create a temporary file in /proc/retrace-no-such: No such file or directory \
         (os error 2)"
    );
}

#[test]
fn a_new_file_is_written_only_once() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("state.json");
    write_new_atomic(&path, b"first").unwrap();
    let error = write_new_atomic(&path, b"second").unwrap_err();
    assert_eq!(error.kind(), std::io::ErrorKind::AlreadyExists, "{error}");
    assert_eq!(std::fs::read(&path).unwrap(), b"first");
    assert_eq!(leftovers(dir.path()), Vec::<String>::new());
}

#[test]
fn copies_are_whole_files_too() {
    let dir = tempfile::tempdir().unwrap();
    let (from, to) = (dir.path().join("a.png"), dir.path().join("b.png"));
    std::fs::write(&from, b"png bytes").unwrap();
    assert_eq!(copy_atomic(&from, &to).unwrap(), 9);
    assert_eq!(std::fs::read(&to).unwrap(), b"png bytes");
}

#[test]
fn a_log_replaces_the_old_one_only_once_a_line_is_whole() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("events.jsonl");
    std::fs::write(&path, "old\n").unwrap();
    let mut log = AtomicLog::create(&path).unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "old\n");
    log.write_line("one").unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "one\n");
    log.write_line("two").unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "one\ntwo\n");
    // A log that never wrote a line leaves the file as it was, and no temporary file.
    drop(AtomicLog::create(&path).unwrap());
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "one\ntwo\n");
    assert_eq!(leftovers(dir.path()), Vec::<String>::new());
}
