//! Every computer tool form, end to end: `retrace act` records the demo's login through each
//! form against a scripted server that refuses what the real API refuses, every request it
//! sends passes the official SDK's request types, the app ends signed in, and the recording
//! replays with no model. The recordings are alike whatever the form (the form is an
//! encoding at the API edge): the same steps, with the same pixel points.

use std::path::PathBuf;

use retrace_test_support::fake_model::FakeAnthropic;
use retrace_test_support::fake_model::FakeOpenAi;
use retrace_test_support::fake_model::FakeOpenAiResponses;
use retrace_test_support::fake_model::RecordedRequest;
use retrace_test_support::fake_model::ScriptStep;
use retrace_test_support::sdk_check::assert_requests_valid;
use serde_json::Value;
use serde_json::json;

use super::*;

/// The API a scripted server speaks.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Api {
    Anthropic,
    /// OpenAI-compatible chat completions.
    Chat,
    /// OpenAI's Responses API.
    Responses,
}

/// A running scripted server of any API.
enum Fake {
    Anthropic(FakeAnthropic),
    OpenAi(FakeOpenAi),
    Responses(FakeOpenAiResponses),
}

impl Fake {
    fn start(runtime: &tokio::runtime::Runtime, api: Api, script: Vec<ScriptStep>) -> Self {
        match api {
            Api::Anthropic => Fake::Anthropic(runtime.block_on(FakeAnthropic::start(script))),
            Api::Chat => Fake::OpenAi(runtime.block_on(FakeOpenAi::start(script))),
            Api::Responses => Fake::Responses(runtime.block_on(FakeOpenAiResponses::start(script))),
        }
    }

    fn base_url(&self) -> String {
        match self {
            Fake::Anthropic(fake) => fake.base_url(),
            Fake::OpenAi(fake) => fake.base_url(),
            Fake::Responses(fake) => fake.base_url(),
        }
    }

    fn requests(&self) -> Vec<RecordedRequest> {
        match self {
            Fake::Anthropic(fake) => fake.requests(),
            Fake::OpenAi(fake) => fake.requests(),
            Fake::Responses(fake) => fake.requests(),
        }
    }
}

/// How a form's model is reached and in which space it answers.
struct Form {
    /// The `act` flags choosing the provider and model.
    flags: &'static [&'static str],
    /// Which API the model is behind.
    api: Api,
    /// A 1280x800 screenshot pixel as the model says it.
    to_model: fn((i64, i64)) -> (i64, i64),
    /// The model answers in UI-TARS's text actions rather than tool calls.
    text_actions: bool,
}

fn pixels(point: (i64, i64)) -> (i64, i64) {
    point
}

/// Qwen2.5-VL sees 1280x800 as 1288x812 (sides rounded to multiples of 28).
fn resized_28((x, y): (i64, i64)) -> (i64, i64) {
    (
        (x as f64 * 1288.0 / 1280.0).round() as i64,
        (y as f64 * 812.0 / 800.0).round() as i64,
    )
}

/// Qwen3-VL answers in 0-1000 per axis.
fn normalized_1000((x, y): (i64, i64)) -> (i64, i64) {
    (
        (x as f64 * 1000.0 / 1280.0).round() as i64,
        (y as f64 * 1000.0 / 800.0).round() as i64,
    )
}

/// The login script in the model's own coordinates: tool calls, or UI-TARS's text actions.
fn script_in(form: &Form, points: &LoginPoints) -> Vec<ScriptStep> {
    let to_model = form.to_model;
    let moved = LoginPoints {
        username: to_model(points.username),
        password: to_model(points.password),
        sign_in: to_model(points.sign_in),
    };
    if !form.text_actions {
        return login_script(&moved);
    }
    let click = |what: &str, (x, y): (i64, i64)| {
        ScriptStep::text(format!(
            "Thought: I click the {what}.\nAction: click(start_box='<|box_start|>({x},{y})<|box_end|>')"
        ))
    };
    let typing = |text: &str| {
        ScriptStep::text(format!(
            "Thought: I type it.\nAction: type(content='{text}')"
        ))
    };
    vec![
        click("username field", moved.username),
        typing(USERNAME),
        click("password field", moved.password),
        typing(PASSWORD),
        click("sign-in button", moved.sign_in),
        ScriptStep::text(
            "Thought: The dashboard says Welcome back.\nAction: finished(content='Signed in.')",
        ),
    ]
}

/// Records the login through `form`, checks the requests, the app's state and the recording,
/// and replays it; returns the recording's clicked points.
fn record_and_replay(form: &Form) -> Vec<(i64, i64)> {
    let demo = DemoThread::start(DemoConfig::default());
    let runtime = runtime();
    let points = login_points(&runtime, demo.url());
    let script = script_in(form, &points);
    let turns = script.len();
    let fake = Fake::start(&runtime, form.api, script);
    let base_url = fake.base_url();
    let requests = || fake.requests();
    let dir = tempfile::tempdir().unwrap();
    let cache_dir = dir.path().join("cache");
    let mut extra: Vec<&str> = form.flags.to_vec();
    if form.api != Api::Anthropic {
        extra.extend(["--base-url", &base_url]);
    }
    let output = act_cached(
        "Log in as {{username}} with password {{password}}",
        demo.url(),
        "record",
        &cache_dir,
        &extra,
        &base_url,
    );
    let summary = summary_after_exit(&output, 0);
    assert_eq!(summary["act"]["outcome"], "done", "{summary}");
    // The app's own state: the session cookie took the browser to the signed-in dashboard.
    assert!(
        summary["act"]["final_url"]
            .as_str()
            .unwrap()
            .ends_with("/dashboard"),
        "{summary}"
    );
    let sent = requests();
    assert_eq!(sent.len(), turns, "one request per scripted turn");
    assert_requests_valid(&sent);
    if form.text_actions {
        // No tool is offered; the earlier calls go back in UI-TARS's own text form.
        let last = sent[turns - 1].body();
        assert!(last.get("tools").is_none(), "{last}");
        let history = last["messages"].to_string();
        assert!(history.contains("Action: click(start_box='("), "{history}");
    }

    let file: PathBuf = cache_dir.join("login.json");
    let cache: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let steps = cache["trajectory"].as_array().unwrap();
    for step in steps {
        assert_eq!(
            step["name"], "computer",
            "one shape whatever the form: {step}"
        );
        assert!(step.get("toolset_name").is_none(), "{step}");
        assert!(step.get("openai_computer_call").is_none(), "{step}");
    }
    let clicked: Vec<(i64, i64)> = steps
        .iter()
        .filter_map(|step| step["input"]["coordinate"].as_array())
        .map(|xy| (xy[0].as_i64().unwrap(), xy[1].as_i64().unwrap()))
        .collect();
    let expected = [points.username, points.password, points.sign_in];
    assert_eq!(clicked.len(), 3);
    for (got, want) in clicked.iter().zip(expected) {
        assert!(
            (got.0 - want.0).abs() <= 1 && (got.1 - want.1).abs() <= 1,
            "recorded {got:?}, the control's centre is {want:?}"
        );
    }

    let output = replay_logged_in(&file, demo.url(), &[]);
    let replay = summary_after_exit(&output, 0);
    assert_eq!(replay["status"], "passed", "{replay}");
    assert_eq!(requests().len(), turns, "replay must not call the model");
    clicked
}

#[test]
fn anthropic_computer_20250124_records_and_replays() {
    retrace_test_support::require!(Chromium);
    record_and_replay(&Form {
        flags: &["--model", "claude-haiku-4-5"],
        api: Api::Anthropic,
        to_model: pixels,
        text_actions: false,
    });
}

#[test]
fn anthropic_computer_20251124_records_and_replays() {
    retrace_test_support::require!(Chromium);
    record_and_replay(&Form {
        flags: &["--model", "claude-sonnet-4-6"],
        api: Api::Anthropic,
        to_model: pixels,
        text_actions: false,
    });
}

#[test]
fn anthropic_computer_toolset_records_and_replays() {
    retrace_test_support::require!(Chromium);
    record_and_replay(&Form {
        flags: &["--model", "claude-sonnet-5-5"],
        api: Api::Anthropic,
        to_model: pixels,
        text_actions: false,
    });
}

#[test]
fn an_openai_compatible_function_tool_in_pixels_records_and_replays() {
    retrace_test_support::require!(Chromium);
    record_and_replay(&Form {
        flags: &["--provider", "openai", "--model", "local-vlm"],
        api: Api::Chat,
        to_model: pixels,
        text_actions: false,
    });
}

#[test]
fn qwen25_resized_coordinates_record_and_replay() {
    retrace_test_support::require!(Chromium);
    record_and_replay(&Form {
        flags: &[
            "--provider",
            "openai",
            "--model",
            "Qwen/Qwen2.5-VL-7B-Instruct",
        ],
        api: Api::Chat,
        to_model: resized_28,
        text_actions: false,
    });
}

#[test]
fn normalised_coordinates_record_and_replay_given_by_flag() {
    retrace_test_support::require!(Chromium);
    record_and_replay(&Form {
        flags: &[
            "--provider",
            "openai",
            "--model",
            "my-grounder",
            "--coordinates",
            "normalized:1000",
        ],
        api: Api::Chat,
        to_model: normalized_1000,
        text_actions: false,
    });
}

#[test]
fn openai_responses_computer_tool_records_and_replays() {
    retrace_test_support::require!(Chromium);
    record_and_replay(&Form {
        flags: &["--provider", "openai", "--model", "computer-use-preview"],
        api: Api::Responses,
        to_model: pixels,
        text_actions: false,
    });
}

/// UI-TARS-1.5 answers in text, in pixels of the image as its processor resized it.
#[test]
fn ui_tars_text_actions_record_and_replay() {
    retrace_test_support::require!(Chromium);
    record_and_replay(&Form {
        flags: &[
            "--provider",
            "openai",
            "--model",
            "ByteDance-Seed/UI-TARS-1.5-7B",
        ],
        api: Api::Chat,
        to_model: resized_28,
        text_actions: true,
    });
}

/// A model the catalogue does not know gets the newest form; a scripted server that knows
/// the model refuses it, and the one retry with the next form works and is said.
#[test]
fn a_refused_form_is_recovered_once_and_said() {
    retrace_test_support::require!(Chromium);
    let demo = DemoThread::start(DemoConfig::default());
    let runtime = runtime();
    let points = login_points(&runtime, demo.url());
    // `claude-sonnet-4-6` takes computer_20251124 only; asking for the toolset is refused.
    let fake = runtime.block_on(FakeAnthropic::start(login_script(&points)));
    let output = retrace(
        &[
            "act",
            "Log in to the demo app",
            "--url",
            demo.url(),
            "--model",
            "claude-sonnet-4-6",
            "--computer-tool",
            "computer_toolset_20260801",
        ],
        Some(&fake.base_url()),
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{stdout}\n{stderr}");
    let said = format!("{stdout}{stderr}");
    assert!(
        said.contains("refused the computer tool form computer_toolset_20260801")
            && said.contains("it took computer_20251124"),
        "{said}"
    );
    let requests = fake.requests();
    assert_eq!(
        requests[0].body()["tools"][0],
        json!({"type": "computer_toolset_20260801", "cache_control": {"type": "ephemeral"}})
    );
    assert!(
        requests[1..]
            .iter()
            .all(|r| r.body()["tools"][0]["type"] == "computer_20251124")
    );
}

/// `claude-sonnet-4-5` is warned about 30 days before its end of life and a day after it;
/// the date is the injectable `RETRACE_TODAY`.
#[test]
fn a_model_near_or_past_its_end_of_life_is_warned_about() {
    for (today, words) in [
        (
            "2026-10-31",
            "reaches its end of life on 2026-11-30, in 30 days",
        ),
        ("2026-12-01", "reached its end of life on 2026-11-30"),
    ] {
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_retrace"))
            .args(["act", "Log in", "--url", "http://127.0.0.1:9/"])
            .args(["--model", "claude-sonnet-4-5"])
            .env("ANTHROPIC_API_KEY", "test-key")
            .env("RETRACE_ANTHROPIC_BASE_URL", "http://127.0.0.1:9")
            .env("RETRACE_TODAY", today)
            .output()
            .unwrap();
        let said = format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        assert!(said.contains(words), "{today}: {said}");
    }
}

/// The login script whose first call waits on a pending safety check.
fn login_script_with_safety_check(points: &LoginPoints) -> Vec<ScriptStep> {
    let mut script = login_script(points);
    script[0] = script[0].clone().with_pending_safety_check(
        "malicious_instructions",
        "The page asks to ignore the user.",
    );
    script
}

/// Without `--allow-safety-checks` a pending safety check stops the run with an error (exit
/// 2: the run could not go on, nothing was checked) naming the check; with it the check is
/// acknowledged on the call's output and the login completes.
#[test]
fn a_responses_safety_check_is_refused_unless_allowed() {
    retrace_test_support::require!(Chromium);
    let demo = DemoThread::start(DemoConfig::default());
    let runtime = runtime();
    let points = login_points(&runtime, demo.url());
    let model = ["--provider", "openai", "--model", "computer-use-preview"];

    let fake = Fake::start(
        &runtime,
        Api::Responses,
        login_script_with_safety_check(&points),
    );
    let base_url = fake.base_url();
    let mut args = vec![
        "act",
        "Log in to the demo app",
        "--url",
        demo.url(),
        "--base-url",
        &base_url,
    ];
    args.extend(model);
    let output = retrace(&args, None);
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(output.status.code(), Some(2), "{said}");
    assert!(
        said.contains("pending safety check `malicious_instructions`")
            && said.contains("The page asks to ignore the user.")
            && said.contains("--allow-safety-checks"),
        "{said}"
    );
    assert_eq!(
        fake.requests().len(),
        1,
        "no action was run after the check"
    );

    let fake = Fake::start(
        &runtime,
        Api::Responses,
        login_script_with_safety_check(&points),
    );
    let base_url = fake.base_url();
    let dir = tempfile::tempdir().unwrap();
    let mut extra = model.to_vec();
    extra.extend(["--base-url", &base_url, "--allow-safety-checks"]);
    let output = act_cached(
        "Log in as {{username}} with password {{password}}",
        demo.url(),
        "record",
        &dir.path().join("cache"),
        &extra,
        &base_url,
    );
    let summary = summary_after_exit(&output, 0);
    assert!(
        summary["act"]["final_url"]
            .as_str()
            .unwrap()
            .ends_with("/dashboard"),
        "{summary}"
    );
    let sent = fake.requests();
    assert_requests_valid(&sent);
    let acknowledged: Vec<&Value> = sent[1].body()["input"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|item| item.get("acknowledged_safety_checks"))
        .collect();
    assert_eq!(acknowledged.len(), 1, "{}", sent[1].body());
    assert_eq!(acknowledged[0][0]["code"], "malicious_instructions");
}
