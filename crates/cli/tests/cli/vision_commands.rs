//! `retrace hash` and `retrace diff` run as the built binary: outputs match the shared
//! imagehash vectors, and exit codes say pass (0), different (1) or error (2).
#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers outside #[test] fns

use std::io::Write;
use std::path::PathBuf;
use std::process::Command;
use std::process::Output;
use std::process::Stdio;

use retrace_test_support::read_jsonl;
use retrace_test_support::vectors_dir;

fn retrace(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_retrace"))
        .args(args)
        .output()
        .expect("run retrace")
}

fn screen(name: &str) -> String {
    vectors_dir()
        .join("images/screens")
        .join(name)
        .display()
        .to_string()
}

fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).unwrap()
}

#[test]
fn hash_matches_the_imagehash_vectors() {
    let rows = read_jsonl(&vectors_dir().join("hashes.jsonl"));
    let full = rows.iter().find(|r| r["region"].is_null()).unwrap();
    let region = rows.iter().find(|r| !r["region"].is_null()).unwrap();
    let image = vectors_dir().join(full["image"].as_str().unwrap());
    let image = image.to_str().unwrap();

    let out = retrace(&["hash", image]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        stdout(&out),
        format!("{}  {image}\n", full["phash"].as_str().unwrap())
    );

    let out = retrace(&["hash", "--method", "ahash", image]);
    assert!(stdout(&out).starts_with(full["ahash"].as_str().unwrap()));

    let region_image = vectors_dir().join(region["image"].as_str().unwrap());
    let edges: Vec<String> = region["region"]
        .as_array()
        .unwrap()
        .iter()
        .map(ToString::to_string)
        .collect();
    let out = retrace(&[
        "hash",
        "--json",
        "--crop",
        &edges.join(","),
        region_image.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0));
    let answer: serde_json::Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert_eq!(answer["hash"], region["phash"]);
    assert_eq!(answer["region"], region["region"]);
}

#[test]
fn hash_batch_answers_every_line_and_reports_failures() {
    let rows = read_jsonl(&vectors_dir().join("hashes.jsonl"));
    let mut input = String::new();
    for row in rows.iter().take(12) {
        let image = vectors_dir().join(row["image"].as_str().unwrap());
        let mut request =
            serde_json::json!({"image": image, "method": "ahash", "id": row["image"]});
        if !row["region"].is_null() {
            request["crop"] = row["region"].clone();
        }
        input.push_str(&format!("{request}\n"));
    }
    input.push_str("{\"image\": \"/nonexistent.png\", \"id\": \"missing\"}\n");
    let mut child = Command::new(env!("CARGO_BIN_EXE_retrace"))
        .args(["hash", "--batch"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let answers: Vec<serde_json::Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(answers.len(), 13);
    for (row, answer) in rows.iter().take(12).zip(&answers) {
        assert_eq!(answer["hash"], row["ahash"], "{answer}");
    }
    assert_eq!(answers[12]["id"], "missing");
    assert!(
        answers[12]["error"]
            .as_str()
            .unwrap()
            .contains("nonexistent")
    );
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn diff_exit_codes_say_equal_different_layout_and_error() {
    let original = screen("rust_std_index_1280x800.png");
    let button = screen("rust_std_index_1280x800__button.png");
    let large = screen("rust_book_data_types_1920x1080.png");

    let same = retrace(&["diff", &original, &original]);
    assert_eq!(same.status.code(), Some(0), "{}", stdout(&same));

    let different = retrace(&["diff", "--json", &original, &button]);
    assert_eq!(different.status.code(), Some(1));
    let report: serde_json::Value = serde_json::from_str(stdout(&different).trim()).unwrap();
    let pixels = report["diff_pixels"].as_u64().unwrap();
    let want = read_jsonl(&vectors_dir().join("pixelmatch.jsonl"))
        .into_iter()
        .find(|r| {
            r["variant"]
                .as_str()
                .unwrap()
                .ends_with("rust_std_index_1280x800__button.png")
        })
        .unwrap();
    assert_eq!(pixels, want["diff_pixels"].as_u64().unwrap());
    assert!(!report["changed_areas"].as_array().unwrap().is_empty());

    let allowed = retrace(&[
        "diff",
        &original,
        &button,
        "--max-diff-pixels",
        &pixels.to_string(),
    ]);
    assert_eq!(allowed.status.code(), Some(0));

    let layout = retrace(&["diff", "--json", &original, &large]);
    assert_eq!(layout.status.code(), Some(1));
    assert!(stdout(&layout).contains("layout_different"));

    let dir = tempfile::tempdir().unwrap();
    let garbage: PathBuf = dir.path().join("garbage.png");
    std::fs::write(&garbage, b"not a png at all").unwrap();
    let error = retrace(&["diff", &original, garbage.to_str().unwrap()]);
    assert_eq!(error.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&error.stderr).contains("garbage.png"));
}

#[test]
fn diff_writes_a_diff_image_of_the_same_size() {
    let original = screen("rust_std_index_1280x800.png");
    let text = screen("rust_std_index_1280x800__text.png");
    let dir = tempfile::tempdir().unwrap();
    let out_path = dir.path().join("diff.png");
    let out = retrace(&[
        "diff",
        &original,
        &text,
        "--out",
        out_path.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let image = retrace_vision::decode_png(&std::fs::read(&out_path).unwrap()).unwrap();
    assert_eq!((image.width(), image.height()), (1280, 800));
    // Somewhere the diff image is pure red (a counted difference).
    assert!(image.data().chunks_exact(4).any(|p| p == [255, 0, 0, 255]));
}
