//! retrace on the desktop, end to end: a private Xvfb, Mousepad, `retrace act --display` with
//! the scripted model (FakeAnthropic through the real HTTP client), and `retrace replay` of
//! the recording with no model.
//!
//! Why Mousepad: it is a real GTK 3 program from a Debian package with the three kinds of
//! control the flow needs (a menu bar, a text area and text field, buttons in GTK's Save As
//! dialog, a separate X window), and its end state is checkable outside retrace: the file it
//! saves. A calculator's end state is only on its screen.
//!
//! Each editor runs with a home and settings of its own (GSettings' keyfile backend, which
//! also places the window: `left`/`top`), started by `retrace --app`; the file dialog saves
//! into the editor's working directory. retrace starts the accessibility bus for it, so the
//! menu, text-field and button steps carry the element they acted on (AT-SPI) and a replay
//! in another state fails with the accessibility reason: a changed layout (no menu bar) at
//! the File menu, another starting state (the editor opened on an existing note) at the
//! typing step, a dark theme (the text area's colours) at the first click into the document.
//! The recording replays 10 of 10 with no model request, each time saving the file.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers outside #[test] fns

use std::path::Path;
use std::path::PathBuf;
use std::process::Output;

use retrace_runner::demo::DEMO_RECORDING;
use retrace_test_support::cli::run_retrace;
use retrace_test_support::cli::runtime;
use retrace_test_support::cli::summary_after_exit;
use retrace_test_support::demo::DemoConfig;
use retrace_test_support::demo::DemoThread;
use retrace_test_support::fake_model::FakeAnthropic;
use retrace_test_support::fake_model::ScriptStep;
use retrace_test_support::processes::processes_with_environment;
use retrace_test_support::requirements::Need;
use retrace_test_support::suite_run::retrace_in;
use retrace_test_support::suite_run::stdout_json;
use retrace_test_support::suite_run::write_recording;
use retrace_test_support::xvfb::Xvfb;
use serde_json::Value;
use serde_json::json;

/// The screen: big enough that Mousepad's Save As dialog (1096x856, centred on the editor)
/// fits on it wherever the editor is.
const SCREEN: (u32, u32) = (1600, 1000);

/// Where the recorded editor's window opens; the moved one opens 40 px right and down.
const RECORDED_AT: (i32, i32) = (200, 150);

/// What the flow types into the document, and the file name it saves under.
const TEXT: &str = "hello from retrace";
const FILE_NAME: &str = "note.txt";

/// One Mousepad with a home, settings and working directory of its own.
struct Editor {
    dir: tempfile::TempDir,
    /// More environment for it (`GTK_THEME=Adwaita:dark `), shell words ending in a space.
    env: String,
    /// What it opens (` note.txt`), shell words starting with a space.
    args: String,
}

impl Editor {
    /// An editor whose window opens at `at`, 800x600.
    fn new(at: (i32, i32)) -> Self {
        Self::with_settings(at, "")
    }

    /// An editor whose window opens at `at`, with more window preferences (keyfile lines).
    fn with_settings(at: (i32, i32), preferences: &str) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let settings = dir.path().join("config/glib-2.0/settings");
        std::fs::create_dir_all(&settings).unwrap();
        std::fs::create_dir_all(dir.path().join("home")).unwrap();
        std::fs::create_dir_all(dir.path().join("work")).unwrap();
        let keyfile = format!(
            "[org/xfce/mousepad/state/window]\nwidth=800\nheight=600\nleft={}\ntop={}\n\
             [org/xfce/mousepad/preferences/window]\nremember-position=true\n{preferences}",
            at.0, at.1
        );
        std::fs::write(settings.join("keyfile"), keyfile).unwrap();
        Self {
            dir,
            env: String::new(),
            args: String::new(),
        }
    }

    /// The same editor opened on [`FILE_NAME`] in its working directory, holding `text`.
    fn opening(mut self, text: &str) -> Self {
        std::fs::write(self.work().join(FILE_NAME), text).unwrap();
        self.args = format!(" {FILE_NAME}");
        self
    }

    /// The same editor with `env` (`NAME=VALUE` words) in its environment.
    fn with_env(mut self, env: &str) -> Self {
        self.env = format!("{env} ");
        self
    }

    fn work(&self) -> PathBuf {
        self.dir.path().join("work")
    }

    /// The `--app` command: Mousepad in its working directory, with its home and settings.
    fn command(&self) -> String {
        let root = self.dir.path().display();
        format!(
            "cd {root}/work && HOME={root}/home XDG_CONFIG_HOME={root}/config \
             GSETTINGS_BACKEND=keyfile {}exec mousepad{}",
            self.env, self.args
        )
    }

    /// The saved file's contents, if it was saved.
    fn saved(&self) -> Option<String> {
        std::fs::read_to_string(self.work().join(FILE_NAME)).ok()
    }

    /// Live processes working in this editor's working directory (Mousepad and anything it
    /// started): none may outlive a run.
    fn processes(&self) -> Vec<u32> {
        processes_working_in(&self.work())
    }
}

/// Live processes whose working directory is `dir`.
fn processes_working_in(dir: &Path) -> Vec<u32> {
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(Result::ok)
        .filter_map(|entry| entry.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| std::fs::read_link(format!("/proc/{pid}/cwd")).is_ok_and(|cwd| cwd == dir))
        .collect()
}

/// The model's points, in the 1280x800 it sees of the 1600x1000 screen (the editor at
/// (200, 150); its Save As dialog centred on it, at (52, 22)).
const TEXT_AREA: [i64; 2] = [480, 360];
const FILE_MENU: [i64; 2] = [175, 130];
const SAVE_AS_ITEM: [i64; 2] = [208, 271];
const NAME_FIELD: [i64; 2] = [502, 38];
const SAVE_BUTTON: [i64; 2] = [878, 683];

/// Look, click into the document, type, File > Save As..., click the name field, type the
/// name, press Save, then say it is done.
fn save_as_script() -> Vec<ScriptStep> {
    let click = |at: [i64; 2]| {
        ScriptStep::tool_use(
            "computer",
            json!({"action": "left_click", "coordinate": at}),
        )
    };
    let typing =
        |text: &str| ScriptStep::tool_use("computer", json!({"action": "type", "text": text}));
    vec![
        ScriptStep::tool_use("computer", json!({"action": "screenshot"})),
        click(TEXT_AREA),
        typing(TEXT),
        click(FILE_MENU),
        click(SAVE_AS_ITEM),
        click(NAME_FIELD),
        typing(FILE_NAME),
        click(SAVE_BUTTON),
        ScriptStep::text("Saved the document as note.txt."),
    ]
}

fn retrace(args: &[&str], base_url: Option<&str>) -> Output {
    run_retrace(env!("CARGO_BIN_EXE_retrace"), args, base_url)
}

/// `retrace replay FILE --display D --app COMMAND --window Mousepad --json`, no model.
fn replay(file: &Path, display: &str, app: &str) -> Output {
    replay_within(file, display, app, "20")
}

/// [`replay`] with another step timeout (a replay meant to fail waits less).
fn replay_within(file: &Path, display: &str, app: &str, step_timeout: &str) -> Output {
    retrace(
        &[
            "replay",
            file.to_str().unwrap(),
            "--display",
            display,
            "--app",
            app,
            "--window",
            "Mousepad",
            "--step-timeout",
            step_timeout,
            "--json",
        ],
        None,
    )
}

/// The 1-based trajectory step that clicks at `at`.
fn step_clicking(trajectory: &Value, at: [i64; 2]) -> u64 {
    let steps = trajectory["trajectory"].as_array().unwrap();
    let index = steps
        .iter()
        .position(|step| step["input"]["coordinate"] == json!(at))
        .unwrap_or_else(|| panic!("no step clicks at {at:?}"));
    index as u64 + 1
}

#[test]
fn a_mousepad_flow_recorded_by_act_replays_without_the_model_and_saves_the_file() {
    retrace_test_support::require!(Chromium);
    if Need::Mousepad.find().is_none() {
        retrace_test_support::requirements::missing(Need::Mousepad);
        return;
    }
    let Some(server) = Xvfb::start(SCREEN.0, SCREEN.1, 24) else {
        retrace_test_support::requirements::missing(Need::Xvfb);
        return;
    };
    let display = server.display();
    let runtime = runtime();
    let cache = tempfile::tempdir().unwrap();

    // Record: the scripted model works a real Mousepad.
    let recorded = Editor::new(RECORDED_AT);
    let fake = runtime.block_on(FakeAnthropic::start(save_as_script()));
    let app = recorded.command();
    let output = retrace(
        &[
            "act",
            "Write 'hello from retrace' and save it as note.txt",
            "--display",
            &display,
            "--app",
            &app,
            "--window",
            "Mousepad",
            "--cache",
            "record",
            "--cache-dir",
            cache.path().to_str().unwrap(),
            "--cache-file",
            "note.json",
            "--json",
        ],
        Some(&fake.base_url()),
    );
    let summary = summary_after_exit(&output, 0);
    assert_eq!(summary["act"]["outcome"], "done", "{summary}");
    assert_eq!(fake.requests().len(), 9, "one request per scripted turn");
    assert_eq!(
        recorded.saved().as_deref(),
        Some(TEXT),
        "the editor saved the text"
    );
    assert_eq!(
        recorded.processes(),
        Vec::<u32>::new(),
        "--app ended the editor"
    );

    // The trajectory says where it was recorded.
    let file = cache.path().join("note.json");
    let trajectory: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    let target = &trajectory["metadata"]["target"];
    assert_eq!(target["kind"], "desktop");
    assert_eq!(target["window"], "Mousepad");
    assert_eq!(
        target["window_origin"],
        json!([RECORDED_AT.0, RECORDED_AT.1])
    );
    assert_eq!(target["display_size"], json!([SCREEN.0, SCREEN.1]));
    assert_eq!(target["app"], app.as_str());

    // The menu, text-field and button steps carry the element they acted on, as the
    // editor's accessibility tree (AT-SPI) described it.
    // (GTK calls a menu bar's entry that opens a menu a `menu`.)
    let element = |at: [i64; 2]| {
        let step = step_clicking(&trajectory, at) as usize - 1;
        let element = &trajectory["trajectory"][step]["element"];
        (element["role"].clone(), element["name"].clone())
    };
    assert_eq!(element(FILE_MENU), (json!("menu"), json!("File")));
    assert_eq!(element(SAVE_AS_ITEM).0, json!("menu item"));
    assert_eq!(element(NAME_FIELD).0, json!("text"));
    assert_eq!(element(TEXT_AREA).0, json!("text"));
    assert_eq!(element(SAVE_BUTTON), (json!("push button"), json!("Save")));
    // The text area says how its text is drawn: Adwaita's dark text on its light colour.
    let document = &trajectory["trajectory"][step_clicking(&trajectory, TEXT_AREA) as usize - 1];
    let style = &document["element"]["text_style"];
    assert_eq!(style["foreground"], json!([0, 0, 0]), "{document}");
    assert_eq!(style["family"], "Monospace", "{document}");
    // Typing records the field with the focus, and the text it holds after.
    let typing = |text: &str| {
        trajectory["trajectory"]
            .as_array()
            .unwrap()
            .iter()
            .find(|step| step["input"]["text"] == text)
            .unwrap()
            .clone()
    };
    for (text, holds) in [(TEXT, TEXT), (FILE_NAME, FILE_NAME)] {
        let step = typing(text);
        assert_eq!(step["element"]["role"], "text", "{step}");
        assert_eq!(step["focused_after"]["value"], holds, "{step}");
    }

    // Replay with no model, 10 times: each time the same file saved, by a fresh editor in a
    // fresh working directory.
    for round in 1..=10 {
        let fresh = Editor::new(RECORDED_AT);
        let output = replay(&file, &display, &fresh.command());
        let summary = summary_after_exit(&output, 0);
        assert_eq!(
            summary["replay"]["status"], "passed",
            "round {round}: {summary}"
        );
        assert_eq!(
            fresh.saved().as_deref(),
            Some(TEXT),
            "round {round}: the replay saved the text"
        );
        assert_eq!(
            fresh.processes(),
            Vec::<u32>::new(),
            "round {round}: --app ended the editor"
        );
    }
    assert_eq!(fake.requests().len(), 9, "no replay asked the model");

    // The window opened 40 px elsewhere: still green, the dialog followed it.
    let moved = Editor::new((RECORDED_AT.0 + 40, RECORDED_AT.1 + 40));
    let output = replay(&file, &display, &moved.command());
    let summary = summary_after_exit(&output, 0);
    assert_eq!(summary["replay"]["status"], "passed", "{summary}");
    assert_eq!(moved.saved().as_deref(), Some(TEXT));

    // A changed layout (the menu bar switched off in the editor's preferences): the document
    // steps replay, then the replay stops at the step that opens the File menu, and nothing
    // is saved. The accessibility layer says what is there instead of the menu.
    let other = Editor::with_settings(RECORDED_AT, "menubar-visible=false\n");
    let output = replay_within(&file, &display, &other.command(), "5");
    let summary = summary_after_exit(&output, 1);
    assert_eq!(summary["replay"]["status"], "failed", "{summary}");
    assert_eq!(
        summary["replay"]["failure"]["step"],
        step_clicking(&trajectory, FILE_MENU),
        "{summary}"
    );
    let message = summary["replay"]["failure"]["message"].as_str().unwrap();
    assert!(
        message.contains("expected menu 'File', found "),
        "{message}"
    );
    assert_eq!(other.saved(), None);
    assert_eq!(other.processes(), Vec::<u32>::new());

    // A different starting state: the editor opened on an existing note. The click into the
    // document replays (the same text area), then the typing step fails: its field holds
    // more than the text typed (lengths are named, never the text). Nothing is saved over
    // the note.
    const EXISTING: &str = "an older note\n";
    let opened = Editor::new(RECORDED_AT).opening(EXISTING);
    let output = replay_within(&file, &display, &opened.command(), "5");
    let summary = summary_after_exit(&output, 1);
    let typing_step = trajectory["trajectory"]
        .as_array()
        .unwrap()
        .iter()
        .position(|step| step["input"]["text"] == TEXT)
        .unwrap() as u64
        + 1;
    assert_eq!(
        summary["replay"]["failure"]["step"], typing_step,
        "{summary}"
    );
    let message = summary["replay"]["failure"]["message"].as_str().unwrap();
    assert!(message.contains("state check"), "{message}");
    assert!(
        message.contains(&format!("not the {} it held", TEXT.len())),
        "{message}"
    );
    assert_eq!(
        opened.saved().as_deref(),
        Some(EXISTING),
        "the note is as it was"
    );
    assert_eq!(opened.processes(), Vec::<u32>::new());

    // A dark theme: the same widgets, names and states, other colours. The text area's
    // accessibility tree says how its text is drawn (AT-SPI text attributes), so the first
    // step, the click into the document (whose blank region the visual check cannot see),
    // fails naming the colours recorded and found.
    let document = &trajectory["trajectory"][step_clicking(&trajectory, TEXT_AREA) as usize - 1];
    let style = &document["element"]["text_style"];
    let rgb = |colour: &Value| {
        let channels: Vec<String> = colour
            .as_array()
            .unwrap()
            .iter()
            .map(Value::to_string)
            .collect();
        channels.join(",")
    };
    let recorded_colours = format!(
        "fg {} on {}",
        rgb(&style["foreground"]),
        rgb(&style["background"])
    );
    let dark = Editor::new(RECORDED_AT).with_env("GTK_THEME=Adwaita:dark");
    let output = replay_within(&file, &display, &dark.command(), "5");
    let summary = summary_after_exit(&output, 1);
    assert_eq!(
        summary["replay"]["failure"]["step"],
        step_clicking(&trajectory, TEXT_AREA),
        "{summary}"
    );
    let message = summary["replay"]["failure"]["message"].as_str().unwrap();
    assert!(
        message.contains(&format!(
            "expected text with colours {recorded_colours}, found fg 255,255,255"
        )),
        "{message}"
    );
    assert_eq!(dark.saved(), None);
    assert_eq!(dark.processes(), Vec::<u32>::new());
    assert_eq!(
        processes_with_environment(&format!("DISPLAY={display}")),
        Vec::<u32>::new(),
        "the editors and the accessibility buses of every run were ended"
    );

    // One `retrace run` of a suite holding this desktop file beside a browser flow (the demo
    // app's login in Chromium): one report. The desktop file replays on the desktop it names,
    // starting the application command it records only because it is allowed to.
    std::fs::remove_file(recorded.work().join(FILE_NAME)).unwrap();
    let demo = DemoThread::start(DemoConfig::default());
    write_recording(cache.path(), "web/login.json", DEMO_RECORDING);
    let password = format!("password={}", retrace_demo::DEMO_PASSWORD);
    let output = retrace_in(env!("CARGO_BIN_EXE_retrace"), cache.path())
        .args(["run", "note.json", "web", "--url", demo.url()])
        .args(["--param", "username=demo", "--param", &password])
        .args(["--display", &display, "--allow-app-commands"])
        .args(["--step-timeout", "20", "--json"])
        .output()
        .unwrap();
    let report = stdout_json(&output);
    let statuses: Vec<&Value> = report["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|test| &test["status"])
        .collect();
    assert_eq!(statuses, [&json!("passed"), &json!("passed")], "{report}");
    assert_eq!(output.status.code(), Some(0), "{report}");
    assert_eq!(
        recorded.saved().as_deref(),
        Some(TEXT),
        "run saved the text"
    );
    assert_eq!(
        recorded.processes(),
        Vec::<u32>::new(),
        "run ended the editor"
    );
}

#[test]
fn an_app_that_never_shows_its_window_is_an_error_naming_both_and_is_ended() {
    let Some(server) = Xvfb::start(640, 480, 24) else {
        retrace_test_support::requirements::missing(Need::Xvfb);
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    // A command that never opens a window, working in a folder of its own (to find it by).
    let app = format!("cd {} && sleep 600", dir.path().display());
    let output = retrace(
        &[
            "screenshot",
            "--display",
            &server.display(),
            "--app",
            &app,
            "--window",
            "No Such Window",
            "--window-timeout",
            "1",
            "-o",
            dir.path().join("shot.png").to_str().unwrap(),
        ],
        None,
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains(&app), "names the command: {stderr}");
    assert!(
        stderr.contains("`No Such Window`"),
        "names the window: {stderr}"
    );
    let left = processes_working_in(dir.path());
    assert_eq!(left, Vec::<u32>::new(), "the app's processes were ended");
}

#[test]
fn a_trajectory_naming_an_app_command_starts_it_only_when_allowed() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("flow.json");
    let marker = dir.path().join("should-not-exist");
    let app = format!("touch {}", marker.display());
    let trajectory = json!({
        "metadata": {
            "version": "0.3",
            "created_at": "2026-01-01T00:00:00Z",
            "goal": "type",
            "display_size": [1280, 800],
            "target": {"kind": "desktop", "window": "Mousepad", "window_origin": [0, 0],
                       "app": app},
        },
        "trajectory": [
            {"type": "tool_use", "id": "t1", "name": "computer",
             "input": {"action": "type", "text": "x"}}
        ],
        "cache_parameters": {},
    });
    std::fs::write(&file, trajectory.to_string()).unwrap();
    let output = retrace(
        &[
            "replay",
            file.to_str().unwrap(),
            "--display",
            ":0",
            "--json",
        ],
        None,
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(2), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("--allow-app-commands") || stderr.contains("--allow-app-commands"),
        "{stdout}\n{stderr}"
    );
    assert!(!marker.exists(), "the file's app command ran");

    // In a browser, it would fail at its first step: said before anything starts.
    let output = retrace(
        &[
            "replay",
            file.to_str().unwrap(),
            "--url",
            "http://127.0.0.1:9/",
        ],
        None,
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("recorded on a desktop (window Mousepad)") && stderr.contains("--display"),
        "{stderr}"
    );
}

#[test]
fn a_window_another_process_shows_is_said_to_be_handed_over_and_left_running() {
    if Need::Mousepad.find().is_none() {
        retrace_test_support::requirements::missing(Need::Mousepad);
        return;
    }
    let Some(server) = Xvfb::start(SCREEN.0, SCREEN.1, 24) else {
        retrace_test_support::requirements::missing(Need::Xvfb);
        return;
    };
    // The instance already running: started here, not by retrace.
    let running = Editor::new(RECORDED_AT);
    let mut instance = server
        .command("sh")
        .args(["-c", &running.command()])
        .spawn()
        .unwrap();
    // The command retrace starts exits at once, as a single-instance program's second
    // launch does after handing its window over.
    let shot = running.dir.path().join("shot.png");
    let output = retrace(
        &[
            "screenshot",
            "--display",
            &server.display(),
            "--app",
            "true",
            "--window",
            "Mousepad",
            "-o",
            shot.to_str().unwrap(),
        ],
        None,
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("which `true` did not start") && stderr.contains("single-instance"),
        "{stderr}"
    );
    assert!(shot.is_file());
    assert_eq!(
        instance.try_wait().unwrap(),
        None,
        "the running instance was not retrace's to end"
    );
    instance.kill().unwrap();
    instance.wait().unwrap();
}
