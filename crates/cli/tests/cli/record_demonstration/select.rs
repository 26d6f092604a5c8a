//! A native `<select>`: the person clicks the dropdown, the browser draws its list outside the
//! page, and they choose an option there with the keys. It is recorded as one `select_option`
//! step with the option's label, which a headless replay (no list to click in) performs and
//! checks; an option no longer there fails the step, naming the options there are.

use retrace_test_support::html_server::serve_html;
use serde_json::Value;
use serde_json::json;

use super::support::Session;
use super::support::read;
use super::support::xdotool;

/// The dropdown, in CSS pixels of the viewport.
const DROPDOWN: (i64, i64) = (100, 146);

/// Below it: where its list is drawn when open.
const LIST: (i64, i64) = (100, 200);

/// A labelled dropdown whose choice is written right under it (inside the region hashed
/// around it); `middle` is the second option's label.
fn page(middle: &str) -> String {
    format!(
        "<!doctype html><html><head><title>Order</title><style>\
         body{{margin:0;background:#fff;font:bold 18px sans-serif}}\
         select{{position:absolute;left:40px;top:130px;width:160px;height:32px;font:inherit}}\
         select:focus{{outline:none}}</style></head><body>\
         <label for=\"size\" style=\"position:absolute;left:40px;top:100px\">Size</label>\
         <select id=\"size\" onchange=\"document.getElementById('chosen').textContent = \
         'Chosen: ' + this.value\"><option>Small</option><option>{middle}</option>\
         <option>Large</option></select>\
         <p id=\"chosen\" style=\"position:absolute;left:40px;top:170px;margin:0\">Nothing yet</p>\
         </body></html>"
    )
}

#[test]
fn a_choice_in_a_native_dropdown_is_a_step_that_headless_replay_performs() {
    retrace_test_support::require!(Chromium);
    retrace_test_support::require!(Xvfb);
    let (order, renamed) = (page("Medium"), page("Mid"));
    let pages = serve_html(&[("/order", order.as_str()), ("/renamed", renamed.as_str())]);
    let Session {
        mut recorder,
        screen,
        file,
        stderr,
        dir: _dir,
        xvfb: _xvfb,
        ..
    } = Session::start(&pages.url("/order"), "select.json");
    let display = screen.display.clone();
    let _ = screen.settled_where(DROPDOWN, |hash| !hash.is_flat());

    // The click opens the list (drawn by the browser over the page); Down and Return choose.
    let closed = screen.settled(LIST);
    let before = screen.settled(DROPDOWN);
    screen.click(DROPDOWN, "1");
    let _ = screen.changed(LIST, &closed);
    xdotool(&display, &["key", "Down"]);
    xdotool(&display, &["key", "Return"]);
    recorder.wait_line("step   1  select_option at (100, 146) 'Medium' on combobox 'Size'");
    let _ = screen.changed(DROPDOWN, &before);
    let (code, stdout) = recorder.interrupt();
    assert_eq!(code, Some(0), "{stdout}\n{}", read(&stderr));

    let recording: Value = serde_json::from_str(&read(&file)).unwrap();
    let steps = recording["trajectory"].as_array().unwrap();
    assert_eq!(steps.len(), 1, "{stdout}");
    assert_eq!(
        steps[0]["input"],
        json!({"action": "select_option", "coordinate": [100, 146], "text": "Medium"})
    );
    assert_ne!(
        steps[0]["visual_representation"], steps[0]["visual_representation_after"],
        "the choice shows in the hashed region"
    );

    super::support::passes_cache_check(&file);

    let replay = |path: &str| super::support::replay_headless(&file, &pages.url(path));
    let same = replay("/order");
    let summary = retrace_test_support::cli::summary_after_exit(&same, 0);
    assert_eq!(summary["replay"]["steps_replayed"], 1, "{summary}");

    // The option renamed: the step fails, saying which options there are.
    let changed = replay("/renamed");
    let summary = retrace_test_support::cli::summary_after_exit(&changed, 1);
    let failure = &summary["replay"]["failure"];
    assert_eq!(failure["step"], 1, "{summary}");
    let message = failure["message"].as_str().unwrap();
    assert!(
        message.contains("no such option for \"Medium\" (its options: Small, Mid, Large)"),
        "{message}"
    );
}
