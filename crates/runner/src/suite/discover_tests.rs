#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::path::PathBuf;

use super::*;

const TRAJECTORY: &str = crate::demo::DEMO_RECORDING;

fn write(root: &Path, relative: &str, text: &str) -> PathBuf {
    let path = root.join(relative);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn folders_are_walked_in_order_skipping_hidden_folders_backups_and_other_json() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "b/two.json", TRAJECTORY);
    write(root, "a/one.json", TRAJECTORY);
    write(root, "a/deeper/three.json", TRAJECTORY);
    write(root, "a/one.previous-20250101T000000Z.json", TRAJECTORY);
    write(root, ".retrace_state/a__one.json.state.json", "{}");
    write(root, "package.json", r#"{"name": "not a trajectory"}"#);
    write(root, "notes.txt", "hello");
    let found = discover(&[root.to_owned()]).unwrap();
    let names: Vec<_> = found
        .iter()
        .map(|path| {
            path.strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    assert_eq!(names, ["a/deeper/three.json", "a/one.json", "b/two.json"]);
}

#[test]
fn globs_match_below_their_literal_prefix_and_duplicates_collapse() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "flows/login.json", TRAJECTORY);
    write(root, "flows/sub/login_again.json", TRAJECTORY);
    write(root, "flows/sub/other.json", TRAJECTORY);
    let pattern = format!("{}/flows/**/login*.json", root.display());
    let file = root.join("flows/login.json");
    let found = discover(&[PathBuf::from(pattern), file.clone()]).unwrap();
    assert_eq!(found, [file, root.join("flows/sub/login_again.json")]);
}

#[test]
fn a_broken_or_unreadable_trajectory_is_still_a_test() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "good.json", TRAJECTORY);
    write(root, "broken.json", r#"{"trajectory": "not a list"}"#);
    write(root, "truncated.json", &TRAJECTORY[..TRAJECTORY.len() / 2]);
    std::fs::write(root.join("latin1.json"), b"[{\"id\": \"caf\xe9\"}]").unwrap();
    std::fs::write(
        root.join("bom.json"),
        [b"\xEF\xBB\xBF", TRAJECTORY.as_bytes()].concat(),
    )
    .unwrap();
    write(root, "package.json", r#"{"name": "not a trajectory"}"#);
    let found = discover(&[root.to_owned()]).unwrap();
    let names: Vec<_> = found
        .iter()
        .map(|path| path.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        names,
        [
            "bom.json",
            "broken.json",
            "good.json",
            "latin1.json",
            "truncated.json"
        ]
    );
    // A file named on the command line is a test, whatever it holds (its plan says why it
    // cannot run).
    let named = write(root, "other/package.json", r#"{"name": "x"}"#);
    assert_eq!(discover(std::slice::from_ref(&named)).unwrap(), [named]);
}

#[test]
fn a_path_that_does_not_exist_or_a_glob_matching_nothing_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nowhere");
    let error = discover(std::slice::from_ref(&missing)).unwrap_err();
    assert!(error.to_string().contains("does not exist"), "{error}");
    let error = discover(&[dir.path().join("*.json")]).unwrap_err();
    assert!(
        error.to_string().contains("matches no trajectory"),
        "{error}"
    );
}
