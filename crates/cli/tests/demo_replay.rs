//! `retrace demo` and `retrace replay` end to end: the real binary, the real demo app, real
//! headless Chromium.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::Command;

use serde_json::Value;

fn retrace() -> Command {
    Command::new(env!("CARGO_BIN_EXE_retrace"))
}

#[test]
fn demo_replays_repairs_the_moved_button_and_catches_the_changed_one() {
    let out = tempfile::tempdir().unwrap();
    let output = retrace()
        .args(["demo", "--json", "--latency-ms", "100..600", "--out"])
        .arg(out.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(
        output.status.code(),
        Some(0),
        "stdout: {stdout}\nstderr: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let summary: Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(summary["as_expected"], true);
    let v1 = &summary["phases"][0];
    assert_eq!(v1["layout"], "v1");
    assert_eq!(v1["passed"], true);
    assert_eq!(v1["visual_checks_passed"], 5);
    assert_eq!(v1["repairs"].as_array().unwrap().len(), 0);

    let v2 = &summary["phases"][1];
    assert_eq!(v2["passed"], false);
    let repairs = v2["repairs"].as_array().unwrap();
    assert_eq!(repairs.len(), 1, "{v2}");
    assert_eq!(repairs[0]["step"], 5);
    // The sign-in button moved 40 px right and 24 px down in v2.
    let offset = repairs[0]["offset"].as_array().unwrap();
    assert!(
        (offset[0].as_i64().unwrap() - 40).abs() <= 4
            && (offset[1].as_i64().unwrap() - 24).abs() <= 4,
        "{offset:?}"
    );
    let failure = v2["failure"].as_str().unwrap();
    assert!(
        failure.contains("Visual validation failed at step 6"),
        "{failure}"
    );
    assert!(failure.contains("> threshold: 10"), "{failure}");

    // Evidence: event logs with the checks, final screenshots, the file with its metadata.
    let evidence = std::path::PathBuf::from(summary["evidence"].as_str().unwrap());
    let events = std::fs::read_to_string(v2["events"].as_str().unwrap()).unwrap();
    assert!(
        events
            .lines()
            .any(|line| line.contains("\"visual_check\"") && line.contains("\"passed\":false"))
    );
    for phase in [v1, v2] {
        let png = std::fs::read(phase["screenshot"].as_str().unwrap()).unwrap();
        assert!(png.starts_with(b"\x89PNG"));
    }
    let file: Value =
        serde_json::from_str(&std::fs::read_to_string(evidence.join("demo_login.json")).unwrap())
            .unwrap();
    assert_eq!(file["metadata"]["execution_attempts"], 2);
    let failures = file["metadata"]["failures"].as_array().unwrap();
    assert_eq!(failures.len(), 1);
    assert_eq!(failures[0]["step_index"], 6);
    // The parameter values were never written.
    let text = std::fs::read_to_string(evidence.join("demo_login.json")).unwrap();
    assert!(!text.contains(retrace_demo::DEMO_PASSWORD));
}

#[test]
fn replay_names_missing_parameters_and_bad_files_with_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("demo.json");
    std::fs::write(&file, include_str!("../assets/demo_login.json")).unwrap();
    let output = retrace()
        .args(["replay"])
        .arg(&file)
        .args(["--url", "http://127.0.0.1:9/"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("needs values for its parameters: password, username"),
        "{stderr}"
    );

    let missing = dir.path().join("nope.json");
    let output = retrace()
        .args(["replay"])
        .arg(&missing)
        .args(["--url", "http://127.0.0.1:9/"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("nope.json"));
}

#[test]
fn replay_of_the_bundled_recording_passes_on_the_layout_it_was_recorded_on() {
    let demo = retrace_test_support::demo::DemoThread::start(retrace_demo::DemoConfig::default());
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("login.json");
    std::fs::write(&file, include_str!("../assets/demo_login.json")).unwrap();
    let output = retrace()
        .args(["replay"])
        .arg(&file)
        .args([
            "--url",
            demo.url(),
            "--param",
            "username=demo",
            "--param",
            "password=retrace-demo-pw",
            "--json",
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let summary: Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(summary["passed"], true);
    assert_eq!(summary["steps_replayed"], 7);
    assert_eq!(summary["visual_checks_passed"], 5);
    let file: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(file["metadata"]["execution_attempts"], 1);
    assert!(file["metadata"]["last_executed_at"].is_string());
}
