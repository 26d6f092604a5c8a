//! Replay you can trust, end to end: the bundled recording (made with element descriptions)
//! replayed by the real binary in real headless Chromium against demo apps with one fault
//! each. Each regression fails at its own step, with a message naming what differs; a slow
//! page is waited for, not acted on.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

use retrace_demo::DemoConfig;
use retrace_demo::Faults;
use retrace_demo::Latency;
use retrace_demo::Layout;
use retrace_test_support::cli::demo_replay;
use retrace_test_support::demo::DemoThread;
use serde_json::Value;

/// `retrace replay` of the bundled recording against `config`'s app, `--json`; the exit code
/// and the summary.
fn replay_against(config: DemoConfig, extra: &[&str]) -> (Option<i32>, Value) {
    let demo = DemoThread::start(config);
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("flow.json");
    std::fs::write(&file, retrace_runner::demo::DEMO_RECORDING).unwrap();
    replay_file(&file, demo.url(), extra)
}

fn replay_file(file: &Path, url: &str, extra: &[&str]) -> (Option<i32>, Value) {
    let output = demo_replay(env!("CARGO_BIN_EXE_retrace"), file, url)
        .args(extra)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let summary: Value = serde_json::from_str(stdout.trim()).unwrap_or_else(|error| {
        panic!(
            "{error}: {stdout}\n{}",
            String::from_utf8_lossy(&output.stderr)
        )
    });
    (output.status.code(), summary)
}

/// Replays against the app with `faults` and expects a failure at `step` of `kind`; the
/// failure's message.
fn fails_with_faults_at(faults: &str, step: usize, kind: &str) -> String {
    let (code, summary) = replay_against(
        DemoConfig {
            faults: faults.parse::<Faults>().unwrap(),
            ..DemoConfig::default()
        },
        &[],
    );
    assert_eq!(code, Some(1), "{summary}");
    let (failed_step, failed_kind, message) = failure(&summary);
    assert_eq!(
        (failed_step, failed_kind),
        (&Value::from(step), &Value::from(kind)),
        "{message}"
    );
    assert_eq!(summary["replay"]["steps_replayed"], step - 1, "{summary}");
    message.to_owned()
}

fn failure(summary: &Value) -> (&Value, &Value, &str) {
    let failure = &summary["replay"]["failure"];
    (
        &failure["step"],
        &failure["kind"],
        failure["message"].as_str().unwrap_or(""),
    )
}

/// "New invoice" relabelled "Add invoice" at the same width: the pixels of its 100 px region
/// barely change, the element's name does.
#[test]
fn a_control_renamed_at_the_same_width_fails_at_its_step_naming_both_labels() {
    retrace_test_support::require!(Chromium);
    let (code, summary) = replay_against(
        DemoConfig {
            layout: Layout::Rename,
            ..DemoConfig::default()
        },
        &[],
    );
    assert_eq!(code, Some(1), "{summary}");
    let (step, kind, message) = failure(&summary);
    assert_eq!(step, &Value::from(7), "{summary}");
    assert_eq!(kind, "mismatch", "{summary}");
    assert!(
        message.contains("expected button 'New invoice', found button 'Add invoice'"),
        "{message}"
    );
    assert!(message.contains("semantic"), "{message}");
}

/// "Save draft" ignores clicks: the modal stays open, so the step's after-action state is
/// never reached, and the failure names the save step itself, not a later one.
#[test]
fn a_control_that_ignores_clicks_fails_at_its_own_step() {
    retrace_test_support::require!(Chromium);
    fails_with_faults_at("save-ignores-clicks", 12, "effect");
}

/// The amount field drops the `.` of `120.00`: the typing step's focused field does not hold
/// what it held when recorded, and the failure says so without showing the text.
#[test]
fn typing_whose_value_the_page_rewrites_fails_at_the_typing_step() {
    retrace_test_support::require!(Chromium);
    let message = fails_with_faults_at("amount-rewritten", 11, "effect");
    assert!(message.contains("state check"), "{message}");
    assert!(
        message.contains("holds 5 characters, not the 6"),
        "{message}"
    );
    assert!(
        !message.contains("12000"),
        "typed text is never shown: {message}"
    );
}

/// The app's scripts arrive 1 s after the load event: the page looks the same without them,
/// but a request is in flight, so replay waits instead of typing into a page that drops it.
#[test]
fn a_page_whose_scripts_arrive_late_is_waited_for() {
    retrace_test_support::require!(Chromium);
    let (code, summary) = replay_against(
        DemoConfig {
            script_delay_ms: Some(1_000),
            ..DemoConfig::default()
        },
        &[],
    );
    assert_eq!(code, Some(0), "{summary}");
    assert_eq!(summary["replay"]["steps_replayed"], 12, "{summary}");
}

/// Every response takes 3 s: the network is busy, so each step waits it out and passes.
#[test]
fn steps_behind_a_three_second_server_response_still_pass() {
    retrace_test_support::require!(Chromium);
    let (code, summary) = replay_against(
        DemoConfig {
            latency: Latency::Fixed(3_000),
            ..DemoConfig::default()
        },
        &[],
    );
    assert_eq!(code, Some(0), "{summary}");
}

/// v2 relabels "New invoice": once the page has settled (no request, nothing moving) and the
/// search found nothing, the step fails then, not after the whole step timeout (30 s here).
#[test]
fn a_settled_page_that_does_not_match_fails_without_the_step_timeout() {
    retrace_test_support::require!(Chromium);
    let (code, summary) = replay_against(
        DemoConfig {
            layout: Layout::V2,
            ..DemoConfig::default()
        },
        &[],
    );
    assert_eq!(code, Some(1), "{summary}");
    let (step, _, message) = failure(&summary);
    assert_eq!(step, &Value::from(7), "{summary}");
    assert!(message.contains("The page settled"), "{message}");
    let waited = summary["replay"]["failure"]["waited_ms"].as_u64().unwrap();
    assert!(
        waited < 30_000,
        "failed on the settled page, not at the step timeout: waited {waited} ms"
    );
}
