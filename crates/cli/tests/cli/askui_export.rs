//! `retrace cache export --askui` checked with askui 0.48.0's own code (PyPI `askui`, in a
//! venv, see `retrace_test_support::python`): askui's CacheExecutor replays the exported demo
//! recording to its end with its hash checks passing, and retrace's metadata transitions match
//! askui's `CacheManager` and `verify_cache_execution` (one test per behaviour).
//!
//! The Python side is `tests/askui/askui_replay.py`: askui's Conversation, CacheExecutor,
//! CacheManager, computer tools and verify tool, with two stand-ins: a computer whose screen is
//! the PNGs in `tests/askui/screens/` (saved by `retrace do` from the demo app in headless
//! Chromium, one after each action of the bundled recording; `000` is the page before the
//! first), and a scripted agent that starts the replay and gives the verdict.
//!
//! Without python3 or PyPI the tests skip with a message, except under `CI=true`, where they
//! fail. askui imports slowly, so each test runs its askui jobs in one Python process.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers outside #[test] fns

use std::path::Path;
use std::path::PathBuf;
use std::process::Command;

use retrace_cache::CacheStore;
use retrace_cache::MetadataUpdate;
use retrace_cache::Validators;
use retrace_test_support::python;
use retrace_test_support::read_json;
use retrace_test_support::workspace_dir;
use serde_json::Value;
use serde_json::json;

/// askui as the interop promise names it.
const ASKUI: &[&str] = &["askui==0.48.0"];

fn askui_dir() -> PathBuf {
    workspace_dir().join("crates/cli/tests/askui")
}

/// The demo's screens, in the order the recording's actions show them.
fn screens() -> Vec<PathBuf> {
    let mut screens: Vec<PathBuf> = std::fs::read_dir(askui_dir().join("screens"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "png"))
        .collect();
    screens.sort();
    assert_eq!(screens.len(), 12, "{screens:?}");
    screens
}

/// `retrace cache export --askui` of the bundled demo recording, into `dir`.
fn exported_demo(dir: &Path, name: &str) -> PathBuf {
    let source = dir.join(format!("{name}.retrace.json"));
    std::fs::write(&source, retrace_runner::demo::DEMO_RECORDING).unwrap();
    let out = dir.join(format!("{name}.json"));
    let output = Command::new(env!("CARGO_BIN_EXE_retrace"))
        .args(["cache", "export", "--askui"])
        .arg(&source)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    for note in [
        "left out `visual_representation_after` at steps 6, 8, 10, 12, 13",
        "left out `visual_representation_after_recentred` at steps 2, 4, 7",
        "left out `page_after` at steps 6",
        "left out `visual_crop_after` at steps 2, 4, 6, 7, 8, 10, 12, 13",
    ] {
        assert!(stderr.contains(note), "{stderr}");
    }
    out
}

/// Runs the askui jobs (see `askui_replay.py`), one answer per job.
fn askui(python: &Path, jobs: &Value) -> Vec<Value> {
    let output = Command::new(python)
        .arg(askui_dir().join("askui_replay.py"))
        .arg(jobs.to_string())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "askui_replay.py failed:\n{stderr}");
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}\n{stderr}", String::from_utf8_lossy(&output.stdout)))
}

fn replay_job(file: &Path, verdict: Option<bool>, notes: &str) -> Value {
    json!({
        "kind": "replay",
        "file": file,
        "screens": screens(),
        "parameters": {"username": "demo", "password": "retrace-demo-pw"},
        "verdict": verdict,
        "notes": notes,
    })
}

fn metadata(file: &Path) -> Value {
    read_json(file)["metadata"].clone()
}

/// The metadata fields both tools write, without timestamps (and whether each is set).
fn comparable(metadata: &Value) -> Value {
    let failures: Vec<Value> = metadata["failures"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            json!([
                f["step_index"],
                f["error_message"],
                f["failure_count_at_step"]
            ])
        })
        .collect();
    json!({
        "execution_attempts": metadata["execution_attempts"],
        "last_executed_at is set": metadata["last_executed_at"].is_string(),
        "failures": failures,
        "is_valid": metadata["is_valid"],
        "invalidation_reason": metadata["invalidation_reason"],
    })
}

#[test]
fn askuis_cache_executor_replays_the_exported_demo_recording() {
    let Some(python) = python::venv(ASKUI) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let file = exported_demo(dir.path(), "demo");
    let exported = read_json(&file);
    let hashed = exported["trajectory"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|step| step["visual_representation"].is_string())
        .count();
    assert_eq!(hashed, 8);

    let answers = askui(
        &python,
        &json!([replay_job(&file, Some(true), "invoice saved")]),
    );
    let run = &answers[0];
    assert_eq!(run["outcome"], "completed", "{run:#}");
    let checks = run["visual_checks"].as_array().unwrap();
    assert_eq!(checks.len(), hashed, "{run:#}");
    for check in checks {
        assert_eq!(check["passed"], true, "{check}");
    }
    let actions: Vec<&str> = run["actions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    assert_eq!(
        actions,
        [
            "move 640,311",
            "click left x1",
            "type demo",
            "move 640,389",
            "click left x1",
            "type retrace-demo-pw",
            "move 551,467",
            "click left x1",
            "move 761,203",
            "click left x1",
            "move 540,266",
            "click left x1",
            "type Acme Corp",
            "move 540,344",
            "click left x1",
            "type 120.00",
            "move 784,408",
            "click left x1",
            "move 735,622",
        ]
    );
    // askui's verify_cache_execution(success=True) wrote its metadata.
    let after = metadata(&file);
    assert_eq!(after["execution_attempts"], 1);
    assert!(after["last_executed_at"].is_string());
    assert_eq!(after["is_valid"], true);
}

/// A failed step: askui's `update_metadata_on_failure` and retrace's `RecordFailure` write the
/// same attempt, `last_executed_at` and failure. The file's last success was 40 days ago
/// (askui's `last_executed_at`, no `last_passed_at`): askui keeps it valid, so does retrace.
#[test]
fn a_failure_counts_an_attempt_and_sets_last_executed_at_as_askui_does() {
    let Some(python) = python::venv(ASKUI) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let file = exported_demo(dir.path(), "demo");
    let mut value = read_json(&file);
    let forty_days_ago = jiff::Timestamp::now() - jiff::SignedDuration::from_hours(40 * 24);
    value["metadata"]["last_executed_at"] = json!(retrace_cache::format_timestamp(forty_days_ago));
    value["metadata"]["execution_attempts"] = json!(3);
    value["metadata"]["failures"] = json!([{"timestamp": "2026-01-01T00:00:00Z", "step_index": 4, "error_message": "earlier", "failure_count_at_step": 1}]);
    let theirs = dir.path().join("askui.json");
    let ours = dir.path().join("retrace.json");
    for path in [&theirs, &ours] {
        std::fs::write(path, serde_json::to_vec_pretty(&value).unwrap()).unwrap();
    }
    let message = "Visual validation failed: UI has changed significantly. Hamming distance: 13 > threshold: 10.";
    let started = jiff::Timestamp::now();
    askui(
        &python,
        &json!([{"kind": "failure", "file": theirs, "step_index": 4, "error_message": message}]),
    );
    let outcome = CacheStore::new(dir.path())
        .update(
            "retrace.json",
            &MetadataUpdate::RecordFailure {
                step_index: 4,
                error_message: message.into(),
            },
            &Validators::default(),
        )
        .unwrap();
    assert_eq!(outcome.invalidated, None);
    let (askui_meta, retrace_meta) = (metadata(&theirs), metadata(&ours));
    assert_eq!(comparable(&retrace_meta), comparable(&askui_meta));
    assert_eq!(askui_meta["execution_attempts"], 4);
    assert_eq!(askui_meta["failures"][1]["failure_count_at_step"], 2);
    for meta in [&askui_meta, &retrace_meta] {
        let at: jiff::Timestamp = meta["last_executed_at"].as_str().unwrap().parse().unwrap();
        assert!(
            at >= started
                .checked_sub(jiff::SignedDuration::from_secs(1))
                .unwrap(),
            "{meta}"
        );
    }
}

/// `verify_cache_execution(success=false)` after a full replay: askui's tool (driven by its
/// CacheExecutor) and retrace's transition both count the attempt, set `last_executed_at`,
/// invalidate with askui's reason and add no failure.
#[test]
fn an_unsuccessful_verdict_invalidates_as_askui_does() {
    let Some(python) = python::venv(ASKUI) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let theirs = exported_demo(dir.path(), "askui");
    let ours = exported_demo(dir.path(), "retrace");
    let notes = "the invoice list shows no new draft";
    let answers = askui(&python, &json!([replay_job(&theirs, Some(false), notes)]));
    assert_eq!(answers[0]["outcome"], "completed", "{:#}", answers[0]);
    let outcome = CacheStore::new(dir.path())
        .update(
            "retrace.json",
            &MetadataUpdate::RecordUnsuccessful {
                notes: notes.into(),
                counted: false,
            },
            &Validators::default(),
        )
        .unwrap();
    let (askui_meta, retrace_meta) = (metadata(&theirs), metadata(&ours));
    assert_eq!(comparable(&retrace_meta), comparable(&askui_meta));
    assert_eq!(askui_meta["is_valid"], false);
    assert_eq!(
        askui_meta["invalidation_reason"],
        "Agent reported unsuccessful cache execution: the invoice list shows no new draft"
    );
    assert_eq!(
        outcome.invalidated,
        askui_meta["invalidation_reason"]
            .as_str()
            .map(str::to_owned)
    );
}

/// A step no tool of the run can replay (askui's `locate`, which needs a model): askui's
/// CacheExecutor pauses for its agent and writes nothing; `retrace replay` (no model) ends as
/// "needs a model" with exit 1 and writes nothing either.
#[test]
fn a_step_that_needs_a_model_ends_the_replay_and_counts_nothing_as_askui() {
    retrace_test_support::require!(Chromium);
    let Some(python) = python::venv(ASKUI) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let file = exported_demo(dir.path(), "demo");
    let mut value = read_json(&file);
    let locate = json!({"id": "toolu_locate", "input": {}, "name": "locate_tags_computer_2c36cab8-7d99-447a-b30e-000000000000", "type": "tool_use", "cache_control": null, "visual_representation": null, "extra_content": null});
    value["trajectory"]
        .as_array_mut()
        .unwrap()
        .insert(3, locate);
    std::fs::write(&file, serde_json::to_vec_pretty(&value).unwrap()).unwrap();
    let before = metadata(&file);

    let answers = askui(&python, &json!([replay_job(&file, None, "")]));
    assert_eq!(answers[0]["outcome"], "paused", "{:#}", answers[0]);
    assert!(
        answers[0]["message"]
            .as_str()
            .unwrap()
            .contains("Cache execution paused at step 3"),
        "{:#}",
        answers[0]
    );
    assert_eq!(metadata(&file), before, "askui wrote nothing");

    let demo = retrace_test_support::demo::DemoThread::start(retrace_demo::DemoConfig::default());
    let output = Command::new(env!("CARGO_BIN_EXE_retrace"))
        .arg("replay")
        .arg(&file)
        .args(["--url", demo.url()])
        .args([
            "--param",
            "username=demo",
            "--param",
            "password=retrace-demo-pw",
        ])
        .arg("--json")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stdout}\n{stderr}");
    let summary: Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(summary["replay"]["status"], "paused", "{summary:#}");
    assert_eq!(
        summary["replay"]["failure"]["kind"], "needs_model",
        "{summary:#}"
    );
    assert_eq!(summary["replay"]["failure"]["step"], 4, "{summary:#}");
    assert_eq!(metadata(&file), before, "retrace wrote nothing");
}

/// askui rewrites the exported file (its verdict), dropping retrace's extra fields; `retrace
/// replay` still replays it in Chromium through askui's tools, and says which checks the file
/// no longer allows.
#[test]
fn an_export_rewritten_by_askui_replays_and_names_the_checks_it_lost() {
    retrace_test_support::require!(Chromium);
    let Some(python) = python::venv(ASKUI) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let file = exported_demo(dir.path(), "demo");
    assert!(read_json(&file)["trajectory"][1]["element"].is_object());
    let answers = askui(&python, &json!([replay_job(&file, Some(true), "ok")]));
    assert_eq!(answers[0]["outcome"], "completed", "{:#}", answers[0]);
    let rewritten = read_json(&file);
    assert!(
        rewritten["trajectory"][1].get("element").is_none(),
        "askui kept `element`"
    );

    let demo = retrace_test_support::demo::DemoThread::start(retrace_demo::DemoConfig::default());
    let output = Command::new(env!("CARGO_BIN_EXE_retrace"))
        .arg("replay")
        .arg(&file)
        .args(["--url", demo.url()])
        .args([
            "--param",
            "username=demo",
            "--param",
            "password=retrace-demo-pw",
        ])
        .arg("--json")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stdout}\n{stderr}");
    let summary: Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(
        summary["replay"]["checks_passed"]["visual"], 8,
        "{summary:#}"
    );
    let off: Vec<&str> = summary["replay"]["checks_off"]
        .as_array()
        .unwrap()
        .iter()
        .map(|note| note.as_str().unwrap())
        .collect();
    assert!(
        off.iter()
            .any(|n| n.starts_with("semantic: the file holds no element descriptions")),
        "{off:?}"
    );
    assert!(
        off.iter()
            .any(|n| n.starts_with("effect: the file holds no after-action hashes")),
        "{off:?}"
    );
}
