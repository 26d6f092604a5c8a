//! The stop control: `retrace record` opens a small window of its browser beside the page's,
//! with a Stop button. Pressing it ends the recording and writes the file, as Ctrl-C does. The
//! control is a window of its own, beside the viewport, never over it, so no frame the steps
//! are hashed from shows it.

use std::process::Command;
use std::time::Instant;

use retrace_drive::chromium::stop_control::STOP_CONTROL_TITLE;
use retrace_test_support::demo::DemoConfig;
use retrace_test_support::demo::DemoThread;
use serde_json::Value;

use super::USERNAME;
use super::support::DEADLINE;
use super::support::POLL;
use super::support::Recorder;
use super::support::Session;
use super::support::VIEWPORT;
use super::support::read;
use super::support::xdotool;

/// The stop control's window on `display`: its left, top, width and height, once it shows.
fn control_window(display: &str, recorder: &mut Recorder) -> [i64; 4] {
    let started = Instant::now();
    loop {
        let found = Command::new("xdotool")
            .args(["search", "--onlyvisible", "--name", STOP_CONTROL_TITLE])
            .env("DISPLAY", display)
            .output()
            .unwrap();
        let window = String::from_utf8_lossy(&found.stdout)
            .lines()
            .next()
            .map(str::to_owned);
        if let Some(window) = window {
            let geometry = Command::new("xdotool")
                .args(["getwindowgeometry", "--shell", &window])
                .env("DISPLAY", display)
                .output()
                .unwrap();
            let text = String::from_utf8_lossy(&geometry.stdout).into_owned();
            let field = |name: &str| -> i64 {
                text.lines()
                    .find_map(|line| line.strip_prefix(&format!("{name}=")))
                    .and_then(|value| value.trim().parse().ok())
                    .unwrap_or_else(|| panic!("no {name} in {text}"))
            };
            return [field("X"), field("Y"), field("WIDTH"), field("HEIGHT")];
        }
        assert!(
            started.elapsed() < DEADLINE,
            "no stop control window:\n{}",
            recorder.text()
        );
        assert!(
            recorder.take_lines(POLL),
            "retrace record ended:\n{}",
            recorder.text()
        );
    }
}

#[test]
fn the_stop_button_beside_the_page_ends_the_recording_and_writes_the_file() {
    retrace_test_support::require!(Chromium);
    retrace_test_support::require!(Xvfb);
    let demo = DemoThread::start(DemoConfig::default());
    let Session {
        mut recorder,
        screen,
        file,
        stderr,
        dir: _dir,
        xvfb: _xvfb,
        ..
    } = Session::start(demo.url(), "stopped.json");
    assert!(
        recorder.text().contains("the Stop button beside it"),
        "{}",
        recorder.text()
    );
    let [left, top, width, height] = control_window(&screen.display, &mut recorder);
    // Beside the viewport, never over it.
    let (viewport_left, viewport_top) = screen.origin;
    let viewport_right = viewport_left + i64::from(VIEWPORT.0);
    let viewport_bottom = viewport_top + i64::from(VIEWPORT.1);
    let overlaps = left < viewport_right
        && left + width > viewport_left
        && top < viewport_bottom
        && top + height > viewport_top;
    assert!(
        !overlaps,
        "the control at {left},{top} {width}x{height} covers the viewport at {:?}",
        screen.origin
    );

    let _ = screen.settled_where(USERNAME, |hash| !hash.is_flat());
    screen.click(USERNAME, "1");
    recorder.wait_line("step   1  left_click at (640, 311) on textbox 'Username'");
    // The Stop button fills the page area, below the browser's toolbar.
    let (x, y) = (left + width / 2, top + height - 30);
    xdotool(
        &screen.display,
        &["mousemove", &x.to_string(), &y.to_string(), "click", "1"],
    );
    let (code, stdout) = recorder.wait_exit();
    assert_eq!(code, Some(0), "{stdout}\n{}", read(&stderr));
    assert!(
        stdout.contains("stopped (stop control): recorded 1 steps to"),
        "{stdout}"
    );
    let recording: Value = serde_json::from_str(&read(&file)).unwrap();
    assert_eq!(recording["trajectory"].as_array().unwrap().len(), 1);
    assert_eq!(recording["trajectory"][0]["input"]["action"], "left_click");
}
