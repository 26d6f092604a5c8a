//! The askui example files (`shared/examples/askui/`) load, check clean, and come back out
//! exactly as askui writes them; metadata updates follow askui's transitions.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;

use pretty_assertions::assert_eq;
use retrace_cache::CacheFormat;
use retrace_cache::CacheStore;
use retrace_cache::MetadataUpdate;
use retrace_cache::Validators;
use retrace_cache::check;
use retrace_cache::read_cache_file;
use retrace_cache::to_askui_json;
use retrace_test_support::askui_examples_dir;
use retrace_test_support::read_json;
use serde_json::Value;
use serde_json::json;

/// Every cache file among the examples (the `.expect.json` sidecars excluded).
fn example_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(askui_examples_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            name.ends_with(".json") && !name.ends_with(".expect.json")
        })
        .collect();
    files.sort();
    assert_eq!(files.len(), 5, "{files:?}");
    files
}

fn sidecar(path: &std::path::Path) -> Value {
    read_json(&path.with_extension("expect.json"))
}

#[test]
fn every_example_loads_and_checks_clean() {
    for path in example_files() {
        let file = read_cache_file(&path, retrace_cache::DEFAULT_MAX_FILE_SIZE)
            .unwrap_or_else(|e| panic!("{e}"));
        let expect = sidecar(&path);
        let steps = expect["steps"].as_array().unwrap();
        assert_eq!(file.trajectory.len(), steps.len(), "{}", path.display());
        for (step, want) in file.trajectory.iter().zip(steps) {
            assert_eq!(step.name, want["name"].as_str().unwrap());
            assert_eq!(step.input, want["input"]);
            assert_eq!(
                step.visual_representation.as_deref(),
                want["visual_representation"].as_str()
            );
        }
        assert_eq!(check(&file), vec![], "{}", path.display());
    }
}

#[test]
fn object_files_come_back_out_unchanged() {
    for path in example_files() {
        let file = read_cache_file(&path, retrace_cache::DEFAULT_MAX_FILE_SIZE).unwrap();
        if file.format == CacheFormat::LegacyList {
            continue;
        }
        let bytes = std::fs::read(&path).unwrap();
        let original: Value = serde_json::from_slice(&bytes).unwrap();
        // The typed model writes exactly what askui wrote.
        assert_eq!(file.to_json(), original, "{}", path.display());
        // And the text is byte-identical at the file's own indent (4 fresh, 2 rewritten).
        let indent = if file.metadata.execution_attempts > 0 {
            2
        } else {
            4
        };
        let text = to_askui_json(&file.to_json(), indent).unwrap();
        assert_eq!(
            String::from_utf8(text).unwrap(),
            String::from_utf8(bytes).unwrap()
        );
    }
}

#[test]
fn legacy_list_reads_as_askui_reads_it() {
    let path = askui_examples_dir().join("legacy_v0_24_bare_list.json");
    let file = read_cache_file(&path, retrace_cache::DEFAULT_MAX_FILE_SIZE).unwrap();
    assert_eq!(file.format, CacheFormat::LegacyList);
    let mut ours = file.to_json();
    let mut askui = sidecar(&path)["as_read_by_askui_0_48"].clone();
    // created_at is the time of reading on both sides.
    assert!(ours["metadata"]["created_at"].is_string());
    ours["metadata"]["created_at"] = Value::Null;
    askui["metadata"]["created_at"] = Value::Null;
    assert_eq!(ours, askui);
}

#[test]
fn replays_follow_askui_metadata_transitions() {
    let path = askui_examples_dir().join("reference_replays_with_failures.json");
    let expect = sidecar(&path);
    let dir = tempfile::tempdir().unwrap();
    let mut start: Value = read_json(&path);
    start["metadata"] = expect["metadata_as_recorded"].clone();
    std::fs::write(
        dir.path().join("r.json"),
        serde_json::to_vec(&start).unwrap(),
    )
    .unwrap();
    let store = CacheStore::new(dir.path());
    let validators = Validators::default();
    for replay in expect["replays"].as_array().unwrap() {
        let update = match replay["outcome"].as_str().unwrap() {
            "completed" => MetadataUpdate::RecordCompletion {
                success: replay["verify_cache_execution"].as_bool().unwrap(),
            },
            "failed_visual_validation" => MetadataUpdate::RecordFailure {
                step_index: replay["failed_step_index"].as_u64().unwrap(),
                error_message: replay["error_message"].as_str().unwrap().to_owned(),
            },
            other => panic!("unexpected outcome {other}"),
        };
        let outcome = store.update("r", &update, &validators).unwrap();
        let meta = serde_json::to_value(&outcome.metadata).unwrap();
        let want = &replay["metadata_after"];
        assert_eq!(meta["execution_attempts"], want["execution_attempts"]);
        assert_eq!(meta["is_valid"], want["is_valid"]);
        assert_eq!(meta["invalidation_reason"], want["invalidation_reason"]);
        let failures: Vec<Value> = meta["failures"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| json!({"step_index": f["step_index"], "failure_count_at_step": f["failure_count_at_step"], "error_message": f["error_message"]}))
            .collect();
        assert_eq!(
            Value::Array(failures),
            want["failures"],
            "attempt {}",
            replay["attempt"]
        );
    }
    // The trajectory and parameters are untouched by the updates.
    let end: Value = read_json(&dir.path().join("r.json"));
    assert_eq!(end["trajectory"], start["trajectory"]);
    assert_eq!(end["cache_parameters"], start["cache_parameters"]);
    // A third failure at step 6 retires the cache with askui's reason.
    let third = MetadataUpdate::RecordFailure {
        step_index: 6,
        error_message: "Visual validation failed: UI has changed significantly. Hamming distance: 13 > threshold: 10.".into(),
    };
    let outcome = store.update("r", &third, &validators).unwrap();
    assert_eq!(
        outcome.invalidated.as_deref(),
        Some("StepFailureCount: Step 6 failed 3 times (max: 3)")
    );
    assert!(!outcome.metadata.is_valid);
}

/// Adds an unknown field at several levels of a copy of `value`.
fn with_unknown_fields(mut value: Value) -> Value {
    value["x_top"] = json!({"nested": [1, "two", null]});
    value["metadata"]["x_meta"] = json!(3.5);
    value["metadata"]["token_usage"]["x_usage"] = json!(true);
    value["metadata"]["visual_validation"]["threshold"] = json!(10);
    value["trajectory"][1]["x_step"] = json!({"a": "b"});
    value["trajectory"][1]["input"]["x_input"] = json!([]);
    if let Some(failure) = value["metadata"]["failures"].get_mut(0) {
        failure["x_failure"] = json!("kept");
    }
    value
}

#[test]
fn invalidate_then_revalidate_changes_only_two_fields() {
    for path in example_files() {
        let dir = tempfile::tempdir().unwrap();
        let copy = dir.path().join("copy.json");
        let original = read_json(&path);
        let original = if original.is_object() {
            with_unknown_fields(original)
        } else {
            original
        };
        std::fs::write(&copy, serde_json::to_vec_pretty(&original).unwrap()).unwrap();
        let store = CacheStore::new(dir.path());
        let none = Validators::none();
        store
            .update(
                "copy.json",
                &MetadataUpdate::Invalidate {
                    reason: "UI redesigned".into(),
                },
                &none,
            )
            .unwrap();
        let invalid = read_json(&copy);
        assert_eq!(invalid["metadata"]["is_valid"], json!(false));
        assert_eq!(
            invalid["metadata"]["invalidation_reason"],
            json!("UI redesigned")
        );
        store
            .update("copy.json", &MetadataUpdate::Revalidate, &none)
            .unwrap();
        let after = read_json(&copy);
        if original.is_object() {
            assert_eq!(after, original, "{}", path.display());
        } else {
            // A legacy list becomes the object layout, its steps untouched.
            assert_eq!(after["trajectory"], original, "{}", path.display());
            assert_eq!(after["metadata"]["version"], json!("0.0"));
            assert_eq!(after["metadata"]["is_valid"], json!(true));
        }
    }
}
