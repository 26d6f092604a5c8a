//! Ready when the app listens, end to end: `retrace act` records a TodoMVC-like page (real
//! headless Chromium, the real Anthropic client against a scripted server) with the event
//! listeners on each step's element, and `retrace replay` waits for them before acting.
//!
//! The page served at `/late` shows its controls at once but loads its script 1 s after the
//! load event (the page's own timer: no request is in flight meanwhile, so nothing but the
//! listeners tells the page is not ready yet); `/never` never gets one (its script is
//! missing); `/ready` has it before the load event, as when recorded.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::Output;

use retrace_drive::BrowserBackend;
use retrace_drive::chromium::ChromiumConfig;
use retrace_test_support::cli::act_record;
use retrace_test_support::cli::json_summary;
use retrace_test_support::cli::run_retrace;
use retrace_test_support::cli::runtime;
use retrace_test_support::fake_model::ScriptStep;
use retrace_test_support::html_server::HtmlServer;
use retrace_test_support::html_server::serve_html_holding;
use serde_json::Value;
use serde_json::json;

/// The page without its script: a field, an empty list and a count. `SCRIPT` is replaced by
/// how the script arrives.
const PAGE: &str = r#"<!doctype html><html><head><title>todos</title><style>
body { font: 20px sans-serif; margin: 40px; }
#new-todo { width: 400px; font-size: 22px; padding: 10px; }
#list { list-style: none; padding: 0; }
#list li { padding: 8px; font-size: 22px; }
#list input { width: 24px; height: 24px; }
#list li.done label { text-decoration: line-through; color: #999; }
</style></head><body>
<h1>todos</h1>
<input id="new-todo" placeholder="What needs to be done?" autocomplete="off">
<ul id="list"></ul>
<p id="count">0 items left</p>
SCRIPT
</body></html>"#;

/// The app: Enter in the field adds a todo; ticking one strikes it through and counts.
const APP_JS: &str = r#"
const field = document.getElementById('new-todo');
const list = document.getElementById('list');
const count = () => {
  const left = list.querySelectorAll('input:not(:checked)').length;
  document.getElementById('count').textContent = left + (left === 1 ? ' item left' : ' items left');
};
field.addEventListener('keydown', (event) => {
  if (event.key !== 'Enter' || !field.value.trim()) return;
  const item = document.createElement('li');
  const box = document.createElement('input');
  box.type = 'checkbox';
  box.id = 'todo-' + list.children.length;
  const label = document.createElement('label');
  label.htmlFor = box.id;
  label.textContent = field.value.trim();
  item.append(box, ' ', label);
  list.append(item);
  field.value = '';
  count();
});
list.addEventListener('change', (event) => {
  event.target.closest('li').classList.toggle('done', event.target.checked);
  count();
});
"#;

/// The script before the load event, as a recorded app has it.
const READY: &str = r#"<script src="/app.js"></script>"#;
/// The script 1 s after the load event.
const LATE: &str = r#"<script>addEventListener('load', () => setTimeout(() => {
  const script = document.createElement('script'); script.src = '/app.js'; document.body.append(script);
}, 1000));</script>"#;
/// A script that never comes (its URL answers 404).
const NEVER: &str = r#"<script>addEventListener('load', () => {
  const script = document.createElement('script'); script.src = '/gone.js'; document.body.append(script);
});</script>"#;

/// The three pages and the script, served on 127.0.0.1.
fn serve_todos() -> HtmlServer {
    let ready = PAGE.replace("SCRIPT", READY);
    let late = PAGE.replace("SCRIPT", LATE);
    let never = PAGE.replace("SCRIPT", NEVER);
    let pages = [
        ("/ready", ready.as_str()),
        ("/late", late.as_str()),
        ("/never", never.as_str()),
    ];
    let (server, script) = serve_html_holding(&pages, "/app.js", "text/javascript", APP_JS);
    // Served at once: what is late is the page asking for it.
    script.release();
    server
}

/// The centres of the field and (once a todo is added) of its box on the ready page.
fn points(url: &str) -> ((i64, i64), (i64, i64)) {
    runtime().block_on(async {
        let browser = retrace_test_support::chromium::started(&ChromiumConfig::default()).await;
        let page = browser.open_page().await.unwrap();
        page.navigate(url).await.unwrap();
        let centre = |found: retrace_drive::backend::BoundingBox| {
            (
                (found.x + found.width / 2.0).round() as i64,
                (found.y + found.height / 2.0).round() as i64,
            )
        };
        let field = page.query_selector("#new-todo").await.unwrap().unwrap();
        page.evaluate(
            "const f = document.getElementById('new-todo'); f.value = 'x'; \
             f.dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter'})); true",
        )
        .await
        .unwrap();
        let tick = page.query_selector("#todo-0").await.unwrap().unwrap();
        (centre(field), centre(tick))
    })
}

/// Records the flow (click the field, type, Enter, tick the new todo) with `retrace act`
/// against the ready page; the file.
fn record(server: &HtmlServer, dir: &Path) -> std::path::PathBuf {
    let (field, tick) = points(&server.url("/ready"));
    let script = vec![
        ScriptStep::computer(json!({"action": "screenshot"})),
        ScriptStep::left_click(field.0, field.1),
        ScriptStep::computer(json!({"action": "type", "text": "Buy milk"})),
        ScriptStep::computer(json!({"action": "key", "text": "Return"})),
        ScriptStep::left_click(tick.0, tick.1),
        ScriptStep::text("Added and ticked: 0 items left."),
    ];
    act_record(
        env!("CARGO_BIN_EXE_retrace"),
        "Add a todo and tick it",
        &server.url("/ready"),
        script,
        &dir.join("cache"),
        "todo.json",
    )
}

/// `retrace replay FILE --url URL --json --events EVENTS`.
fn replay(file: &Path, url: &str, events: &Path) -> Output {
    run_retrace(
        env!("CARGO_BIN_EXE_retrace"),
        &[
            "replay",
            file.to_str().unwrap(),
            "--url",
            url,
            "--json",
            "--events",
            events.to_str().unwrap(),
        ],
        None,
    )
}

/// The recorded `listeners` of each step's element.
fn recorded_listeners(file: &Path) -> Vec<Value> {
    let cache: Value = serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
    cache["trajectory"]
        .as_array()
        .unwrap()
        .iter()
        .map(|step| step["element"]["listeners"].clone())
        .collect()
}

#[test]
fn a_page_whose_script_arrives_after_its_load_event_replays_green_ten_times_of_ten() {
    retrace_test_support::require!(Chromium);
    let server = serve_todos();
    let dir = tempfile::tempdir().unwrap();
    let file = record(&server, dir.path());
    // Real facts from the ready page: the field listens for keys, the list for changes.
    let listeners = recorded_listeners(&file);
    assert_eq!(listeners.len(), 5, "{listeners:?}");
    assert_eq!(listeners[1], json!(["keydown"]), "the click on the field");
    assert_eq!(listeners[2], json!(["keydown"]), "typing into the field");
    assert_eq!(listeners[4], json!(["change"]), "the tick");
    let events = dir.path().join("events.jsonl");
    for run in 1..=10 {
        let output = replay(&file, &server.url("/late"), &events);
        let summary = json_summary(&output);
        assert_eq!(
            output.status.code(),
            Some(0),
            "run {run} of 10: {summary}\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
        assert_eq!(
            summary["replay"]["steps_replayed"], 4,
            "run {run}: {summary}"
        );
    }
}

#[test]
fn a_page_whose_script_never_comes_fails_naming_the_element_and_the_missing_listeners() {
    retrace_test_support::require!(Chromium);
    let server = serve_todos();
    let dir = tempfile::tempdir().unwrap();
    let file = record(&server, dir.path());
    let events = dir.path().join("events.jsonl");
    let output = replay(&file, &server.url("/never"), &events);
    let summary = json_summary(&output);
    assert_eq!(output.status.code(), Some(1), "{summary}");
    let failure = &summary["replay"]["failure"];
    assert_eq!(failure["step"], 2, "{summary}");
    let sentence = "textbox 'What needs to be done?' has no keydown listener yet";
    let message = failure["message"].as_str().unwrap();
    assert!(message.contains(sentence), "{message}");
    let log = std::fs::read_to_string(&events).unwrap();
    assert!(log.contains(sentence), "the event log: {log}");
    // The console (no --json) says it too.
    let console = run_retrace(
        env!("CARGO_BIN_EXE_retrace"),
        &[
            "replay",
            file.to_str().unwrap(),
            "--url",
            &server.url("/never"),
        ],
        None,
    );
    assert_eq!(console.status.code(), Some(1));
    let printed = format!(
        "{}{}",
        String::from_utf8_lossy(&console.stdout),
        String::from_utf8_lossy(&console.stderr)
    );
    assert!(printed.contains(sentence), "{printed}");
}

#[test]
fn a_recording_without_listener_facts_replays_as_before() {
    retrace_test_support::require!(Chromium);
    let server = serve_todos();
    let dir = tempfile::tempdir().unwrap();
    let file = record(&server, dir.path());
    let mut cache: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    for step in cache["trajectory"].as_array_mut().unwrap() {
        if let Some(element) = step["element"].as_object_mut() {
            element.remove("listeners");
        }
    }
    let old = dir.path().join("old.json");
    std::fs::write(&old, serde_json::to_string_pretty(&cache).unwrap()).unwrap();
    let events = dir.path().join("events.jsonl");
    let output = replay(&old, &server.url("/ready"), &events);
    let summary = json_summary(&output);
    assert_eq!(output.status.code(), Some(0), "{summary}");
    assert_eq!(summary["replay"]["steps_replayed"], 4, "{summary}");
    let log = std::fs::read_to_string(&events).unwrap();
    assert!(
        !log.contains("\"listeners\""),
        "no listener check ran: {log}"
    );
    // Without the facts the page that never listens is acted on: it fails later, at the tick
    // of a todo never added, not at the field.
    let output = replay(&old, &server.url("/never"), &events);
    let summary = json_summary(&output);
    assert_eq!(output.status.code(), Some(1), "{summary}");
    assert_eq!(summary["replay"]["failure"]["step"], 5, "{summary}");
}

/// `retrace ARGS` run in `dir`, with no model settings.
fn retrace_in(dir: &Path, args: &[&str]) -> Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_retrace"))
        .current_dir(dir)
        .args(args)
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("OPENAI_API_KEY")
        .output()
        .unwrap()
}

#[test]
fn a_suite_reports_the_missing_listeners_and_approve_records_the_pages_own() {
    retrace_test_support::require!(Chromium);
    let server = serve_todos();
    let dir = tempfile::tempdir().unwrap();
    let recorded = record(&server, dir.path());
    let suite = dir.path().join("suite");
    std::fs::create_dir(&suite).unwrap();
    std::fs::copy(&recorded, suite.join("flow.json")).unwrap();
    let toml = format!("[defaults]\nurl = \"{}\"\n", server.url("/never"));
    std::fs::write(suite.join("retrace.toml"), toml).unwrap();
    let run = [
        "run",
        "flow.json",
        "--json",
        "--jobs",
        "1",
        "--report",
        "html,json",
        "--out",
        "out",
    ];
    let output = retrace_in(&suite, &run);
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(output.status.code(), Some(1), "{report:#}");
    let test = &report["tests"][0];
    assert_eq!(test["step"], 2, "{test:#}");
    let sentence = "has no keydown listener yet, on it or its ancestors";
    assert!(test.to_string().contains(sentence), "{test:#}");
    let html = std::fs::read_to_string(suite.join("out/report.html")).unwrap();
    assert!(
        html.contains(sentence),
        "the HTML report names the missing listeners"
    );
    // The page listens no more for good: approve records what it has now (nothing).
    let output = retrace_in(&suite, &["approve", "flow.json", "--step", "2"]);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let listeners = recorded_listeners(&suite.join("flow.json"));
    assert_eq!(listeners[1], json!([]), "{listeners:?}");
    assert_eq!(
        listeners[2],
        json!(["keydown"]),
        "the other steps as recorded"
    );
}
