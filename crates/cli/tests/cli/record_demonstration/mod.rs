//! `retrace record` end to end: the real binary opens a headed Chromium under Xvfb on the demo
//! app, the test acts on the window with `xdotool` as a person would (pointer moves, clicks,
//! typing with a correction, Tab, Enter, wheel turns, the modal's currency dropdown and its
//! checkbox, Save draft), stops it with SIGINT, and checks the file it wrote: `cache check`
//! passes, it replays green with no model (each replay saving the draft in the currency
//! chosen, as the app's own state shows), fails on the `v2` layout at the changed button,
//! holds no password anywhere, and a click's before-hash is the hash of the screen the test
//! itself saw just before clicking.
//!
//! The test never sleeps to wait: it polls the recorder's line for each input and the screen
//! for each reaction, with deadlines.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod connect;
mod dialogs;
mod navigation;
mod select;
mod stop_control;
mod support;

use retrace_test_support::demo::DemoConfig;
use retrace_test_support::demo::DemoThread;
use retrace_vision::ImageHash;
use serde_json::Value;
use serde_json::json;
use std::process::Command;

use support::RETRACE;
use support::Recorder;
use support::Screen;
use support::Session;
use support::read;
use support::xdotool;

/// The demo's controls, in CSS pixels of the 1280x800 viewport.
const USERNAME: (i64, i64) = (640, 311);
const SIGN_IN: (i64, i64) = (551, 467);
const NEW_INVOICE: (i64, i64) = (761, 203);
const TABLE: (i64, i64) = (300, 600);
const CURRENCY: (i64, i64) = (788, 344);
/// Below the currency dropdown: where the browser draws its list when open.
const CURRENCY_LIST: (i64, i64) = (788, 400);
const MARK_AS_SENT: (i64, i64) = (454, 392);
const SAVE_DRAFT: (i64, i64) = (784, 448);

/// Signs in as a person would (a typo in the password, corrected), opens the modal, chooses
/// EUR in its currency dropdown (in the list the browser draws outside the page, with the
/// keys), ticks its checkbox and saves the draft. Returns the hash of the checkbox's region
/// the test saw just before clicking it.
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
    let _ = screen.changed(MARK_AS_SENT, &modal_closed);
    // The click opens the dropdown's list (drawn by the browser over the page); Down and
    // Return choose the option after USD.
    let list_closed = screen.settled(CURRENCY_LIST);
    screen.click(CURRENCY, "1");
    let _ = screen.changed(CURRENCY_LIST, &list_closed);
    let list_open = screen.settled(CURRENCY);
    xdotool(display, &["key", "Down"]);
    xdotool(display, &["key", "Return"]);
    recorder.wait_line("step   9  select_option at (788, 344) 'EUR' on combobox 'Currency'");
    let _ = screen.changed(CURRENCY, &list_open);
    // What the person sees before ticking the box: the modal, settled.
    let before_tick = screen.settled(MARK_AS_SENT);
    screen.click(MARK_AS_SENT, "1");
    recorder.wait_line("step  10  left_click at (454, 392) on checkbox 'Mark as sent'");
    let _ticked = screen.changed(MARK_AS_SENT, &before_tick);
    let modal_open = screen.settled(SAVE_DRAFT);
    screen.click(SAVE_DRAFT, "1");
    recorder.wait_line("step  11  left_click at (784, 448) on button 'Save draft'");
    let _ = screen.changed(SAVE_DRAFT, &modal_open);
    before_tick
}

/// The app's own record of the drafts saved (its "Recently saved" card, as the server renders
/// it) once it holds `count`: how many were saved, and the newest as the card lists it. The
/// page sends a draft as it saves it, so the server may get it a moment after the screen
/// showed the save: it is asked until then.
fn saved_drafts(demo: &DemoThread, count: usize) -> (usize, String) {
    let mut last = (0, String::new());
    let reached = retrace_test_support::cli::poll(support::DEADLINE, || {
        last = drafts_now(demo);
        (last.0 >= count).then_some(())
    });
    assert!(reached.is_some(), "never {count} drafts saved: {last:?}");
    last
}

fn drafts_now(demo: &DemoThread) -> (usize, String) {
    let page = demo.signed_in_dashboard();
    let saved = page
        .split_once("data-saved=\"")
        .and_then(|(_, rest)| rest.split_once('"'))
        .map_or(0, |(count, _)| count.parse().unwrap());
    let newest = page
        .split_once("<li>")
        .and_then(|(_, rest)| rest.split_once("</li>"))
        .map(|(item, _)| item.to_owned())
        .unwrap_or_default();
    (saved, newest)
}

#[test]
fn a_demonstration_under_xvfb_records_a_file_that_replays_without_a_model() {
    retrace_test_support::require!(Chromium);
    retrace_test_support::require!(Xvfb);
    let demo = DemoThread::start(DemoConfig {
        mark_sent: true,
        recent_drafts: true,
        ..DemoConfig::default()
    });
    let Session {
        mut recorder,
        screen,
        file,
        events,
        stderr,
        dir: _dir,
        xvfb: _xvfb,
    } = Session::start(demo.url(), "login.json");
    let seen_before_tick = demonstrate(&mut recorder, &screen);
    let (code, stdout) = recorder.interrupt();
    assert_eq!(code, Some(0), "{stdout}\n{}", read(&stderr));
    assert!(
        stdout.contains("stopped (interrupted): recorded 11 steps to"),
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
            json!({"action": "select_option", "coordinate": [788, 344], "text": "EUR"}),
            json!({"action": "left_click", "coordinate": [454, 392]}),
            json!({"action": "left_click", "coordinate": [784, 448]}),
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

    // The choice in the dropdown: one step on the dropdown, the list's click and keys folded
    // into it; the region around it shows the choice.
    let choice = &recording["trajectory"][8];
    assert_eq!(choice["element"]["role"], "combobox", "{choice}");
    assert_eq!(choice["element"]["name"], "Currency", "{choice}");
    assert_ne!(
        choice["visual_representation"], choice["visual_representation_after"],
        "{choice}"
    );
    // The person's draft, saved in the currency chosen.
    assert_eq!(
        saved_drafts(&demo, 1),
        (1, "New customer &middot; €0.00".to_owned())
    );

    // The checkbox click: its before-hash is the screen the test saw before clicking, its
    // after-hash differs (the box is ticked), and the element says so.
    let tick = &recording["trajectory"][9];
    assert_eq!(tick["element"]["role"], "checkbox");
    assert_eq!(tick["element"]["checked"], false);
    assert_eq!(tick["element_after"]["checked"], true);
    let recorded_before = tick["visual_representation"].as_str().unwrap();
    assert_eq!(recorded_before, seen_before_tick.to_string());
    let recorded_after = tick["visual_representation_after"].as_str().unwrap();
    assert_ne!(recorded_before, recorded_after);

    // Listener facts, read once each click was handled: only the types a click dispatches,
    // and only while the element clicked is still at the point.
    let listeners: Vec<Value> = recording["trajectory"]
        .as_array()
        .unwrap()
        .iter()
        .map(|step| step["element"]["listeners"].clone())
        .collect();
    // The username field: its form listens for `submit`, which no click dispatches.
    assert_eq!(listeners[0], json!([]), "{listeners:?}");
    // "New invoice": the modal it opened covers it, so what is hit there says nothing.
    assert_eq!(listeners[7], Value::Null, "{listeners:?}");
    // Typing and keys get none.
    assert_eq!(listeners[1], Value::Null, "{listeners:?}");
    assert_eq!(listeners[4], Value::Null, "{listeners:?}");

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

    support::passes_cache_check(&file);

    // Headless replays, no model: green every time, 10 of 10, each saving one more draft in
    // the currency chosen.
    for attempt in 1..=10 {
        let output = retrace_test_support::cli::demo_replay(RETRACE, &file, demo.url())
            .env_remove("ANTHROPIC_API_KEY")
            .env_remove("OPENAI_API_KEY")
            .output()
            .unwrap();
        let summary = retrace_test_support::cli::summary_after_exit(&output, 0);
        assert_eq!(summary["status"], "passed", "replay {attempt}: {summary}");
        assert_eq!(summary["replay"]["steps_replayed"], 11, "{summary}");
        assert_eq!(
            saved_drafts(&demo, 1 + attempt),
            (1 + attempt, "New customer &middot; €0.00".to_owned()),
            "replay {attempt}"
        );
    }

    // And as a suite, with `retrace run`.
    let run = Command::new(RETRACE)
        .arg("run")
        .arg(&file)
        .args(["--url", demo.url(), "--param", "username=demo", "--param"])
        .arg(format!("password={}", retrace_demo::DEMO_PASSWORD))
        .output()
        .unwrap();
    assert_eq!(
        run.status.code(),
        Some(0),
        "{}\n{}",
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr)
    );

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
    let Session {
        mut recorder,
        screen,
        file,
        stderr,
        dir: _dir,
        xvfb,
        ..
    } = Session::start(demo.url(), "click.json");
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

/// A page with a heading, whose text the second variant changes (same place, same style), and
/// a line fixed at the bottom of the viewport.
fn heading_page(text: &str) -> String {
    format!(
        "<!doctype html><html><head><title>Results</title></head>\
         <body style=\"margin:0;background:#fff\">\
         <h1 style=\"font:bold 32px sans-serif;margin:0;padding:40px\">{text}</h1>\
         <p style=\"position:fixed;bottom:0;left:0;margin:0;padding:10px 40px;\
         font:bold 16px sans-serif\">Page 1 of 3</p></body></html>"
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
    let Session {
        mut recorder,
        screen,
        file,
        stderr,
        dir: _dir,
        xvfb,
        ..
    } = Session::start(&pages.url("/report"), "heading.json");
    let heading = (120, 60);
    let _ = screen.settled_where(heading, |hash| !hash.is_flat());
    screen.point_at(heading);
    xdotool(&xvfb.display(), &["key", "ctrl+shift+k"]);
    recorder.wait_line("step   1  checkpoint at (120, 60) on heading 'Quarterly results'");
    // The viewport's last rows are on the screen too: the window shows the whole recorded
    // screen, not a part of it.
    let footer = (100, 782);
    let seen_footer = screen.settled(footer);
    screen.point_at(footer);
    xdotool(&xvfb.display(), &["key", "ctrl+shift+k"]);
    recorder.wait_line("step   2  checkpoint at (100, 782)");
    let (code, stdout) = recorder.interrupt();
    assert_eq!(code, Some(0), "{stdout}\n{}", read(&stderr));
    let recording: Value = serde_json::from_str(&read(&file)).unwrap();
    assert_eq!(
        recording["trajectory"].as_array().unwrap().len(),
        2,
        "{stdout}"
    );
    assert_eq!(
        recording["trajectory"][1]["visual_representation"],
        seen_footer.to_string()
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
    assert_eq!(summary["replay"]["steps_replayed"], 2, "{summary}");
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

#[test]
fn bad_input_is_refused_before_a_browser_starts_with_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let no_display = Command::new(RETRACE)
        .args(["record", "--url", "http://127.0.0.1:9/", "--out"])
        .arg(dir.path().join("flow.json"))
        .env_remove("DISPLAY")
        .output()
        .unwrap();
    assert_eq!(no_display.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&no_display.stderr);
    assert!(stderr.contains("set DISPLAY or give --display"), "{stderr}");

    // The display is never reached: the file name is checked first.
    let out_is_a_dir = Command::new(RETRACE)
        .args([
            "record",
            "--url",
            "http://127.0.0.1:9/",
            "--display",
            ":9999",
            "--out",
        ])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(out_is_a_dir.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out_is_a_dir.stderr);
    assert!(stderr.contains("is a directory"), "{stderr}");
}
