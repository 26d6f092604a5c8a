//! The desktop's accessibility layer, end to end: a small GTK 3 window the test starts
//! (`desktop_a11y/probe.py`, Debian's Python with `python3-gi`) under a private Xvfb,
//! recorded by `retrace act --display --app` with the scripted model, then replayed with no
//! model. retrace starts a session bus and the AT-SPI accessibility bus for the window, which
//! publishes its widgets there; the recording stores the element each step acted on, and
//! replay checks it.
//!
//! - A check box toggled by a step is verified by its accessibility state: a check box that
//!   ignores the click fails that step saying it should be checked.
//! - Text typed into a field is verified by the text the field holds: a field that keeps
//!   fewer characters fails the typing step (the lengths are named, never the text).
//! - A button renamed so slightly that its region hashes within the visual threshold ("Save"
//!   to "Sava") fails through the accessibility layer, naming both buttons.
//! - The same window without its accessibility bridge (`NO_AT_BRIDGE=1`) replays with the
//!   visual layer alone, and retrace says so once.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers outside #[test] fns

use std::path::Path;
use std::path::PathBuf;
use std::process::Output;

use retrace_test_support::cli::act_record_on;
use retrace_test_support::cli::run_retrace;
use retrace_test_support::cli::summary_after_exit;
use retrace_test_support::fake_model::ScriptStep;
use retrace_test_support::processes::processes_with_environment;
use retrace_test_support::requirements::Need;
use retrace_test_support::xvfb::Xvfb;
use serde_json::Value;
use serde_json::json;

/// The screen: the model sees it at its own size (no scaling).
pub(super) const SCREEN: (u32, u32) = (1280, 800);

/// The check box (its box, the indicator at its left) and the button, as the probe window
/// lays them out at (100, 100).
const CHECK_BOX: [i64; 2] = [140, 135];
pub(super) const BUTTON: [i64; 2] = [157, 179];
const FIELD: [i64; 2] = [280, 262];

/// What the flow types into the field.
const NOTE: &str = "draft";

/// The message retrace gives once for an application without an accessibility tree.
const NO_TREE: &str = "publishes no accessibility tree";

/// The probe window's script.
fn probe() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cli/desktop_a11y/probe.py")
}

/// The `--app` command: the probe with `args`, writing its end state to `out`.
pub(super) fn probe_command(out: &Path, args: &str) -> String {
    format!(
        "exec /usr/bin/python3 {} --out {} {args}",
        probe().display(),
        out.display()
    )
}

/// `retrace ARGS`, with no model.
fn retrace(args: &[&str]) -> Output {
    run_retrace(env!("CARGO_BIN_EXE_retrace"), args, None)
}

/// Look, tick the check box, press the button, write a note in the field, say it is done.
fn script() -> Vec<ScriptStep> {
    vec![
        ScriptStep::computer(json!({"action": "screenshot"})),
        ScriptStep::left_click(CHECK_BOX[0], CHECK_BOX[1]),
        ScriptStep::left_click(BUTTON[0], BUTTON[1]),
        ScriptStep::left_click(FIELD[0], FIELD[1]),
        ScriptStep::computer(json!({"action": "type", "text": NOTE})),
        ScriptStep::text("Ticked the box, saved, and wrote a note."),
    ]
}

/// Records the flow with `retrace act` and the scripted model on the probe `app` on
/// `display`: the trajectory, read back.
pub(super) fn record(display: &str, app: &str, dir: &Path) -> (PathBuf, Value) {
    let target = ["--display", display, "--app", app, "--window", "Probe"];
    let file = act_record_on(
        env!("CARGO_BIN_EXE_retrace"),
        "Tick 'Remember me' and press Save",
        &target,
        script(),
        dir,
        "probe.json",
    );
    let trajectory = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    (file, trajectory)
}

/// `retrace replay FILE --display D --app COMMAND --window Probe --json`, no model.
fn replay(file: &Path, display: &str, app: &str, step_timeout: &str) -> Output {
    retrace(&[
        "replay",
        file.to_str().unwrap(),
        "--display",
        display,
        "--app",
        app,
        "--window",
        "Probe",
        "--step-timeout",
        step_timeout,
        "--json",
    ])
}

/// The recorded step (0-based in the trajectory) clicking at `at`, and its 1-based number.
pub(super) fn step_clicking(trajectory: &Value, at: [i64; 2]) -> (&Value, u64) {
    let steps = trajectory["trajectory"].as_array().unwrap();
    let index = steps
        .iter()
        .position(|step| step["input"]["coordinate"] == json!(at))
        .unwrap_or_else(|| panic!("no step clicks at {at:?}"));
    (&steps[index], index as u64 + 1)
}

/// The failure's message of a replay that failed (exit 1) at step `step`.
fn failed_at(output: &Output, step: u64) -> String {
    let summary = summary_after_exit(output, 1);
    assert_eq!(summary["replay"]["status"], "failed", "{summary}");
    assert_eq!(summary["replay"]["failure"]["step"], step, "{summary}");
    summary["replay"]["failure"]["message"]
        .as_str()
        .unwrap()
        .to_owned()
}

#[test]
fn a_gtk_window_is_checked_through_its_accessibility_tree() {
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
    let out = |name: &str| dir.path().join(name);

    // Record: the scripted model ticks the box and presses Save.
    let (file, trajectory) = record(&display, &probe_command(&out("recorded"), ""), dir.path());
    assert_eq!(
        std::fs::read_to_string(out("recorded")).unwrap(),
        "checked",
        "the window saved with the box ticked"
    );

    // Each step carries the element it acted on, read over AT-SPI, and the check box its
    // state after the click.
    let (tick, tick_step) = step_clicking(&trajectory, CHECK_BOX);
    assert_eq!(tick["element"]["role"], "check box", "{tick}");
    assert_eq!(tick["element"]["name"], "Remember me", "{tick}");
    assert_eq!(tick["element_after"]["checked"], true, "{tick}");
    let (save, save_step) = step_clicking(&trajectory, BUTTON);
    assert_eq!(save["element"]["role"], "push button", "{save}");
    assert_eq!(save["element"]["name"], "Save", "{save}");

    // Typing records the field with the focus, and the text it holds after.
    let steps = trajectory["trajectory"].as_array().unwrap();
    let typing_step = steps
        .iter()
        .position(|step| step["input"]["text"] == NOTE)
        .unwrap() as u64
        + 1;
    let typing = &steps[typing_step as usize - 1];
    assert_eq!(typing["element"]["role"], "text", "{typing}");
    assert_eq!(typing["focused_after"]["value"], NOTE, "{typing}");

    // Replayed as recorded: green, and the window ends in the recorded state.
    let output = replay(&file, &display, &probe_command(&out("again"), ""), "20");
    let summary = summary_after_exit(&output, 0);
    assert_eq!(summary["replay"]["status"], "passed", "{summary}");
    assert_eq!(std::fs::read_to_string(out("again")).unwrap(), "checked");

    // A check box that ignores the click fails its own step, by its accessibility state.
    let output = replay(
        &file,
        &display,
        &probe_command(&out("stuck"), "--stuck"),
        "5",
    );
    let message = failed_at(&output, tick_step);
    assert!(
        message.contains(
            "check box 'Remember me' should be checked = True after the action, but is False"
        ),
        "{message}"
    );
    assert!(!out("stuck").exists(), "the replay stopped before Save");

    // A field that keeps only 3 of the 5 characters typed fails the typing step, by the
    // text it holds (compared, never shown).
    let output = replay(
        &file,
        &display,
        &probe_command(&out("short"), "--max 3"),
        "5",
    );
    let message = failed_at(&output, typing_step);
    assert!(
        message.contains("text holds 3 characters, not the 5 it held"),
        "{message}"
    );
    assert!(
        !message.contains(NOTE),
        "the text itself is not shown: {message}"
    );

    // A button renamed so slightly that its region hashes within the visual threshold: the
    // accessibility layer fails the step, naming both.
    let output = replay(
        &file,
        &display,
        &probe_command(&out("renamed"), "--label Sava"),
        "5",
    );
    let message = failed_at(&output, save_step);
    assert!(
        message.starts_with(&format!("The semantic check failed at step {save_step}")),
        "the visual check passed, the semantic one did not: {message}"
    );
    assert!(
        message.contains("expected push button 'Save', found push button 'Sava'"),
        "{message}"
    );
    assert!(!out("renamed").exists(), "the replay did not press it");
    assert_eq!(
        processes_with_environment(&format!("DISPLAY={display}")),
        Vec::<u32>::new(),
        "the windows, buses and registries of every run were ended"
    );
}

#[test]
fn a_window_without_the_accessibility_bridge_replays_with_the_visual_layer_and_says_so() {
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
    let out = |name: &str| dir.path().join(name);
    let no_bridge = |name: &str| format!("NO_AT_BRIDGE=1 {}", probe_command(&out(name), ""));

    // Recorded with the bridge: the steps carry their elements.
    let (file, trajectory) = record(&display, &probe_command(&out("recorded"), ""), dir.path());
    let (tick, _) = step_clicking(&trajectory, CHECK_BOX);
    assert_eq!(tick["element"]["role"], "check box", "{tick}");

    // Replayed without it (the same window, whose click on the check box would fail a
    // semantic check that found nothing): the visual layer alone passes, and the replay
    // says so once.
    let events = dir.path().join("events.jsonl");
    let output = retrace(&[
        "replay",
        file.to_str().unwrap(),
        "--display",
        &display,
        "--app",
        &no_bridge("replayed"),
        "--window",
        "Probe",
        "--step-timeout",
        "20",
        "--events",
        events.to_str().unwrap(),
    ]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{stdout}");
    assert_eq!(std::fs::read_to_string(out("replayed")).unwrap(), "checked");
    let said: Vec<&str> = stdout
        .lines()
        .filter(|line| line.contains(NO_TREE))
        .collect();
    assert_eq!(said.len(), 1, "{stdout}");
    assert!(said[0].contains("visual layer alone"), "{stdout}");
    let log = std::fs::read_to_string(&events).unwrap();
    let notices: Vec<Value> = log
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .filter(|event| event.to_string().contains(NO_TREE))
        .collect();
    assert_eq!(notices.len(), 1, "{log}");
    assert_eq!(notices[0]["target"], format!("desktop {display}"), "{log}");
    assert_eq!(
        processes_with_environment(&format!("DISPLAY={display}")),
        Vec::<u32>::new(),
        "the windows and buses of every run were ended"
    );
}
