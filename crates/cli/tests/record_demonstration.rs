//! `retrace record` end to end: the real binary opens a headed Chromium under Xvfb on the demo
//! app, the test acts on the window with `xdotool` as a person would (pointer moves, clicks,
//! typing with a correction, Tab, Enter, wheel turns, the modal's checkbox), stops it with
//! SIGINT, and checks the file it wrote: `cache check` passes, it replays green with no model,
//! fails on the `v2` layout at the changed button, holds no password anywhere, and a click's
//! before-hash is the hash of the screen the test itself saw just before clicking.
//!
//! The test never sleeps to wait: it polls the recorder's line for each input and the screen
//! for each reaction, with deadlines.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::BufRead;
use std::io::BufReader;
use std::path::Path;
use std::process::Child;
use std::process::Command;
use std::process::Stdio;
use std::sync::mpsc;
use std::sync::mpsc::Receiver;
use std::sync::mpsc::RecvTimeoutError;
use std::time::Duration;
use std::time::Instant;

use retrace_drive::Backend;
use retrace_drive::x11::X11Backend;
use retrace_test_support::demo::DemoConfig;
use retrace_test_support::demo::DemoThread;
use retrace_test_support::xvfb::Xvfb;
use retrace_vision::Image;
use retrace_vision::ImageHash;
use retrace_vision::Method;
use serde_json::Value;
use serde_json::json;

const RETRACE: &str = env!("CARGO_BIN_EXE_retrace");

/// How long any one thing may take on a loaded machine before the test gives up.
const DEADLINE: Duration = Duration::from_secs(90);

/// The longest wait for a line from the recorder before looking again.
const POLL: Duration = Duration::from_millis(20);

/// `retrace record` running, its stdout lines collected as they come.
struct Recorder {
    child: Child,
    incoming: Receiver<String>,
    lines: Vec<String>,
}

impl Recorder {
    fn start(display: &str, url: &str, out: &Path, events: &Path, stderr: &Path) -> Self {
        let mut child = Command::new(RETRACE)
            .args(["record", "--url", url, "--out"])
            .arg(out)
            .arg("--events")
            .arg(events)
            // The user name is no secret: the person names it a parameter.
            .args(["--param", "username=demo"])
            .env("DISPLAY", display)
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(stderr).unwrap())
            .spawn()
            .unwrap();
        let (sender, incoming) = mpsc::channel();
        let stdout = child.stdout.take().unwrap();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        Self {
            child,
            incoming,
            lines: Vec::new(),
        }
    }

    fn text(&self) -> String {
        self.lines.join("\n")
    }

    /// Takes the lines printed within `wait`; false once stdout closed (the process ended).
    fn take_lines(&mut self, wait: Duration) -> bool {
        match self.incoming.recv_timeout(wait) {
            Ok(line) => {
                self.lines.push(line);
                while let Ok(line) = self.incoming.try_recv() {
                    self.lines.push(line);
                }
                true
            }
            Err(RecvTimeoutError::Timeout) => true,
            Err(RecvTimeoutError::Disconnected) => false,
        }
    }

    /// Waits until `count` lines contain `needle`; returns the last of them.
    fn wait_lines(&mut self, needle: &str, count: usize) -> String {
        let started = Instant::now();
        loop {
            let found: Vec<&String> = self
                .lines
                .iter()
                .filter(|line| line.contains(needle))
                .collect();
            if found.len() >= count {
                return found[count - 1].clone();
            }
            assert!(
                started.elapsed() < DEADLINE,
                "no {count} lines with {needle:?}:\n{}",
                self.text()
            );
            assert!(
                self.take_lines(POLL),
                "retrace record ended before {needle:?}:\n{}",
                self.text()
            );
        }
    }

    fn wait_line(&mut self, needle: &str) -> String {
        self.wait_lines(needle, 1)
    }

    /// Sends SIGINT (Ctrl-C), reads the last lines and returns the exit code.
    fn interrupt(self) -> (Option<i32>, String) {
        let pid = self.child.id().to_string();
        let sent = Command::new("kill").args(["-INT", &pid]).status().unwrap();
        assert!(sent.success());
        self.wait_exit()
    }

    /// Reads the last lines until the process ends, and returns its exit code.
    fn wait_exit(mut self) -> (Option<i32>, String) {
        let started = Instant::now();
        while self.take_lines(POLL) {
            assert!(
                started.elapsed() < DEADLINE,
                "still running:\n{}",
                self.text()
            );
        }
        // Stdout closed: the process has exited.
        let status = self.child.wait().unwrap();
        (status.code(), self.text())
    }
}

/// The X screen, read through the same X11 backend retrace's desktop replay uses, and the
/// place of the browser's viewport on it.
struct Screen {
    x11: X11Backend,
    runtime: tokio::runtime::Runtime,
    display: String,
    origin: (i64, i64),
}

impl Screen {
    fn grab(&self) -> Image {
        let shot = self.runtime.block_on(self.x11.screenshot()).unwrap();
        retrace_vision::decode_png(&shot.png).unwrap()
    }

    /// The hash replay stores for an action at viewport point `at` (the 100 px square, pHash).
    fn hash_at(&self, image: &Image, at: (i64, i64)) -> ImageHash {
        let on_screen = (at.0 + self.origin.0, at.1 + self.origin.1);
        retrace_replay::recorder::region_hash_at(image, on_screen, Method::Phash, 100, 8).unwrap()
    }

    /// The region's hash once two looks in a row agree.
    fn settled(&self, at: (i64, i64)) -> ImageHash {
        self.settled_where(at, |_| true)
    }

    /// Waits until the region at `at` is no longer `before` and holds still.
    fn changed(&self, at: (i64, i64), before: &ImageHash) -> ImageHash {
        self.settled_where(at, |hash| hash != before)
    }

    fn settled_where(&self, at: (i64, i64), wanted: impl Fn(&ImageHash) -> bool) -> ImageHash {
        let started = Instant::now();
        let mut last = None;
        loop {
            let hash = self.hash_at(&self.grab(), at);
            if last.as_ref() == Some(&hash) && wanted(&hash) {
                return hash;
            }
            last = Some(hash);
            // No pause between looks: each is a whole screen grab, decoded and hashed.
            assert!(
                started.elapsed() < DEADLINE,
                "the screen at {at:?} never settled as wanted"
            );
        }
    }

    /// `xdotool` with viewport points turned into screen points.
    fn click(&self, at: (i64, i64), button: &str) {
        let (x, y) = (at.0 + self.origin.0, at.1 + self.origin.1);
        xdotool(
            &self.display,
            &["mousemove", &x.to_string(), &y.to_string(), "click", button],
        );
    }
}

fn xdotool(display: &str, args: &[&str]) {
    let status = Command::new("xdotool")
        .args(args)
        .env("DISPLAY", display)
        .status()
        .expect("xdotool runs (apt-get install xdotool)");
    assert!(status.success(), "xdotool {args:?}: {status}");
}

/// Moves the pointer over the window until the recorder says where the viewport is.
fn find_viewport(recorder: &mut Recorder, display: &str) -> (i64, i64) {
    let started = Instant::now();
    let mut wiggle = 0;
    loop {
        if let Some(line) = recorder
            .text()
            .lines()
            .find(|line| line.contains("the viewport is at"))
        {
            let numbers: Vec<i64> = line
                .split(|c: char| !c.is_ascii_digit() && c != '-')
                .filter_map(|part| part.parse().ok())
                .collect();
            return (numbers[0], numbers[1]);
        }
        assert!(
            started.elapsed() < DEADLINE,
            "no viewport line:\n{}",
            recorder.text()
        );
        wiggle = 1 - wiggle;
        xdotool(
            display,
            &["mousemove", &(600 + wiggle * 10).to_string(), "500"],
        );
        assert!(
            recorder.take_lines(POLL),
            "retrace record ended:\n{}",
            recorder.text()
        );
    }
}

/// The demo's controls, in CSS pixels of the 1280x800 viewport.
const USERNAME: (i64, i64) = (640, 311);
const SIGN_IN: (i64, i64) = (551, 467);
const NEW_INVOICE: (i64, i64) = (761, 203);
const TABLE: (i64, i64) = (300, 600);
const MARK_AS_SENT: (i64, i64) = (454, 392);
const CLOSE: (i64, i64) = (682, 448);

/// Signs in as a person would (a typo in the password, corrected), opens the modal, ticks
/// its checkbox and closes it. Returns the hash of the checkbox's region the test saw just
/// before clicking it.
fn demonstrate(recorder: &mut Recorder, screen: &Screen) -> ImageHash {
    let display = screen.display.as_str();
    // The login page is drawn once the "Sign in" button's region is no longer blank.
    let _ = screen.settled_where(SIGN_IN, |hash| !hash.is_flat());
    screen.click(USERNAME, "1");
    recorder.wait_line("step   1  left_click at (640, 311) on textbox 'Username'");
    xdotool(display, &["type", "demp"]);
    xdotool(display, &["key", "BackSpace"]);
    xdotool(display, &["type", "o"]);
    recorder.wait_lines("step   2  type into textbox 'Username'", 6);
    xdotool(display, &["key", "Tab"]);
    recorder.wait_line("step   3  key Tab on textbox 'Username'");
    xdotool(display, &["type", "retrace-demo-pq"]);
    xdotool(display, &["key", "BackSpace"]);
    xdotool(display, &["type", "w"]);
    recorder.wait_lines("step   4  type into textbox 'Password'", 17);
    let login = screen.settled(NEW_INVOICE);
    xdotool(display, &["key", "Return"]);
    recorder.wait_line("step   5  key Return on textbox 'Password'");
    let dashboard = screen.changed(NEW_INVOICE, &login);
    // Two wheel notches down over the table, one up: two scroll steps.
    screen.click(TABLE, "5");
    xdotool(display, &["click", "5"]);
    recorder.wait_line("step   6  scroll at (300, 600) on");
    xdotool(display, &["click", "4"]);
    recorder.wait_line("step   7  scroll at (300, 600) on");
    assert_eq!(screen.settled(NEW_INVOICE), dashboard);
    let modal_closed = screen.settled(MARK_AS_SENT);
    screen.click(NEW_INVOICE, "1");
    recorder.wait_line("step   8  left_click at (761, 203) on button 'New invoice'");
    // What the person sees before ticking the box: the modal, settled.
    let _ = screen.changed(MARK_AS_SENT, &modal_closed);
    let before_tick = screen.settled(MARK_AS_SENT);
    screen.click(MARK_AS_SENT, "1");
    recorder.wait_line("step   9  left_click at (454, 392) on checkbox 'Mark as sent'");
    let _ticked = screen.changed(MARK_AS_SENT, &before_tick);
    let modal_open = screen.settled(CLOSE);
    screen.click(CLOSE, "1");
    recorder.wait_line("step  10  left_click at (682, 448) on button 'Close'");
    let _ = screen.changed(CLOSE, &modal_open);
    before_tick
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}

#[test]
fn a_demonstration_under_xvfb_records_a_file_that_replays_without_a_model() {
    retrace_test_support::require!(Chromium);
    retrace_test_support::require!(Xvfb);
    let demo = DemoThread::start(DemoConfig {
        mark_sent: true,
        ..DemoConfig::default()
    });
    let xvfb = Xvfb::start(1600, 1000, 24).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("flows").join("login.json");
    let events = dir.path().join("events.jsonl");
    let stderr = dir.path().join("stderr.log");
    let mut recorder = Recorder::start(&xvfb.display(), demo.url(), &file, &events, &stderr);
    recorder.wait_line("recording ");
    let origin = find_viewport(&mut recorder, &xvfb.display());
    let runtime = retrace_test_support::cli::runtime();
    let x11 = runtime
        .block_on(X11Backend::connect(Some(&xvfb.display())))
        .unwrap();
    let screen = Screen {
        x11,
        runtime,
        display: xvfb.display(),
        origin,
    };
    let seen_before_tick = demonstrate(&mut recorder, &screen);
    let (code, stdout) = recorder.interrupt();
    assert_eq!(code, Some(0), "{stdout}\n{}", read(&stderr));
    assert!(
        stdout.contains("stopped (interrupted): recorded 10 steps to"),
        "{stdout}"
    );
    assert!(
        stdout.contains("it needs parameters: password, username"),
        "{stdout}"
    );

    // The file: the steps a model run would have written, demonstrated, with no tokens.
    let text = read(&file);
    let recording: Value = serde_json::from_str(&text).unwrap();
    let inputs: Vec<Value> = recording["trajectory"]
        .as_array()
        .unwrap()
        .iter()
        .map(|step| step["input"].clone())
        .collect();
    assert_eq!(
        inputs,
        vec![
            json!({"action": "left_click", "coordinate": [640, 311]}),
            json!({"action": "type", "text": "{{username}}"}),
            json!({"action": "key", "text": "Tab"}),
            json!({"action": "type", "text": "{{password}}"}),
            json!({"action": "key", "text": "Return"}),
            json!({"action": "scroll", "coordinate": [300, 600], "scroll_direction": "down", "scroll_amount": 2}),
            json!({"action": "scroll", "coordinate": [300, 600], "scroll_direction": "up", "scroll_amount": 1}),
            json!({"action": "left_click", "coordinate": [761, 203]}),
            json!({"action": "left_click", "coordinate": [454, 392]}),
            json!({"action": "left_click", "coordinate": [682, 448]}),
        ]
    );
    let metadata = &recording["metadata"];
    assert_eq!(metadata["recorded_from"], "demonstration");
    assert_eq!(metadata["token_usage"]["input_tokens"], 0);
    assert_eq!(metadata["token_usage"]["output_tokens"], 0);
    assert_eq!(
        recording["cache_parameters"],
        json!({"password": "Parameter for password", "username": "Parameter for username"})
    );

    // The checkbox click: its before-hash is the screen the test saw before clicking, its
    // after-hash differs (the box is ticked), and the element says so.
    let tick = &recording["trajectory"][8];
    assert_eq!(tick["element"]["role"], "checkbox");
    assert_eq!(tick["element"]["checked"], false);
    assert_eq!(tick["element_after"]["checked"], true);
    let recorded_before = tick["visual_representation"].as_str().unwrap();
    assert_eq!(recorded_before, seen_before_tick.to_string());
    let recorded_after = tick["visual_representation_after"].as_str().unwrap();
    assert_ne!(recorded_before, recorded_after);

    // The password is nowhere: not in the file, the events, the terminal or the log.
    for (what, written) in [
        ("the file", text),
        ("the events", read(&events)),
        ("stdout", stdout),
        ("stderr", read(&stderr)),
    ] {
        assert!(
            !written.contains(retrace_demo::DEMO_PASSWORD),
            "{what} holds the password"
        );
        assert!(
            !written.contains("retrace-demo-pq"),
            "{what} holds the typo'd password"
        );
    }
    assert!(read(&events).contains("\"type\":\"demonstration\""));

    let check = Command::new(RETRACE)
        .args(["cache", "check"])
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(
        check.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&check.stdout)
    );

    // Headless replays, no model: green every time.
    for attempt in 1..=3 {
        let output = retrace_test_support::cli::demo_replay(RETRACE, &file, demo.url())
            .env_remove("ANTHROPIC_API_KEY")
            .env_remove("OPENAI_API_KEY")
            .output()
            .unwrap();
        let summary = retrace_test_support::cli::summary_after_exit(&output, 0);
        assert_eq!(summary["status"], "passed", "replay {attempt}: {summary}");
        assert_eq!(summary["replay"]["steps_replayed"], 10, "{summary}");
    }

    // v2 relabels and restyles "New invoice": the replay stops at its step, for both reasons.
    let v2 = format!("{}?layout=v2", demo.url());
    let output = retrace_test_support::cli::demo_replay(RETRACE, &file, &v2)
        .output()
        .unwrap();
    let summary = retrace_test_support::cli::summary_after_exit(&output, 1);
    let failure = &summary["replay"]["failure"];
    assert_eq!(failure["step"], 8, "{summary}");
    let message = failure["message"].as_str().unwrap();
    assert!(
        message.contains("Visual validation failed at step 8"),
        "{message}"
    );
    assert!(
        message.contains("expected button 'New invoice', found button 'Add invoice'"),
        "{message}"
    );
}

#[test]
fn closing_the_window_ends_the_recording_and_writes_the_file() {
    retrace_test_support::require!(Chromium);
    retrace_test_support::require!(Xvfb);
    let demo = DemoThread::start(DemoConfig::default());
    let xvfb = Xvfb::start(1600, 1000, 24).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("click.json");
    let events = dir.path().join("events.jsonl");
    let stderr = dir.path().join("stderr.log");
    let mut recorder = Recorder::start(&xvfb.display(), demo.url(), &file, &events, &stderr);
    recorder.wait_line("recording ");
    let origin = find_viewport(&mut recorder, &xvfb.display());
    let runtime = retrace_test_support::cli::runtime();
    let x11 = runtime
        .block_on(X11Backend::connect(Some(&xvfb.display())))
        .unwrap();
    let screen = Screen {
        x11,
        runtime,
        display: xvfb.display(),
        origin,
    };
    let _ = screen.settled_where(SIGN_IN, |hash| !hash.is_flat());
    screen.click(USERNAME, "1");
    recorder.wait_line("step   1  left_click at (640, 311) on textbox 'Username'");
    // What a person does to close the window: Ctrl+W (the page never sees it).
    xdotool(&xvfb.display(), &["key", "ctrl+w"]);
    let (code, stdout) = recorder.wait_exit();
    assert_eq!(code, Some(0), "{stdout}\n{}", read(&stderr));
    assert!(
        stdout.contains("stopped (window closed): recorded 1 steps to"),
        "{stdout}"
    );
    let recording: Value = serde_json::from_str(&read(&file)).unwrap();
    assert_eq!(
        recording["trajectory"][0]["input"],
        json!({"action": "left_click", "coordinate": [640, 311]})
    );
    assert!(recording["trajectory"][0]["visual_representation"].is_string());
}

/// A page with one heading, whose text the second variant changes (same place, same style).
fn heading_page(text: &str) -> String {
    format!(
        "<!doctype html><html><head><title>Results</title></head>\
         <body style=\"margin:0;background:#fff\">\
         <h1 style=\"font:bold 32px sans-serif;margin:0;padding:40px\">{text}</h1></body></html>"
    )
}

#[test]
fn a_checkpoint_on_a_heading_passes_until_its_text_changes() {
    retrace_test_support::require!(Chromium);
    retrace_test_support::require!(Xvfb);
    let quarterly = heading_page("Quarterly results");
    let annual = heading_page("Annual results");
    let pages = retrace_test_support::html_server::serve_html(&[
        ("/report", quarterly.as_str()),
        ("/changed", annual.as_str()),
    ]);
    let xvfb = Xvfb::start(1600, 1000, 24).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("heading.json");
    let events = dir.path().join("events.jsonl");
    let stderr = dir.path().join("stderr.log");
    let mut recorder = Recorder::start(
        &xvfb.display(),
        &pages.url("/report"),
        &file,
        &events,
        &stderr,
    );
    recorder.wait_line("recording ");
    let origin = find_viewport(&mut recorder, &xvfb.display());
    let heading = (120, 60);
    let runtime = retrace_test_support::cli::runtime();
    let x11 = runtime
        .block_on(X11Backend::connect(Some(&xvfb.display())))
        .unwrap();
    let screen = Screen {
        x11,
        runtime,
        display: xvfb.display(),
        origin,
    };
    let _ = screen.settled_where(heading, |hash| !hash.is_flat());
    let (x, y) = (heading.0 + origin.0, heading.1 + origin.1);
    xdotool(
        &xvfb.display(),
        &["mousemove", &x.to_string(), &y.to_string()],
    );
    xdotool(&xvfb.display(), &["key", "ctrl+shift+k"]);
    recorder.wait_line("step   1  checkpoint at (120, 60) on heading 'Quarterly results'");
    let (code, stdout) = recorder.interrupt();
    assert_eq!(code, Some(0), "{stdout}\n{}", read(&stderr));
    let recording: Value = serde_json::from_str(&read(&file)).unwrap();
    assert_eq!(
        recording["trajectory"].as_array().unwrap().len(),
        1,
        "{stdout}"
    );

    let replay = |url: &str| {
        Command::new(RETRACE)
            .arg("replay")
            .arg(&file)
            .args(["--url", url, "--json", "--step-timeout", "5"])
            .output()
            .unwrap()
    };
    let same = replay(&pages.url("/report"));
    let summary = retrace_test_support::cli::summary_after_exit(&same, 0);
    assert_eq!(summary["replay"]["steps_replayed"], 1, "{summary}");
    let changed = replay(&pages.url("/changed"));
    let summary = retrace_test_support::cli::summary_after_exit(&changed, 1);
    let failure = &summary["replay"]["failure"];
    assert_eq!(failure["step"], 1, "{summary}");
    let message = failure["message"].as_str().unwrap();
    assert!(
        message.contains("expected heading 'Quarterly results', found heading 'Annual results'"),
        "{message}"
    );
}
