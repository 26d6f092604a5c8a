//! `retrace check` of a desktop window, end to end: the small GTK 3 window of `desktop_a11y`
//! (`desktop_a11y/probe.py`, Debian's Python with `python3-gi`: fast, and its label and
//! theme are ours to change) under a private Xvfb. A flow recorded on it with `retrace act`
//! and the scripted model (tick the box, press Save, type a note) brings each side to the
//! same state; each side is a run of the window with its own accessibility bus.
//!
//! - The same window twice, in the same state: PASS (the caret blinking in the focused field
//!   is no difference).
//! - The candidate in a dark theme (`--candidate-env GTK_THEME=Adwaita:dark`): FAIL, the
//!   window's background typed as a colour change, in the JUnit and HTML reports too.
//! - A button renamed so slightly that its pixels stay under the tolerance ("Save" to
//!   "Sava", compared as the windows start): FAIL through the accessibility tree, a text
//!   change naming both names.
//! - The flow failing on the candidate (the renamed button): ERROR, exit 2, naming the side
//!   and the step.
//! - A flow naming its own app command starts it only with `--allow-app-commands`.
//!
//! After every check, no process of either side is left on the display.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers outside #[test] fns

use std::path::Path;
use std::process::Output;

use retrace_test_support::cli::run_retrace;
use retrace_test_support::cli::summary_after_exit;
use retrace_test_support::processes::processes_with_environment;
use retrace_test_support::requirements::Need;
use retrace_test_support::xvfb::Xvfb;
use serde_json::Value;

use super::desktop_a11y::BUTTON;
use super::desktop_a11y::SCREEN;
use super::desktop_a11y::probe_command;
use super::desktop_a11y::record;
use super::desktop_a11y::step_clicking;

/// `retrace check --display DISPLAY --window Probe --json --out OUT ARGS`.
fn check(display: &str, out: &Path, args: &[&str]) -> Output {
    let mut all = vec![
        "check",
        "--display",
        display,
        "--window",
        "Probe",
        "--json",
        "--out",
        out.to_str().unwrap(),
    ];
    all.extend_from_slice(args);
    run_retrace(env!("CARGO_BIN_EXE_retrace"), &all, None)
}

/// The one window check of a `--json` document.
fn window_check(summary: &Value) -> &Value {
    let pages = summary["pages"].as_array().unwrap();
    assert_eq!(pages.len(), 1, "{summary}");
    assert_eq!(pages[0]["path"], "window Probe", "{summary}");
    &pages[0]
}

/// The differences of a check with `change`.
fn changes<'a>(check: &'a Value, change: &str) -> Vec<&'a Value> {
    check["differences"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["change"] == change)
        .collect()
}

fn assert_nothing_left(display: &str) {
    assert_eq!(
        processes_with_environment(&format!("DISPLAY={display}")),
        Vec::<u32>::new(),
        "every side's window, buses and registry were ended"
    );
}

#[test]
fn two_runs_of_a_gtk_window_are_checked_by_their_pixels_and_accessibility_trees() {
    for need in [Need::PythonGtk, Need::AtSpi] {
        if !retrace_test_support::requirements::present(need) {
            return;
        }
    }
    let Some(server) = Xvfb::start(SCREEN.0, SCREEN.1, 24) else {
        retrace_test_support::requirements::missing(Need::Xvfb);
        return;
    };
    let display = server.display();
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name);
    let (flow, trajectory) = record(&display, &probe_command(&path("recorded"), ""), dir.path());
    let (_, save_step) = step_clicking(&trajectory, BUTTON);
    let flow = flow.to_str().unwrap();
    let probe = probe_command(&path("sides"), "");
    let renamed = probe_command(&path("renamed"), "--label Sava");

    // The same window in the same state: PASS, with its evidence.
    let out = path("same");
    let output = check(
        &display,
        &out,
        &["--app", &probe, "--flow", flow, "--step-timeout", "20"],
    );
    let summary = summary_after_exit(&output, 0);
    let same = window_check(&summary);
    assert_eq!(same["verdict"], "PASS", "{summary}");
    assert_eq!(
        std::fs::read_to_string(path("sides")).unwrap(),
        "checked",
        "the flow brought the sides to its end state"
    );
    let result = out.join(format!(
        "window_Probe@{}x{}/attempt-1/result.json",
        same["viewport"][0], same["viewport"][1]
    ));
    let result: Value = serde_json::from_slice(&std::fs::read(&result).unwrap()).unwrap();
    assert!(
        result["accessibility"]["nodes"]["candidate"]
            .as_u64()
            .unwrap()
            > 3,
        "the accessibility tree was read: {result}"
    );
    assert_nothing_left(&display);

    // A dark theme on the candidate: FAIL, typed as the window's colours.
    let output = check(
        &display,
        &path("dark"),
        &[
            "--app",
            &probe,
            "--candidate-env",
            "GTK_THEME=Adwaita:dark",
            "--flow",
            flow,
            "--step-timeout",
            "20",
            "--report",
            "html,junit",
        ],
    );
    let summary = summary_after_exit(&output, 1);
    let dark = window_check(&summary);
    assert_eq!(dark["verdict"], "FAIL", "{summary}");
    let colours = changes(dark, "colour");
    assert!(!colours.is_empty(), "{summary}");
    assert_eq!(colours[0]["type"], "styling", "{summary}");
    assert!(
        colours[0]["description"]
            .as_str()
            .unwrap()
            .contains("background"),
        "{summary}"
    );
    // The suite reports as for pages: the JUnit failure, the HTML with both screenshots.
    let junit = std::fs::read_to_string(path("dark").join("junit.xml")).unwrap();
    assert!(junit.contains("<failure"), "{junit}");
    assert!(junit.contains("the background of frame"), "{junit}");
    let html = std::fs::read_to_string(path("dark").join("report.html")).unwrap();
    assert!(
        html.matches("data:image/png;base64,").count() >= 2,
        "both shots inlined"
    );
    assert_nothing_left(&display);

    // A renamed button whose pixels stay under the tolerance: FAIL by its accessible name.
    let output = check(
        &display,
        &path("renamed"),
        &[
            "--baseline-app",
            &probe,
            "--candidate-app",
            &renamed,
            "--max-diff-pixels",
            "100000",
        ],
    );
    let summary = summary_after_exit(&output, 1);
    let check_renamed = window_check(&summary);
    let texts = changes(check_renamed, "text");
    assert_eq!(
        check_renamed["differences"].as_array().unwrap().len(),
        1,
        "only the name: {summary}"
    );
    assert!(
        texts[0]["description"]
            .as_str()
            .unwrap()
            .contains("push button \"Save\" is now named \"Sava\""),
        "{summary}"
    );
    assert_nothing_left(&display);

    // The flow fails on the candidate (its button is not the recorded one): ERROR, exit 2,
    // naming the side and the step; nothing is compared.
    let output = check(
        &display,
        &path("broken"),
        &[
            "--app",
            &probe,
            "--candidate-app",
            &renamed,
            "--flow",
            flow,
            "--step-timeout",
            "5",
        ],
    );
    let summary = summary_after_exit(&output, 2);
    let broken = window_check(&summary);
    assert_eq!(broken["verdict"], "ERROR", "{summary}");
    let error = broken["error"].as_str().unwrap();
    assert!(error.starts_with("candidate: the flow "), "{error}");
    assert!(
        error.contains(&format!("failed at step {save_step}")),
        "{error}"
    );
    assert!(
        error.contains("expected push button 'Save', found push button 'Sava'"),
        "{error}"
    );
    assert_nothing_left(&display);

    // The flow names its own app command: it starts only when allowed.
    let output = check(&display, &path("own"), &["--flow", flow]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("--allow-app-commands"), "{stderr}");
    let output = check(
        &display,
        &path("own"),
        &[
            "--flow",
            flow,
            "--allow-app-commands",
            "--step-timeout",
            "20",
        ],
    );
    let summary = summary_after_exit(&output, 0);
    assert_eq!(window_check(&summary)["verdict"], "PASS", "{summary}");
    assert_nothing_left(&display);
}
