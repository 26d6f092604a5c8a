//! `retrace record --display` end to end: a private Xvfb, xedit (a real X11 program from
//! Debian's x11-apps) started by `retrace record --app`, a person's clicks and typing (with a
//! correction) made with `xdotool`, the recorder stopped with SIGTERM; then the file it wrote
//! passes `retrace cache check` (the Save click's before-hash is the screen the test saw
//! before clicking), replays green with no model on a fresh xedit (the saved
//! file, read here, is what the person saved) and fails at its first step when xedit starts
//! on a different file.
//!
//! Why xedit: it saves what it shows into the file it was given, so the end state is
//! checkable outside retrace, and it needs no home or settings of its own. The test never
//! sleeps: it polls the recorder's events file (each step is announced once the screen
//! settled after it) with deadlines.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers outside #[test] fns

use std::path::Path;
use std::path::PathBuf;
use std::process::Child;
use std::process::Command;
use std::time::Duration;

use retrace_test_support::cli::poll;
use retrace_test_support::cli::run_retrace;
use retrace_test_support::cli::summary_after_exit;
use retrace_test_support::requirements::Need;
use retrace_test_support::xvfb::Xvfb;
use serde_json::Value;
use serde_json::json;

const RETRACE: &str = env!("CARGO_BIN_EXE_retrace");

/// How long any one thing may take on a loaded machine.
const DEADLINE: Duration = Duration::from_secs(90);

/// The screen; xedit opens at its top-left (no window manager), 590x440.
const SCREEN: (u32, u32) = (800, 600);

/// Just right of the end of the file's first line (caret goes to its end), and the Save
/// button.
const LINE_END: (i64, i64) = (100, 118);
const SAVE: (i64, i64) = (55, 10);
const QUIT: (i64, i64) = (18, 10);

const FIRST_LINE: &str = "first line\n";

/// One xedit on `note.txt` in a folder of its own.
struct Editor {
    dir: tempfile::TempDir,
}

impl Editor {
    fn new(contents: &str) -> Self {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("note.txt"), contents).unwrap();
        Self { dir }
    }

    /// The `--app` command.
    fn command(&self) -> String {
        format!("cd {} && exec xedit note.txt", self.dir.path().display())
    }

    fn saved(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("note.txt")).unwrap()
    }
}

fn xdotool(server: &Xvfb, args: &[&str]) {
    let status = server.command("xdotool").args(args).status().unwrap();
    assert!(status.success(), "xdotool {args:?}: {status}");
}

/// The recorder's demonstration events so far, of `kind`.
fn events_of(path: &Path, kind: &str) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|event| event["type"] == "demonstration" && event["kind"] == kind)
        .collect()
}

/// Waits until the recorder announced `count` settled inputs.
fn wait_inputs(events: &Path, count: usize, recorder: &mut Child) {
    let announced = poll(DEADLINE, || {
        assert_eq!(recorder.try_wait().unwrap(), None, "retrace record ended");
        (events_of(events, "input").len() >= count).then_some(())
    });
    assert!(
        announced.is_some(),
        "no {count} inputs announced: {:?}",
        std::fs::read_to_string(events)
    );
}

fn replay(file: &Path, display: &str, editor: &Editor) -> std::process::Output {
    let app = editor.command();
    run_retrace(
        RETRACE,
        &[
            "replay",
            file.to_str().unwrap(),
            "--display",
            display,
            "--app",
            &app,
            "--window",
            "xedit",
            "--step-timeout",
            "20",
            "--json",
        ],
        None,
    )
}

/// `retrace record --display --app xedit --window xedit`, once it said it is recording.
fn start(server: &Xvfb, editor: &Editor, out: &Path, events: &Path) -> Child {
    let stderr = out.with_extension("stderr");
    let mut recorder = Command::new(RETRACE)
        .args(["record", "--display", &server.display(), "--app"])
        .arg(editor.command())
        .args(["--window", "xedit", "--out"])
        .arg(out)
        .arg("--events")
        .arg(events)
        .stdout(std::fs::File::create(out.with_extension("stdout")).unwrap())
        .stderr(std::fs::File::create(&stderr).unwrap())
        .spawn()
        .unwrap();
    let started = poll(DEADLINE, || {
        assert_eq!(recorder.try_wait().unwrap(), None, "retrace record ended");
        (!events_of(events, "started").is_empty()).then_some(())
    });
    assert!(started.is_some(), "{:?}", std::fs::read_to_string(&stderr));
    recorder
}

/// Records: click the end of the first line, Return, type "hellp", backspace, "o", click
/// Save, SIGTERM. Returns the file written and the hash of the Save button's region on the
/// screen the test saw just before clicking it.
fn demonstrate(server: &Xvfb, editor: &Editor, out: &Path, events: &Path) -> (PathBuf, String) {
    let mut recorder = start(server, editor, out, events);
    let at = |point: (i64, i64)| [point.0.to_string(), point.1.to_string()];
    let [x, y] = at(LINE_END);
    xdotool(server, &["mousemove", &x, &y, "click", "1"]);
    wait_inputs(events, 1, &mut recorder);
    // Each xdotool command is one announcement: the recorder says when the screen settled.
    for (n, args) in [
        ["key", "Return"],
        ["type", "hellp"],
        ["key", "BackSpace"],
        ["type", "o"],
    ]
    .iter()
    .enumerate()
    {
        xdotool(server, args);
        wait_inputs(events, n + 2, &mut recorder);
    }
    let seen = hash_on_screen(&server.display(), SAVE);
    let [x, y] = at(SAVE);
    xdotool(server, &["mousemove", &x, &y, "click", "1"]);
    wait_inputs(events, 6, &mut recorder);
    let pid = recorder.id().to_string();
    assert!(
        Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .unwrap()
            .success()
    );
    let status = recorder.wait().unwrap();
    assert_eq!(
        status.code(),
        Some(0),
        "{:?}",
        std::fs::read_to_string(out.with_extension("stderr"))
    );
    (out.to_path_buf(), seen)
}

/// The hash replay keeps for an action at `at` (the 100 px square, pHash), of the screen now,
/// read through the X11 backend the desktop target uses (xedit is the screen's only window,
/// at its top-left, so the screen there is the target's frame).
fn hash_on_screen(display: &str, at: (i64, i64)) -> String {
    use retrace_drive::Backend;
    let runtime = retrace_test_support::cli::runtime();
    let x11 = runtime
        .block_on(retrace_drive::x11::X11Backend::connect(Some(display)))
        .unwrap();
    let shot = runtime.block_on(x11.screenshot()).unwrap();
    let image = retrace_vision::decode_png(&shot.png).unwrap();
    retrace_replay::recorder::region_hash_at(&image, at, retrace_vision::Method::Phash, 100, 8)
        .unwrap()
        .to_string()
}

#[test]
fn a_persons_xedit_session_is_recorded_and_replays_without_a_model() {
    if !Path::new("/usr/bin/xedit").is_file() || !Path::new("/usr/bin/xdotool").is_file() {
        retrace_test_support::requirements::missing(Need::Xvfb);
        return;
    }
    let Some(server) = Xvfb::start(SCREEN.0, SCREEN.1, 24) else {
        retrace_test_support::requirements::missing(Need::Xvfb);
        return;
    };
    let display = server.display();
    let dir = tempfile::tempdir().unwrap();
    let events = dir.path().join("events.jsonl");
    let recorded = Editor::new(FIRST_LINE);
    let (file, seen_before_save) =
        demonstrate(&server, &recorded, &dir.path().join("note.json"), &events);
    let saved = recorded.saved();
    assert_eq!(saved, "first line\nhello\n", "what the person saved");

    // The file: the demonstrated steps, hashes before them, the desktop target.
    let trajectory: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    let steps = trajectory["trajectory"].as_array().unwrap();
    let inputs: Vec<&Value> = steps.iter().map(|step| &step["input"]).collect();
    assert_eq!(
        inputs,
        [
            &json!({"action": "left_click", "coordinate": [LINE_END.0, LINE_END.1]}),
            &json!({"action": "key", "text": "Return"}),
            &json!({"action": "type", "text": "hello"}),
            &json!({"action": "left_click", "coordinate": [SAVE.0, SAVE.1]}),
        ]
    );
    assert!(
        steps[0]["visual_representation"].is_string(),
        "{}",
        steps[0]
    );
    // The Save click's before-hash is the screen the test saw before clicking; after it, xedit
    // says it saved (in its message line, inside the region): the after-hash differs.
    let save = &steps[3];
    assert_eq!(save["visual_representation"], seen_before_save.as_str());
    assert_ne!(
        save["visual_representation_after"],
        save["visual_representation"]
    );
    assert!(save["visual_representation_after"].is_string(), "{save}");
    let metadata = &trajectory["metadata"];
    assert_eq!(metadata["recorded_from"], "demonstration");
    assert_eq!(metadata["token_usage"]["input_tokens"], 0);
    assert_eq!(metadata["target"]["kind"], "desktop");
    assert_eq!(metadata["target"]["window"], "xedit");
    assert_eq!(metadata["target"]["app"], recorded.command());
    let finished = events_of(&events, "finished");
    assert_eq!(finished[0]["stopped_by"], "interrupted", "{finished:?}");

    let check = run_retrace(RETRACE, &["cache", "check", file.to_str().unwrap()], None);
    assert_eq!(
        check.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&check.stdout)
    );

    // Replayed on a fresh xedit with no model: the same file saved.
    let fresh = Editor::new(FIRST_LINE);
    let output = replay(&file, &display, &fresh);
    let summary = summary_after_exit(&output, 0);
    assert_eq!(summary["replay"]["status"], "passed", "{summary}");
    assert_eq!(
        fresh.saved(),
        saved,
        "the replay saved what the person saved"
    );

    // xedit on another file: the first step's screen is not the recorded one.
    let other = Editor::new("another file, with a longer first line\n");
    let output = replay(&file, &display, &other);
    let summary = summary_after_exit(&output, 1);
    assert_eq!(summary["replay"]["status"], "failed", "{summary}");
    assert_eq!(summary["replay"]["failure"]["step"], 1, "{summary}");
    assert_eq!(other.saved(), "another file, with a longer first line\n");
}

/// A note longer than xedit's window: its first two lines are edited, row 31 is below the
/// fold until the wheel turns.
fn long_note() -> String {
    let mut note = String::from("alpha beta gamma\nsecond line here\n");
    for row in 3..=60 {
        note.push_str(&format!("row {row:02} of the note\n"));
    }
    note
}

/// In xedit's frame: "beta" on the first line; the second line from just before "line" to
/// just before "here"; amid the rows; the end of the last row once they turned ten lines.
const BETA: (i64, i64) = (73, 118);
const DRAG_FROM: (i64, i64) = (66, 132);
const DRAG_TO: (i64, i64) = (101, 132);
const WHEEL_AT: (i64, i64) = (80, 250);
const LAST_ROW_END: (i64, i64) = (300, 398);

/// Runs one xdotool command and waits until the recorder announced one more input (the
/// screen settled after it).
fn act(server: &Xvfb, args: &[&str], events: &Path, recorder: &mut Child) {
    let before = events_of(events, "input").len();
    xdotool(server, args);
    wait_inputs(events, before + 1, recorder);
}

/// Waits until the recorder announced step `step` as a summary starting with `summary`.
fn wait_step(events: &Path, step: usize, summary: &str, recorder: &mut Child) {
    let announced = poll(DEADLINE, || {
        assert_eq!(recorder.try_wait().unwrap(), None, "retrace record ended");
        events_of(events, "input")
            .iter()
            .any(|event| {
                event["step"] == step
                    && event["summary"]
                        .as_str()
                        .is_some_and(|text| text.starts_with(summary))
            })
            .then_some(())
    });
    assert!(
        announced.is_some(),
        "step {step} never announced as {summary:?}: {:?}",
        std::fs::read_to_string(events)
    );
}

/// Records: a double click on "beta" (xedit selects the word) and Ctrl+W (xedit's
/// kill-selection), "delta" typed in its place; a drag across "line " on the second line and
/// Ctrl+W; ten wheel notches down, one at a time; a click at the end of the row that came
/// into view, " seen" typed; Save; SIGTERM.
fn demonstrate_gestures(server: &Xvfb, editor: &Editor, out: &Path, events: &Path) {
    let mut recorder = start(server, editor, out, events);
    let [x, y] = [BETA.0.to_string(), BETA.1.to_string()];
    let double = [
        "mousemove",
        &x,
        &y,
        "click",
        "--repeat",
        "2",
        "--delay",
        "60",
        "1",
    ];
    xdotool(server, &double);
    // Its first click may be announced on its own before the second makes it a double click.
    wait_step(events, 1, "double_click at (73, 118)", &mut recorder);
    act(server, &["key", "ctrl+w"], events, &mut recorder);
    act(server, &["type", "delta"], events, &mut recorder);
    let (from, to) = (
        [DRAG_FROM.0.to_string(), DRAG_FROM.1.to_string()],
        [DRAG_TO.0.to_string(), DRAG_TO.1.to_string()],
    );
    let drag = [
        "mousemove",
        &from[0],
        &from[1],
        "mousedown",
        "1",
        "mousemove",
        "85",
        "132",
        "mousemove",
        &to[0],
        &to[1],
        "mouseup",
        "1",
    ];
    act(server, &drag, events, &mut recorder);
    act(server, &["key", "ctrl+w"], events, &mut recorder);
    let [x, y] = [WHEEL_AT.0.to_string(), WHEEL_AT.1.to_string()];
    xdotool(server, &["mousemove", &x, &y]);
    for _ in 0..10 {
        act(server, &["click", "5"], events, &mut recorder);
    }
    let [x, y] = [LAST_ROW_END.0.to_string(), LAST_ROW_END.1.to_string()];
    act(
        server,
        &["mousemove", &x, &y, "click", "1"],
        events,
        &mut recorder,
    );
    act(server, &["type", " seen"], events, &mut recorder);
    let [x, y] = [SAVE.0.to_string(), SAVE.1.to_string()];
    act(
        server,
        &["mousemove", &x, &y, "click", "1"],
        events,
        &mut recorder,
    );
    let pid = recorder.id().to_string();
    let term = Command::new("kill").args(["-TERM", &pid]).status().unwrap();
    assert!(term.success());
    let status = recorder.wait().unwrap();
    assert_eq!(
        status.code(),
        Some(0),
        "{:?}",
        std::fs::read_to_string(out.with_extension("stderr"))
    );
}

#[test]
fn a_double_click_a_drag_and_wheel_turns_in_xedit_are_recorded_and_replay_green() {
    if !Path::new("/usr/bin/xedit").is_file() || !Path::new("/usr/bin/xdotool").is_file() {
        retrace_test_support::requirements::missing(Need::Xvfb);
        return;
    }
    let Some(server) = Xvfb::start(SCREEN.0, SCREEN.1, 24) else {
        retrace_test_support::requirements::missing(Need::Xvfb);
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let (file, events) = (
        dir.path().join("gestures.json"),
        dir.path().join("events.jsonl"),
    );
    let recorded = Editor::new(&long_note());
    demonstrate_gestures(&server, &recorded, &file, &events);
    // What xedit saved proves each gesture did its part: the word the double click chose,
    // the text the drag chose, the row the wheel brought into view.
    let expected = long_note()
        .replacen("alpha beta gamma", "alpha delta gamma", 1)
        .replacen("second line here", "second here", 1)
        .replacen("row 31 of the note", "row 31 of the note seen", 1);
    assert_eq!(recorded.saved(), expected, "what the person saved");

    let trajectory: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    let inputs: Vec<&Value> = trajectory["trajectory"]
        .as_array()
        .unwrap()
        .iter()
        .map(|step| &step["input"])
        .collect();
    assert_eq!(
        inputs,
        [
            &json!({"action": "double_click", "coordinate": [BETA.0, BETA.1]}),
            &json!({"action": "key", "text": "ctrl+w"}),
            &json!({"action": "type", "text": "delta"}),
            &json!({"action": "left_click_drag", "start_coordinate": [DRAG_FROM.0, DRAG_FROM.1],
                "coordinate": [DRAG_TO.0, DRAG_TO.1]}),
            &json!({"action": "key", "text": "ctrl+w"}),
            &json!({"action": "scroll", "coordinate": [WHEEL_AT.0, WHEEL_AT.1],
                "scroll_direction": "down", "scroll_amount": 10}),
            &json!({"action": "left_click", "coordinate": [LAST_ROW_END.0, LAST_ROW_END.1]}),
            &json!({"action": "type", "text": " seen"}),
            &json!({"action": "left_click", "coordinate": [SAVE.0, SAVE.1]}),
        ]
    );
    let check = run_retrace(RETRACE, &["cache", "check", file.to_str().unwrap()], None);
    assert_eq!(
        check.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&check.stdout)
    );

    // Replayed on a fresh xedit with no model: the same edits saved.
    let fresh = Editor::new(&long_note());
    let output = replay(&file, &server.display(), &fresh);
    let summary = summary_after_exit(&output, 0);
    assert_eq!(summary["replay"]["steps_replayed"], 9, "{summary}");
    assert_eq!(
        fresh.saved(),
        expected,
        "the replay saved what the person saved"
    );
}

#[test]
fn closing_the_window_stops_the_recording_without_the_input_that_closed_it() {
    if !Path::new("/usr/bin/xedit").is_file() || !Path::new("/usr/bin/xdotool").is_file() {
        retrace_test_support::requirements::missing(Need::Xvfb);
        return;
    }
    let Some(server) = Xvfb::start(SCREEN.0, SCREEN.1, 24) else {
        retrace_test_support::requirements::missing(Need::Xvfb);
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let (out, events) = (
        dir.path().join("quit.json"),
        dir.path().join("events.jsonl"),
    );
    let editor = Editor::new(FIRST_LINE);
    let mut recorder = start(&server, &editor, &out, &events);
    let [x, y] = [LINE_END.0.to_string(), LINE_END.1.to_string()];
    xdotool(&server, &["mousemove", &x, &y, "click", "1"]);
    wait_inputs(&events, 1, &mut recorder);
    // xedit's Quit button, with nothing changed: the window goes at once.
    xdotool(
        &server,
        &[
            "mousemove",
            &QUIT.0.to_string(),
            &QUIT.1.to_string(),
            "click",
            "1",
        ],
    );
    let status = recorder.wait().unwrap();
    let stdout = std::fs::read_to_string(out.with_extension("stdout")).unwrap();
    assert_eq!(status.code(), Some(0), "{stdout}");
    assert!(
        stdout.contains("act in the application's window"),
        "{stdout}"
    );
    assert!(
        stdout.contains("closed the window: it is left out"),
        "{stdout}"
    );
    assert_eq!(
        events_of(&events, "finished")[0]["stopped_by"],
        "window closed"
    );
    let trajectory: Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    let inputs: Vec<&Value> = trajectory["trajectory"]
        .as_array()
        .unwrap()
        .iter()
        .map(|step| &step["input"])
        .collect();
    assert_eq!(
        inputs,
        [&json!({"action": "left_click", "coordinate": [LINE_END.0, LINE_END.1]})]
    );
}

#[test]
fn a_record_needs_one_target_and_desktop_flags_only_on_a_desktop() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("flow.json");
    let out = out.to_str().unwrap();
    for (args, expected) in [
        (vec!["record", "--out", out], "give the target: --url URL"),
        (
            vec![
                "record",
                "--url",
                "http://127.0.0.1:9/",
                "--window",
                "xedit",
                "--out",
                out,
            ],
            "--window is for recording a desktop",
        ),
    ] {
        let output = run_retrace(RETRACE, &args, None);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
    }
    assert!(!dir.path().join("flow.json").exists());
}
