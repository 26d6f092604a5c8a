//! Failing fast on a settled page, end to end: a flow recorded by `retrace act` (the real
//! Anthropic client against a scripted server) on a small form, replayed by the real binary
//! in real headless Chromium against changed copies of the form. A label renamed beside a
//! focused field whose caret blinks, and a click whose effect never comes, fail as soon as
//! the page has settled (well under the 10 s step timeout); an effect a slow server sends 3 s
//! later is waited for. The bound of 1.5 s is the one issue 39 gives: it holds beside 4
//! busy processes (`scripts/test-under-load.sh 4 -- -p retrace-cli --test
//! replay_fast_failures`), and is read from the replay's own report of how long it waited.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::path::PathBuf;
use std::time::Duration;

use retrace_test_support::cli::act_record;
use retrace_test_support::cli::json_summary;
use retrace_test_support::cli::run_retrace;
use retrace_test_support::fake_model::ScriptStep;
use retrace_test_support::html_server::HtmlServer;
use serde_json::Value;
use serde_json::json;

/// The longest a failure on a settled page may take, as the replay reports it.
const FAST: Duration = Duration::from_millis(1_500);

/// How late the slow server answers.
const SLOW_SERVER: Duration = Duration::from_secs(3);

/// The centre of the author field and of the Save button (placed absolutely, so no layout
/// decides them).
const FIELD: (i64, i64) = (240, 114);
const SAVE: (i64, i64) = (245, 216);

/// The form: a labelled field that has the focus from the start (its caret blinks), and a
/// Save button that turns green and reads "Saved" when `script` says so.
fn form(label: &str, script: &str) -> String {
    format!(
        r#"<!doctype html><html><head><title>Book</title><style>
body {{ font: 16px sans-serif; margin: 0 }}
* {{ box-sizing: border-box }}
label {{ position: absolute; left: 100px; top: 104px }}
#author {{ position: absolute; left: 200px; top: 100px; width: 80px; height: 28px; font-size: 16px }}
#save {{ position: absolute; left: 200px; top: 200px; width: 90px; height: 32px; font-size: 16px }}
#save.saved {{ background: #2a7; color: #fff }}
</style></head><body>
<label for="author">{label}</label><input id="author" autofocus>
<button id="save" type="button">Save</button>
<script>
const save = document.getElementById('save');
const saved = () => {{ save.classList.add('saved'); save.textContent = 'Saved'; }};
{script}
</script></body></html>"#
    )
}

/// The form as recorded, and its changed copies.
fn serve_forms() -> HtmlServer {
    let at_once = "save.addEventListener('click', saved);";
    let slow = "save.addEventListener('click', () => fetch('/api/save').then(saved));";
    retrace_test_support::html_server::serve_html_slow(
        &[
            ("/recorded", &form("Author:", at_once)),
            ("/renamed", &form("Writer:", at_once)),
            // Listening, so the listeners check passes, but the click changes nothing.
            (
                "/ignored",
                &form("Author:", "save.addEventListener('click', () => {});"),
            ),
            ("/slow", &form("Author:", slow)),
        ],
        "/api/save",
        SLOW_SERVER,
        "application/json",
        "{}",
    )
}

/// `retrace act` on the recorded form, a scripted model clicking the field and then Save:
/// the trajectory it wrote.
fn record(server: &HtmlServer, dir: &Path) -> PathBuf {
    let script = vec![
        ScriptStep::computer(json!({"action": "screenshot"})),
        ScriptStep::left_click(FIELD.0, FIELD.1),
        ScriptStep::left_click(SAVE.0, SAVE.1),
        ScriptStep::text("Saved."),
    ];
    act_record(
        env!("CARGO_BIN_EXE_retrace"),
        "Save the book",
        &server.url("/recorded"),
        script,
        dir,
        "book.json",
    )
}

/// `retrace replay FILE --url URL --json` with the step timeout at its default of 10 s;
/// the exit code and the summary.
fn replay(file: &Path, url: &str) -> (Option<i32>, Value) {
    let output = run_retrace(
        env!("CARGO_BIN_EXE_retrace"),
        &[
            "replay",
            file.to_str().unwrap(),
            "--url",
            url,
            "--json",
            "--step-timeout",
            "10",
        ],
        None,
    );
    (output.status.code(), json_summary(&output))
}

/// The failure of a replay that failed at `step`: its message and how long it waited.
fn failed_at(code: Option<i32>, summary: &Value, step: u64) -> (String, Duration) {
    assert_eq!(code, Some(1), "{summary:#}");
    let failure = &summary["replay"]["failure"];
    assert_eq!(failure["step"], step, "{failure:#}");
    let message = failure["message"].as_str().unwrap().to_owned();
    let waited = Duration::from_millis(failure["waited_ms"].as_u64().unwrap());
    eprintln!("step {step} failed after {waited:?}: {message}");
    (message, waited)
}

#[test]
fn settled_pages_fail_in_under_a_second_and_a_half_and_a_slow_server_is_waited_for() {
    retrace_test_support::require!(Chromium);
    let server = serve_forms();
    let dir = tempfile::tempdir().unwrap();
    let file = record(&server, dir.path());
    let (code, summary) = replay(&file, &server.url("/recorded"));
    assert_eq!(
        code,
        Some(0),
        "the recording replays on its own form: {summary:#}"
    );

    // The field's label renamed: the field has the focus, its caret blinks inside the
    // region the click step looks at, and the page is otherwise still.
    let (code, summary) = replay(&file, &server.url("/renamed"));
    let (message, waited) = failed_at(code, &summary, 2);
    assert!(
        message.contains("expected textbox 'Author:', found textbox 'Writer:'"),
        "{message}"
    );
    // The caret is in the recording's state or the other one: the other is masked, so the
    // failure names the label alone, not a visual difference.
    assert!(
        message.starts_with("The semantic check failed"),
        "{message}"
    );
    assert!(message.contains("The page settled"), "{message}");
    assert!(waited < FAST, "waited {waited:?}: {message}");

    // Save ignores the click: its effect never comes, on a page with nothing in flight.
    let (code, summary) = replay(&file, &server.url("/ignored"));
    let (message, waited) = failed_at(code, &summary, 3);
    assert_eq!(
        summary["replay"]["failure"]["kind"], "effect",
        "{summary:#}"
    );
    assert!(message.contains("The page settled"), "{message}");
    assert!(waited < FAST, "waited {waited:?}: {message}");

    // Save waits for a server that answers 3 s later: the request in flight holds the step.
    let (code, summary) = replay(&file, &server.url("/slow"));
    assert_eq!(code, Some(0), "{summary:#}");
}
