//! `act --tool-format askui`: a run recorded straight into askui 0.48's computer tools, which
//! retrace replays too (askui's own executor replaying that vocabulary is checked on an export
//! in `askui_export.rs`; both are written by `retrace_cache::export_askui`).

use std::path::Path;

use retrace_test_support::cli::runtime;
use retrace_test_support::cli::summary_after_exit;
use retrace_test_support::demo::DemoConfig;
use retrace_test_support::demo::DemoThread;
use retrace_test_support::fake_model::FakeAnthropic;
use serde_json::Value;

use super::PASSWORD;
use super::act_cached;
use super::hex16;
use super::login_points;
use super::login_script;
use super::replay_logged_in;
use super::retrace;

/// The askui tool a step calls, without its `_tags_..._<uuid>` suffix.
fn askui_base(step: &Value) -> &str {
    let name = step["name"].as_str().unwrap();
    name.split("_tags_").next().unwrap()
}

#[test]
fn act_records_in_askuis_tools_and_the_recording_replays() {
    retrace_test_support::require!(Chromium);
    let demo = DemoThread::start(DemoConfig::default());
    let runtime = runtime();
    let points = login_points(&runtime, demo.url());
    let fake = runtime.block_on(FakeAnthropic::start(login_script(&points)));
    let dir = tempfile::tempdir().unwrap();
    let cache_dir = dir.path().join("cache");
    let events = dir.path().join("events.jsonl");
    let output = act_cached(
        "Log in as {{username}} with password {{password}}",
        demo.url(),
        "record",
        &cache_dir,
        &[
            "--tool-format",
            "askui",
            "--events",
            events.to_str().unwrap(),
        ],
        &fake.base_url(),
    );
    summary_after_exit(&output, 0);
    let file = cache_dir.join("login.json");
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(
        !text.contains(PASSWORD),
        "the password leaked into the file"
    );
    let cache: Value = serde_json::from_str(&text).unwrap();
    let steps = cache["trajectory"].as_array().unwrap();

    // askui's vocabulary: a hashed move to each point, then the click; text typed by `type`.
    let tools: Vec<&str> = steps
        .iter()
        .map(askui_base)
        .filter(|tool| *tool != "screenshot")
        .collect();
    assert_eq!(
        tools,
        [
            "move_mouse",
            "mouse_click",
            "type",
            "move_mouse",
            "mouse_click",
            "type",
            "move_mouse",
            "mouse_click",
        ]
    );
    assert!(steps.iter().all(|step| step.get("name").is_some()
        && !step["name"].as_str().unwrap().starts_with("computer")));
    let moves: Vec<&Value> = steps
        .iter()
        .filter(|step| askui_base(step) == "move_mouse")
        .collect();
    for step in &moves {
        assert!(hex16(&step["visual_representation"]), "no hash at {step}");
        assert!(step["input"]["x"].is_i64() && step["input"]["y"].is_i64());
    }
    let typed: Vec<&str> = steps
        .iter()
        .filter(|step| askui_base(step) == "type")
        .map(|step| step["input"]["text"].as_str().unwrap())
        .collect();
    assert_eq!(typed, ["{{username}}", "{{password}}"]);
    // What askui cannot keep is left out, and said.
    assert!(!text.contains("visual_representation_after"));
    let log = std::fs::read_to_string(&events).unwrap();
    let written = log
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .find(|event| event["type"] == "cache_written")
        .unwrap_or_else(|| panic!("no cache_written event in {log}"));
    let notes = written["notes"].to_string();
    assert!(
        notes.contains("left out `visual_representation_after`"),
        "{notes}"
    );

    // retrace replays the askui file with its hash checks.
    let output = replay_logged_in(&file, demo.url(), &[]);
    let replay = summary_after_exit(&output, 0);
    assert_eq!(replay["status"], "passed", "{replay}");
    assert_eq!(
        replay["replay"]["checks_passed"]["visual"],
        moves.len(),
        "{replay}"
    );
}

#[test]
fn askui_format_refuses_a_hash_size_askui_cannot_check() {
    let dir = tempfile::tempdir().unwrap();
    let output = retrace(
        &[
            "act",
            "Log in",
            "--url",
            "http://127.0.0.1:9/",
            "--cache",
            "record",
            "--cache-dir",
            dir.path().to_str().unwrap(),
            "--tool-format",
            "askui",
            "--hash-size",
            "16",
        ],
        Some("http://127.0.0.1:9"),
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("--tool-format askui") && stderr.contains("--hash-size 16"),
        "{stderr}"
    );
    assert!(!Path::new(&dir.path().join("login.json")).exists());
}
