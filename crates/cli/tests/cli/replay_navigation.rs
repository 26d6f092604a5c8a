//! Effects that mean what the step was for, end to end: the real binary, the bundled demo
//! recording, real headless Chromium. A step that started a navigation when recorded (the
//! sign-in submit) is checked by where it leads, not by the pixels around the button it
//! clicked; no recorded after-action region is blank.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::Read;
use std::io::Write;
use std::path::Path;
use std::process::Command;

use retrace_runner::demo::DEMO_RECORDING;
use retrace_test_support::demo::DemoConfig;
use retrace_test_support::demo::DemoThread;
use retrace_test_support::suite_run;
use retrace_test_support::suite_run::stdout_json;
use serde_json::Value;

/// The sign-in submit: the step that navigates to the dashboard (1-based).
const SIGN_IN_STEP: usize = 6;

fn retrace(cwd: &Path) -> Command {
    suite_run::retrace_in(env!("CARGO_BIN_EXE_retrace"), cwd)
}

/// `retrace run flows` in `suite` against `url` with the demo's parameters, `--json`, and
/// `extra`.
fn run_flows(suite: &Path, url: &str, extra: &[&str]) -> std::process::Output {
    retrace(suite)
        .args(["run", "flows", "--url", url, "--json"])
        .args(extra)
        .args(["--param", "username=demo", "--param"])
        .arg(format!("password={}", retrace_demo::DEMO_PASSWORD))
        .output()
        .unwrap()
}

/// The signed-in dashboard's HTML, fetched with the demo account's session cookie.
fn dashboard(url: &str) -> String {
    let address = url.trim_start_matches("http://").trim_end_matches('/');
    let mut stream = std::net::TcpStream::connect(address).unwrap();
    write!(
        stream,
        "GET /dashboard HTTP/1.1\r\nHost: {address}\r\nCookie: {}={}\r\nConnection: close\r\n\r\n",
        retrace_demo::SESSION_COOKIE,
        retrace_demo::DEMO_USERNAME
    )
    .unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    response
}

/// 8 copies of the demo flow (sign in, add a draft invoice), run 10 times with `--jobs 4`
/// against one app that shares saved drafts: from the second test on, the dashboard shows the
/// others' drafts in a card where the sign-in button was, the region a pixel check of the
/// sign-in's effect hashes. Every run passes: the sign-in is checked by its navigation.
#[test]
fn a_suite_that_sees_its_own_records_passes_ten_runs_of_ten() {
    retrace_test_support::require!(Chromium);
    let app = DemoThread::start(DemoConfig {
        recent_drafts: true,
        ..DemoConfig::default()
    });
    let dir = tempfile::tempdir().unwrap();
    let suite = dir.path();
    for index in 1..=8 {
        suite_run::write_recording(suite, &format!("flows/flow-{index}.json"), DEMO_RECORDING);
    }
    let mut failures = Vec::new();
    for run in 1..=10 {
        let output = run_flows(suite, app.url(), &["--jobs", "4"]);
        let report = stdout_json(&output);
        assert_eq!(report["totals"]["tests"], 8, "{report:#}");
        let not_passed: Vec<String> = report["tests"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|test| test["status"] != "passed")
            .map(|test| {
                let failure = &test["attempts"][0]["replay"]["failure"];
                format!(
                    "{} {} at step {}: {}",
                    test["id"], test["status"], test["step"], failure["message"]
                )
            })
            .collect();
        if output.status.code() != Some(0) || !not_passed.is_empty() {
            failures.push(format!("run {run}: {not_passed:#?}"));
        }
    }
    // The records were there to see: the dashboard shows the card.
    assert!(
        dashboard(app.url()).contains("id=\"recent-drafts\""),
        "no test saved a shared draft"
    );
    assert!(failures.is_empty(), "{failures:#?}");
}

/// A wrong password: the sign-in leads back to the form, and the replay fails at the sign-in
/// step, naming the path it should have reached and the one it reached, as soon as the page
/// has settled there.
#[test]
fn a_login_that_fails_fails_at_its_step_naming_both_paths() {
    retrace_test_support::require!(Chromium);
    let app = DemoThread::start(DemoConfig::default());
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("flow.json");
    std::fs::write(&file, DEMO_RECORDING).unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_retrace"))
        .arg("replay")
        .arg(&file)
        .args(["--url", app.url(), "--json", "--param", "username=demo"])
        .args([
            "--param",
            "password=not-the-password",
            "--step-timeout",
            "10",
        ])
        .output()
        .unwrap();
    let summary = retrace_test_support::cli::json_summary(&output);
    assert_eq!(output.status.code(), Some(1), "{summary:#}");
    let failure = &summary["replay"]["failure"];
    assert_eq!(failure["step"], SIGN_IN_STEP, "{failure:#}");
    assert_eq!(failure["kind"], "effect", "{failure:#}");
    let message = failure["message"].as_str().unwrap();
    assert!(
        message.contains("should have reached the path /dashboard")
            && message.contains("reached /login"),
        "{message}"
    );
    assert!(!message.contains("not-the-password"), "{message}");
    // The form came back and the page settled: it failed then, in under 1.5 s (issue 39's
    // bound, which holds beside 4 busy processes), not after the 10 s step timeout, nor after
    // a screenshot asked for during the navigation was left hanging for 2 s.
    let waited = failure["waited_ms"].as_u64().unwrap();
    eprintln!("the failed sign-in failed after {waited} ms");
    assert!(waited < 1_500, "waited {waited} ms: {message}");
    assert!(message.contains("The page settled"), "{message}");
}

/// A recording made now of the demo flow: no after-action region is blank, and `cache
/// check` finds nothing wrong with it; the sign-in step records where it leads.
#[test]
fn a_fresh_recording_of_the_demo_flow_has_no_blank_after_region() {
    retrace_test_support::require!(Chromium);
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("fresh.json");
    let output = retrace(dir.path())
        .args(["demo", "--rerecord"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let recording: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let steps = recording["trajectory"].as_array().unwrap();
    let mut recentred = 0;
    for (index, step) in steps.iter().enumerate() {
        let after = step["visual_representation_after"]
            .as_str()
            .or_else(|| step["visual_representation_after_recentred"]["hash"].as_str());
        if let Some(after) = after {
            let hash = retrace_vision::ImageHash::from_hex(after).unwrap();
            assert!(!hash.is_near_flat(), "step {}: {step:#}", index + 1);
        }
        recentred += usize::from(step["visual_representation_after_recentred"].is_object());
    }
    // The clicks into the two login fields and on New invoice left blank regions around
    // their points.
    assert_eq!(recentred, 3, "{recording:#}");
    assert_eq!(
        steps[SIGN_IN_STEP - 1]["page_after"],
        serde_json::json!({"path": "/dashboard", "title": "Dashboard · Ledgerline"})
    );
    let check = retrace(dir.path())
        .args(["cache", "check"])
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(
        check.status.code(),
        Some(0),
        "{}{}",
        String::from_utf8_lossy(&check.stdout),
        String::from_utf8_lossy(&check.stderr)
    );
}

/// "Save draft" ignores clicks: the step's effect never comes, and the report of its failure
/// carries both crops of the region it compared, the recorded one and the one seen.
#[test]
fn an_effect_failure_carries_the_recorded_and_the_actual_crop() {
    retrace_test_support::require!(Chromium);
    let app = DemoThread::start(DemoConfig {
        faults: "save-ignores-clicks".parse().unwrap(),
        ..DemoConfig::default()
    });
    let dir = tempfile::tempdir().unwrap();
    let suite = dir.path();
    suite_run::write_recording(suite, "flows/flow.json", DEMO_RECORDING);
    let output = run_flows(suite, app.url(), &["--report", "json", "--out", "out"]);
    let report = stdout_json(&output);
    let test = &report["tests"][0];
    assert_eq!(test["status"], "failed", "{test:#}");
    assert_eq!(test["step"], 12, "{test:#}");
    for crop in ["expected_crop", "actual_crop"] {
        let path = test["artifacts"][crop]
            .as_str()
            .unwrap_or_else(|| panic!("{test:#}"));
        assert!(suite.join("out").join(path).is_file(), "{crop}: {path}");
    }
}
