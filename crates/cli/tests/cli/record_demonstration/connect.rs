//! `retrace record --connect URL`: recording in a Chromium the person already runs with a
//! debugging port. The test starts that browser itself, headed under Xvfb, and tells
//! `retrace record` of no display (so it cannot launch one of its own); the recording's page
//! opens in that browser, which outlives the recording.

use std::path::Path;
use std::time::Duration;

use retrace_drive::chromium::process::BrowserProcess;
use retrace_test_support::demo::DemoConfig;
use retrace_test_support::demo::DemoThread;
use serde_json::Value;
use serde_json::json;

use super::USERNAME;
use super::support::Session;
use super::support::read;

#[test]
fn a_demonstration_records_in_a_browser_the_person_already_runs() {
    retrace_test_support::require!(Chromium);
    retrace_test_support::require!(Xvfb);
    let demo = DemoThread::start(DemoConfig::default());
    let xvfb = super::support::screen();
    let runtime = retrace_test_support::cli::runtime();
    let mut browser = runtime
        .block_on(BrowserProcess::spawn_headed(
            Path::new(retrace_drive::chromium::FULL_CHROMIUM),
            1280,
            800,
            Duration::from_secs(60),
            &xvfb.display(),
        ))
        .unwrap();
    let authority = retrace_test_support::nginx::devtools_authority(browser.ws_url());
    let connect = vec!["--connect".to_owned(), format!("http://{authority}")];
    let Session {
        mut recorder,
        screen,
        file,
        stderr,
        dir: _dir,
        xvfb: _xvfb,
        ..
    } = Session::start_on(xvfb, demo.url(), "connected.json", &connect, false);

    let _ = screen.settled_where(USERNAME, |hash| !hash.is_flat());
    screen.click(USERNAME, "1");
    recorder.wait_line("step   1  left_click at (640, 311) on textbox 'Username'");
    let (code, stdout) = recorder.interrupt();
    assert_eq!(code, Some(0), "{stdout}\n{}", read(&stderr));
    assert!(
        stdout.contains("stopped (interrupted): recorded 1 steps to"),
        "{stdout}"
    );
    let recording: Value = serde_json::from_str(&read(&file)).unwrap();
    assert_eq!(
        recording["trajectory"][0]["input"],
        json!({"action": "left_click", "coordinate": [640, 311]})
    );
    assert!(recording["trajectory"][0]["visual_representation"].is_string());
    // The person's browser is still running.
    assert!(!browser.has_exited());
}
