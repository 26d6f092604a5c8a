//! `alert` / `confirm` / `prompt` dialogs: the person answers them in the headed window (the
//! dialog is drawn by the browser, outside the page and its frames), the step that opened
//! each keeps the answer, and a headless replay answers alike; a dialog the recording did not
//! have fails its step, naming the dialog, and nothing hangs.

use retrace_test_support::html_server::serve_html;
use serde_json::Value;
use serde_json::json;

use super::support::Session;
use super::support::read;
use super::support::xdotool;

/// Where the buttons are, in CSS pixels of the viewport.
const DELETE: (i64, i64) = (100, 140);
const RENAME: (i64, i64) = (100, 340);

/// Where the browser draws a dialog: over the top of the page, in the middle.
const DIALOG: (i64, i64) = (640, 60);

/// Two buttons, each writing its dialog's answer right under it (inside the region hashed
/// around the button). `nag` opens an alert before the prompt, as a changed app might.
fn page(nag: bool) -> String {
    let nagging = if nag { "alert('Names are final');" } else { "" };
    format!(
        "<!doctype html><html><head><title>Invoices</title><style>\
         body{{margin:0;background:#fff;font:bold 20px sans-serif}}\
         button{{position:absolute;left:40px;width:120px;height:40px;font:inherit}}\
         button:focus{{outline:none}}\
         p{{position:absolute;left:40px;margin:0}}</style></head><body>\
         <button id=\"delete\" style=\"top:120px\" onclick=\"document.getElementById('deleted')\
         .textContent = confirm('Delete invoice 7?') ? 'Deleted' : 'Kept'\">Delete</button>\
         <p id=\"deleted\" style=\"top:165px\">Invoice 7</p>\
         <button id=\"rename\" style=\"top:320px\" onclick=\"{nagging}document.getElementById\
         ('name').textContent = prompt('New name?', '') || 'unnamed'\">Rename</button>\
         <p id=\"name\" style=\"top:365px\">Quarterly report</p></body></html>"
    )
}

#[test]
fn dialogs_answered_while_recording_are_answered_alike_by_a_headless_replay() {
    retrace_test_support::require!(Chromium);
    retrace_test_support::require!(Xvfb);
    let (plain, nagging) = (page(false), page(true));
    let pages = serve_html(&[
        ("/invoices", plain.as_str()),
        ("/nagging", nagging.as_str()),
    ]);
    let Session {
        mut recorder,
        screen,
        file,
        stderr,
        dir: _dir,
        xvfb: _xvfb,
        ..
    } = Session::start_on(
        super::support::screen(),
        &pages.url("/invoices"),
        "dialogs.json",
        // The prompt's answer is a value the person named: the file keeps its placeholder.
        &["--param".to_owned(), "quarter=Q4".to_owned()],
        true,
    );
    let display = screen.display.clone();
    let _ = screen.settled_where(DELETE, |hash| !hash.is_flat());

    // Delete: the confirm opens over the page; Return accepts it.
    let no_dialog = screen.settled(DIALOG);
    let before_delete = screen.settled(DELETE);
    screen.click(DELETE, "1");
    recorder.wait_line("step   1  left_click at (100, 140) on button 'Delete'");
    let _ = screen.changed(DIALOG, &no_dialog);
    xdotool(&display, &["key", "Return"]);
    recorder.wait_line("step   1  left_click at (100, 140) on button 'Delete', then confirm 'Delete invoice 7?' accepted");
    let _ = screen.changed(DELETE, &before_delete);

    // Rename: the prompt takes the text typed into it.
    let _ = screen.settled(DIALOG);
    let before_rename = screen.settled(RENAME);
    screen.click(RENAME, "1");
    recorder.wait_line("step   2  left_click at (100, 340) on button 'Rename'");
    let _ = screen.changed(DIALOG, &no_dialog);
    xdotool(&display, &["type", "Q4"]);
    xdotool(&display, &["key", "Return"]);
    recorder.wait_line("then prompt 'New name?' accepted");
    let _ = screen.changed(RENAME, &before_rename);

    let (code, stdout) = recorder.interrupt();
    assert_eq!(code, Some(0), "{stdout}\n{}", read(&stderr));
    let recording: Value = serde_json::from_str(&read(&file)).unwrap();
    let steps = recording["trajectory"].as_array().unwrap();
    assert_eq!(steps.len(), 2, "{stdout}");
    assert_eq!(
        steps[0]["dialogs"],
        json!([{"kind": "confirm", "message": "Delete invoice 7?", "accepted": true}])
    );
    assert_eq!(
        steps[1]["dialogs"],
        json!([{"kind": "prompt", "message": "New name?", "accepted": true, "prompt_text": "{{quarter}}"}])
    );
    // As a whole value (base64 image data may hold the two letters anywhere).
    let text = read(&file);
    let holding: Vec<&str> = text
        .lines()
        .filter(|line| line.contains("\"Q4\""))
        .collect();
    assert!(holding.is_empty(), "the value is in the file: {holding:?}");

    super::support::passes_cache_check(&file);

    let replay = |path: &str| {
        std::process::Command::new(env!("CARGO_BIN_EXE_retrace"))
            .arg("replay")
            .arg(&file)
            .args(["--url", &pages.url(path), "--json", "--step-timeout", "10"])
            .args(["--param", "quarter=Q4"])
            .env_remove("ANTHROPIC_API_KEY")
            .env_remove("OPENAI_API_KEY")
            .output()
            .unwrap()
    };
    // Headless: the answers recorded are given, and what they wrote is checked after each
    // step (a dismissed confirm writes "Kept", an empty prompt "unnamed").
    let same = replay("/invoices");
    let summary = retrace_test_support::cli::summary_after_exit(&same, 0);
    assert_eq!(summary["replay"]["steps_replayed"], 2, "{summary}");

    // An alert the recording never saw fails the step that opened it, by its message.
    let nagged = replay("/nagging");
    let summary = retrace_test_support::cli::summary_after_exit(&nagged, 1);
    let failure = &summary["replay"]["failure"];
    assert_eq!(failure["step"], 2, "{summary}");
    let message = failure["message"].as_str().unwrap();
    assert!(
        message.contains("an unexpected alert 'Names are final' opened"),
        "{message}"
    );
}
