//! `retrace cache ...` end to end: the real binary on the askui example files and on broken
//! files, checking exit codes, messages and what changed on disk.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::path::PathBuf;
use std::process::Command;
use std::process::Output;

use pretty_assertions::assert_eq;
use retrace_test_support::askui_examples_dir;
use retrace_test_support::read_json;
use serde_json::Value;
use serde_json::json;

fn retrace(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_retrace"))
        .args(args)
        .output()
        .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn examples() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(askui_examples_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let n = p.to_string_lossy();
            n.ends_with(".json") && !n.ends_with(".expect.json")
        })
        .collect();
    files.sort();
    assert_eq!(files.len(), 5);
    files
}

#[test]
fn show_and_check_accept_every_example() {
    for path in examples() {
        let p = path.to_str().unwrap();
        let out = retrace(&["cache", "show", p]);
        assert_eq!(out.status.code(), Some(0), "{p}: {}", text(&out.stderr));
        let shown = text(&out.stdout);
        let steps = read_json(&path.with_extension("expect.json"))["steps"]
            .as_array()
            .unwrap()
            .len();
        assert!(
            shown.contains(&format!("steps:             {steps} (")),
            "{shown}"
        );

        let out = retrace(&["cache", "show", p, "--json"]);
        assert_eq!(out.status.code(), Some(0));
        let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(doc["steps"].as_array().unwrap().len(), steps);
        // Every hashed step shows its point and hash, as the sidecar has them.
        let expect = read_json(&path.with_extension("expect.json"));
        for (step, want) in doc["steps"]
            .as_array()
            .unwrap()
            .iter()
            .zip(expect["steps"].as_array().unwrap())
        {
            assert_eq!(step["hash"], want["visual_representation"]);
            if want["visual_representation"].is_string() {
                assert_eq!(step["point"], want["validation_point"]);
            }
        }
    }
    let mut args = vec!["cache", "check"];
    let files = examples();
    args.extend(files.iter().map(|p| p.to_str().unwrap()));
    let out = retrace(&args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    assert_eq!(
        text(&out.stdout)
            .lines()
            .filter(|l| l.contains(": ok ("))
            .count(),
        5
    );
}

/// Adds unknown fields at several levels of an object-layout file.
fn with_unknown_fields(mut value: Value) -> Value {
    value["x_top"] = json!({"nested": [1, "two", null]});
    value["metadata"]["x_meta"] = json!(3.5);
    value["metadata"]["visual_validation"]["x_vv"] = json!("kept");
    value["trajectory"][0]["x_step"] = json!({"a": "b"});
    value["trajectory"][0]["input"]["x_input"] = json!([]);
    value
}

#[test]
fn invalidate_then_revalidate_changes_only_two_fields() {
    for path in examples() {
        let dir = tempfile::tempdir().unwrap();
        let copy = dir.path().join("copy.json");
        let original = read_json(&path);
        if !original.is_object() {
            continue; // The legacy list has no metadata to keep; the library test covers it.
        }
        let original = with_unknown_fields(original);
        std::fs::write(&copy, serde_json::to_vec_pretty(&original).unwrap()).unwrap();
        let c = copy.to_str().unwrap();

        let out = retrace(&[
            "cache",
            "invalidate",
            c,
            "--reason",
            "login page redesigned",
        ]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let invalid = read_json(&copy);
        let mut expected = original.clone();
        expected["metadata"]["is_valid"] = json!(false);
        expected["metadata"]["invalidation_reason"] = json!("login page redesigned");
        assert_eq!(invalid, expected);

        let out = retrace(&["cache", "check", c]);
        assert_eq!(out.status.code(), Some(1));
        assert!(
            text(&out.stdout)
                .contains("metadata.is_valid: the cache is invalidated: login page redesigned")
        );

        let out = retrace(&["cache", "revalidate", c, "--json"]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let state: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(state["is_valid"], json!(true));
        assert_eq!(read_json(&copy), original, "{}", path.display());
    }
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> String {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path.to_str().unwrap().to_owned()
}

#[test]
fn broken_files_exit_2_naming_file_and_problem() {
    let dir = tempfile::tempdir().unwrap();
    let good = std::fs::read(askui_examples_dir().join("ownership_open_chapter.json")).unwrap();
    let mut wrong_type: Value = serde_json::from_slice(&good).unwrap();
    wrong_type["metadata"]["created_at"] = json!(12);
    let mut missing: Value = serde_json::from_slice(&good).unwrap();
    missing.as_object_mut().unwrap().remove("trajectory");
    let mut bad_step: Value = serde_json::from_slice(&good).unwrap();
    bad_step["trajectory"][2]["input"] = json!("click");

    let huge = dir.path().join("huge.json");
    std::fs::File::create(&huge)
        .unwrap()
        .set_len(200 * 1024 * 1024)
        .unwrap();
    let adir = dir.path().join("adir.json");
    std::fs::create_dir(&adir).unwrap();

    let cases = [
        (
            write(dir.path(), "truncated.json", &good[..good.len() / 2]),
            "invalid JSON at line",
        ),
        (
            write(
                dir.path(),
                "wrong_type.json",
                &serde_json::to_vec(&wrong_type).unwrap(),
            ),
            "metadata.created_at: expected an RFC 3339 timestamp, got 12",
        ),
        (
            write(
                dir.path(),
                "missing.json",
                &serde_json::to_vec(&missing).unwrap(),
            ),
            "missing field `trajectory`",
        ),
        (
            write(
                dir.path(),
                "bad_step.json",
                &serde_json::to_vec(&bad_step).unwrap(),
            ),
            "trajectory[2].input: expected an object, got a string",
        ),
        (write(dir.path(), "empty.json", b""), "file is empty"),
        (
            adir.to_str().unwrap().to_owned(),
            "is a directory, not a cache file",
        ),
        (
            huge.to_str().unwrap().to_owned(),
            "file is 209715200 bytes, larger than the limit of 67108864 bytes",
        ),
        (
            dir.path().join("absent.json").to_str().unwrap().to_owned(),
            "cannot open",
        ),
    ];
    for (file, problem) in &cases {
        for command in ["show", "check", "revalidate"] {
            let out = retrace(&["cache", command, file]);
            let stderr = text(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{command} {file}: {stderr}");
            assert!(
                stderr.contains(file.as_str()) && stderr.contains(problem),
                "{command} {file}: {stderr}"
            );
            assert!(!stderr.contains("panicked"), "{stderr}");
        }
    }
    // Several files at once: every unreadable one is named, and the exit code is still 2.
    let files: Vec<&str> = cases.iter().map(|(f, _)| f.as_str()).collect();
    let mut args = vec!["cache", "check"];
    args.extend(&files);
    let out = retrace(&args);
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    for file in files {
        assert!(stderr.contains(file), "{stderr}");
    }
    assert!(
        stderr.contains("8 of 8 file(s) could not be read"),
        "{stderr}"
    );
}

#[test]
fn check_lists_each_problem_and_exits_1() {
    let dir = tempfile::tempdir().unwrap();
    let mut value = read_json(&askui_examples_dir().join("reference_replays_with_failures.json"));
    value["trajectory"][1]["visual_representation"] = json!("xyz");
    value["trajectory"][2]["input"]["text"] = json!("{{user}}");
    value["metadata"]["visual_validation"]["method"] = json!("sha256");
    let file = write(dir.path(), "bad.json", &serde_json::to_vec(&value).unwrap());
    let out = retrace(&["cache", "check", &file]);
    assert_eq!(out.status.code(), Some(1));
    let lines: Vec<String> = text(&out.stdout).lines().map(str::to_owned).collect();
    assert_eq!(
        lines,
        [
            format!(
                "{file}: metadata.visual_validation.method: unknown hash method \"sha256\"; expected one of phash, ahash"
            ),
            format!(
                "{file}: step 2: trajectory[1].visual_representation: expected 16 hexadecimal digits (an 8x8 hash; 64 for a 16x16 one), got \"xyz\" (3 characters)"
            ),
            format!(
                "{file}: step 3: trajectory[2].input.text: uses the placeholder {{{{user}}}}, which cache_parameters does not declare"
            ),
        ]
    );
    let out = retrace(&["cache", "check", &file, "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["files"][0]["problems"].as_array().unwrap().len(), 3);
}

#[test]
fn list_hides_invalid_and_reports_unreadable() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["ownership_open_chapter.json", "std_search_error_code.json"] {
        std::fs::copy(askui_examples_dir().join(name), dir.path().join(name)).unwrap();
    }
    write(dir.path(), "broken.json", b"[{");
    let d = dir.path().to_str().unwrap();
    let invalid = dir.path().join("std_search_error_code.json");
    assert_eq!(
        retrace(&[
            "cache",
            "invalidate",
            invalid.to_str().unwrap(),
            "--reason",
            "old"
        ])
        .status
        .code(),
        Some(0)
    );

    let out = retrace(&["cache", "list", "--dir", d]);
    assert_eq!(out.status.code(), Some(0));
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("ownership_open_chapter.json")
            && !stdout.contains("std_search_error_code.json"),
        "{stdout}"
    );
    assert!(stdout.contains("1 invalidated file(s) hidden"), "{stdout}");
    assert!(
        text(&out.stderr).contains("broken.json"),
        "{}",
        text(&out.stderr)
    );

    let out = retrace(&["cache", "list", "--dir", d, "--include-invalid", "--json"]);
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let names: Vec<&str> = doc["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["ownership_open_chapter.json", "std_search_error_code.json"]
    );
    assert_eq!(doc["entries"][1]["invalidation_reason"], json!("old"));
    assert_eq!(doc["entries"][1]["parameters"], json!(["error_code"]));
    assert_eq!(doc["problems"].as_array().unwrap().len(), 1);
}

#[test]
fn every_cache_command_explains_itself_with_an_example() {
    for command in [
        vec!["cache"],
        vec!["cache", "list"],
        vec!["cache", "show"],
        vec!["cache", "check"],
        vec!["cache", "invalidate"],
        vec!["cache", "revalidate"],
    ] {
        let mut args = command.clone();
        args.push("--help");
        let out = retrace(&args);
        assert_eq!(out.status.code(), Some(0), "{command:?}");
        let help = text(&out.stdout);
        assert!(help.contains("Example"), "{command:?}: {help}");
        assert!(help.contains("retrace cache"), "{command:?}: {help}");
    }
}
