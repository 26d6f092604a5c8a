//! Address-bar navigation: the person types a URL in the browser's address bar (the page
//! never sees it) and it becomes a navigation step of its own, which a headless replay
//! performs before the steps made on the page it led to.

use retrace_test_support::html_server::serve_html;
use serde_json::Value;
use serde_json::json;
use std::time::Instant;

use super::support::DEADLINE;
use super::support::Screen;
use super::support::Session;
use super::support::read;
use super::support::xdotool;

/// The heading of each page, in CSS pixels of the viewport.
const HEADING: (i64, i64) = (120, 60);

fn page(title: &str, heading: &str) -> String {
    format!(
        "<!doctype html><html><head><title>{title}</title></head>\
         <body style=\"margin:0;background:#fff\">\
         <h1 style=\"font:bold 32px sans-serif;margin:0;padding:40px\">{heading}</h1>\
         </body></html>"
    )
}

/// The pixels of the browser's toolbar (the screen above the viewport) once they differ from
/// `before` and two looks in a row agree.
fn toolbar_after(screen: &Screen, before: &[u8]) -> Vec<u8> {
    let started = Instant::now();
    let mut last: Option<Vec<u8>> = None;
    loop {
        let grab = screen.grab();
        let stride = grab.width() as usize * grab.layout().channels();
        let rows = usize::try_from(screen.origin.1).unwrap();
        let toolbar = grab.data()[..rows * stride].to_vec();
        if last.as_deref() == Some(toolbar.as_slice()) && toolbar != before {
            return toolbar;
        }
        last = Some(toolbar);
        assert!(started.elapsed() < DEADLINE, "the toolbar never changed");
    }
}

#[test]
fn a_url_typed_in_the_address_bar_is_a_step_that_replay_performs() {
    retrace_test_support::require!(Chromium);
    retrace_test_support::require!(Xvfb);
    let (start, next) = (page("Start", "Start here"), page("Next", "Next page"));
    let pages = serve_html(&[("/start", start.as_str()), ("/next", next.as_str())]);
    let Session {
        mut recorder,
        screen,
        file,
        stderr,
        dir: _dir,
        xvfb: _xvfb,
        ..
    } = Session::start(&pages.url("/start"), "navigation.json");
    let display = screen.display.clone();
    let started = screen.settled_where(HEADING, |hash| !hash.is_flat());

    screen.click(HEADING, "1");
    recorder.wait_line("step   1  left_click at (120, 60) on heading 'Start here'");

    // To the address bar (its key is folded into the navigation), a URL, Enter; each once
    // the browser shows it took the one before.
    let next_url = pages.url("/next");
    let idle = toolbar_after(&screen, &[]);
    xdotool(&display, &["key", "ctrl+l"]);
    let focused = toolbar_after(&screen, &idle);
    xdotool(&display, &["type", &next_url]);
    let _typed = toolbar_after(&screen, &focused);
    xdotool(&display, &["key", "Return"]);
    recorder.wait_line(&format!("step   2  navigate to {next_url}"));
    let _ = screen.changed(HEADING, &started);
    screen.click(HEADING, "1");
    recorder.wait_line("step   3  left_click at (120, 60) on heading 'Next page'");
    let (code, stdout) = recorder.interrupt();
    assert_eq!(code, Some(0), "{stdout}\n{}", read(&stderr));

    let recording: Value = serde_json::from_str(&read(&file)).unwrap();
    let steps = recording["trajectory"].as_array().unwrap();
    assert_eq!(steps.len(), 3, "{stdout}");
    assert_eq!(steps[1]["name"], "web_executor");
    assert_eq!(
        steps[1]["input"],
        json!({"action": "OPEN_PAGE", "parameters": {"url": next_url}})
    );
    assert_eq!(
        steps[1]["page_after"],
        json!({"path": "/next", "title": "Next"})
    );

    super::support::passes_cache_check(&file);

    // Headless, from the first page: the click, the navigation, the click on the heading of
    // the page it led to.
    let replay = super::support::replay_headless(&file, &pages.url("/start"));
    let summary = retrace_test_support::cli::summary_after_exit(&replay, 0);
    assert_eq!(summary["replay"]["steps_replayed"], 3, "{summary}");
}
