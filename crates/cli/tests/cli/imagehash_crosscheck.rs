//! `retrace hash` against the real Python imagehash 4.3.2, bit for bit, on images made to be
//! hard: `scripts/imagehash_cases.py` draws hundreds of degenerate images (chessboards,
//! stripes, symmetric and antisymmetric patterns, constants, gradients, crops and odd sizes, in
//! L, RGB, RGBA, LA, P and 1 modes), whose pHash bits hang on the last bits of scipy's DCT and
//! on Pillow's resize, and hashes them with imagehash in a venv (pHash, aHash, dHash). Every
//! answer of `retrace hash --batch` must be the same. The shared vectors go through the same
//! binary too.
//!
//! Needs python3 and PyPI (see `retrace_test_support::python`): without them the test skips,
//! except under `CI=true`, where it fails.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers outside #[test] fns

use std::io::Write;
use std::path::Path;
use std::process::Command;
use std::process::Stdio;

use retrace_test_support::python;
use retrace_test_support::read_jsonl;
use retrace_test_support::vectors_dir;
use retrace_test_support::workspace_dir;
use serde_json::Value;
use serde_json::json;

/// imagehash and the versions of its dependencies the shared vectors were made with.
const IMAGEHASH: &[&str] = &[
    "imagehash==4.3.2",
    "numpy==2.4.6",
    "scipy==1.17.1",
    "Pillow==13.0.0",
    "PyWavelets==1.9.0",
];

/// Runs `retrace hash --batch` on `requests`, returning one answer per request (by `id`,
/// which is the request's index).
fn hash_batch(requests: &[Value]) -> Vec<Value> {
    let input: String = requests.iter().map(|r| format!("{r}\n")).collect();
    let mut child = Command::new(env!("CARGO_BIN_EXE_retrace"))
        .args(["hash", "--batch"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    // Written from a thread: the answers fill the stdout pipe while requests still go in.
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()).unwrap());
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "retrace hash --batch: {stderr}");
    let mut answers: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    answers.sort_by_key(|a| a["id"].as_u64().unwrap());
    assert_eq!(answers.len(), requests.len(), "{stderr}");
    answers
}

/// One request per case: `{image, method, size, crop?}` with `id` = its index.
fn request(dir: &Path, index: usize, image: &str, method: &str, size: u64, crop: &Value) -> Value {
    let mut request = json!({
        "id": index,
        "image": dir.join(image),
        "method": method,
        "size": size,
    });
    if !crop.is_null() {
        request["crop"] = crop.clone();
    }
    request
}

#[test]
fn retrace_hash_agrees_with_imagehash_on_every_degenerate_image() {
    let Some(python) = python::venv(IMAGEHASH) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let script = workspace_dir().join("scripts").join("imagehash_cases.py");
    let made = Command::new(&python)
        .arg(&script)
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(
        made.status.success(),
        "{}: {}",
        script.display(),
        String::from_utf8_lossy(&made.stderr)
    );
    let cases = read_jsonl(&dir.path().join("cases.jsonl"));
    let requests: Vec<Value> = cases
        .iter()
        .enumerate()
        .map(|(i, case)| {
            let (image, method) = (
                case["image"].as_str().unwrap(),
                case["method"].as_str().unwrap(),
            );
            request(
                dir.path(),
                i,
                image,
                method,
                case["size"].as_u64().unwrap(),
                &case["crop"],
            )
        })
        .collect();
    let answers = hash_batch(&requests);
    let failures: Vec<String> = cases
        .iter()
        .zip(&answers)
        .filter(|(case, answer)| answer["hash"] != case["hash"])
        .map(|(case, answer)| format!("{case}: retrace says {answer}"))
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} hashes differ from imagehash:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
    let images: std::collections::BTreeSet<&str> =
        cases.iter().map(|c| c["image"].as_str().unwrap()).collect();
    let phashes = cases.iter().filter(|c| c["method"] == "phash").count();
    assert!(images.len() >= 300, "only {} images", images.len());
    assert!(phashes >= 2000, "only {phashes} pHashes");
}

#[test]
fn retrace_hash_reproduces_every_shared_vector() {
    let rows = read_jsonl(&vectors_dir().join("hashes.jsonl"));
    let vectors = vectors_dir();
    let mut requests = Vec::new();
    let mut wanted = Vec::new();
    for row in &rows {
        for method in ["phash", "ahash"] {
            let image = row["image"].as_str().unwrap();
            requests.push(request(
                &vectors,
                requests.len(),
                image,
                method,
                8,
                &row["region"],
            ));
            wanted.push((row, method));
        }
    }
    let answers = hash_batch(&requests);
    let failures: Vec<String> = wanted
        .iter()
        .zip(&answers)
        .filter(|((row, method), answer)| answer["hash"] != row[*method])
        .map(|((row, method), answer)| format!("{row} {method}: retrace says {answer}"))
        .collect();
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(requests.len() >= 400, "only {} hashes", requests.len());
}
