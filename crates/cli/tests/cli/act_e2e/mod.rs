//! `retrace act` end to end: real headless Chromium, the real demo app, the real Anthropic and
//! OpenAI-compatible clients against scripted fake servers, and `retrace replay` of what a run
//! recorded.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers outside #[test] fns

mod askui_format;
mod caching;
mod forms;
mod readme;
mod stored_cache;

use std::path::Path;
use std::process::Output;

use retrace_drive::BrowserBackend;
use retrace_drive::chromium::ChromiumConfig;
use retrace_test_support::cli::json_summary;
use retrace_test_support::cli::run_retrace;
use retrace_test_support::cli::runtime;
use retrace_test_support::cli::summary_after_exit;
use retrace_test_support::demo::DemoConfig;
use retrace_test_support::demo::DemoThread;
use retrace_test_support::fake_model::FakeAnthropic;
use retrace_test_support::fake_model::FakeOpenAi;
use retrace_test_support::fake_model::RecordedRequest;
use retrace_test_support::fake_model::ScriptStep;
use serde_json::Value;
use serde_json::json;

const PASSWORD: &str = retrace_demo::DEMO_PASSWORD;
const USERNAME: &str = retrace_demo::DEMO_USERNAME;

/// The centres of the login form's controls at 1280x800, asked of the page itself.
struct LoginPoints {
    username: (i64, i64),
    password: (i64, i64),
    sign_in: (i64, i64),
}

fn login_points(runtime: &tokio::runtime::Runtime, url: &str) -> LoginPoints {
    login_points_at(runtime, url, (1280, 800))
}

/// The centres of the login form's controls in a viewport of `size`, in its pixels.
fn login_points_at(
    runtime: &tokio::runtime::Runtime,
    url: &str,
    (width, height): (u32, u32),
) -> LoginPoints {
    runtime.block_on(async {
        let config = ChromiumConfig {
            width,
            height,
            ..ChromiumConfig::default()
        };
        let browser = retrace_test_support::chromium::started(&config).await;
        let page = browser.open_page().await.unwrap();
        page.navigate(url).await.unwrap();
        let mut centres = Vec::new();
        for selector in ["#username", "#password", "#sign-in"] {
            let found = page
                .query_selector(selector)
                .await
                .unwrap()
                .unwrap_or_else(|| panic!("no {selector} on the login page"));
            centres.push((
                (found.x + found.width / 2.0).round() as i64,
                (found.y + found.height / 2.0).round() as i64,
            ));
        }
        LoginPoints {
            username: centres[0],
            password: centres[1],
            sign_in: centres[2],
        }
    })
}

/// The scripted model: look, click the username field, type, click the password field, type,
/// click "Sign in", then answer in text.
fn login_script(points: &LoginPoints) -> Vec<ScriptStep> {
    let click = |(x, y): (i64, i64)| {
        ScriptStep::tool_use(
            "computer",
            json!({"action": "left_click", "coordinate": [x, y]}),
        )
    };
    let typing =
        |text: &str| ScriptStep::tool_use("computer", json!({"action": "type", "text": text}));
    vec![
        ScriptStep::tool_use("computer", json!({"action": "screenshot"})),
        click(points.username),
        typing(USERNAME),
        click(points.password),
        typing(PASSWORD),
        click(points.sign_in),
        ScriptStep::text("Signed in: the dashboard says Welcome back, demo."),
    ]
}

fn retrace(args: &[&str], base_url: Option<&str>) -> Output {
    run_retrace(env!("CARGO_BIN_EXE_retrace"), args, base_url)
}

/// `retrace act GOAL --url URL --cache MODE --cache-dir DIR --cache-file login.json` with the
/// demo's credentials as `username`/`password` parameters, `extra` arguments and `--json`,
/// against the model server at `base_url`.
fn act_cached(
    goal: &str,
    url: &str,
    mode: &str,
    cache_dir: &Path,
    extra: &[&str],
    base_url: &str,
) -> Output {
    let username = format!("username={USERNAME}");
    let password = format!("password={PASSWORD}");
    let mut args = vec![
        "act",
        goal,
        "--url",
        url,
        "--cache",
        mode,
        "--cache-dir",
        cache_dir.to_str().unwrap(),
        "--cache-file",
        "login.json",
        "--param",
        &username,
        "--param",
        &password,
    ];
    args.extend_from_slice(extra);
    args.push("--json");
    retrace(&args, Some(base_url))
}

/// `retrace replay FILE --url URL` with the demo's credentials as parameters, `extra`
/// arguments and `--json`, with no model at all.
fn replay_logged_in(file: &Path, url: &str, extra: &[&str]) -> Output {
    let username = format!("username={USERNAME}");
    let password = format!("password={PASSWORD}");
    let mut args = vec![
        "replay",
        file.to_str().unwrap(),
        "--url",
        url,
        "--param",
        &username,
        "--param",
        &password,
        "--json",
    ];
    args.extend_from_slice(extra);
    retrace(&args, None)
}

/// Every image block anywhere in a request body, as (media type or URL prefix).
fn count_images(value: &Value) -> usize {
    match value {
        Value::Object(map) => {
            let here = usize::from(
                map.get("type")
                    .and_then(Value::as_str)
                    .is_some_and(|t| t == "image" || t == "image_url"),
            );
            here + map.values().map(count_images).sum::<usize>()
        }
        Value::Array(items) => items.iter().map(count_images).sum(),
        _ => 0,
    }
}

/// The checks every provider's requests must pass: screenshots travel as images, and the
/// cache-only `visual_representation` field never reaches the model.
fn assert_requests_carry_screenshots(requests: &[RecordedRequest]) {
    assert_eq!(requests.len(), 7, "one request per scripted turn");
    for (index, request) in requests.iter().enumerate() {
        let text = request.body().to_string();
        assert!(
            !text.contains("visual_representation"),
            "request {index} leaks visual_representation"
        );
        // Each action answers with a screenshot; the request after it carries it.
        if index > 0 {
            assert!(
                count_images(request.body()) >= 1,
                "request {index} has no screenshot: {}",
                &text[..text.len().min(400)]
            );
        }
    }
}

#[test]
fn act_logs_in_to_the_demo_app_through_the_anthropic_client() {
    retrace_test_support::require!(Chromium);
    let demo = DemoThread::start(DemoConfig::default());
    let runtime = runtime();
    let points = login_points(&runtime, demo.url());
    let fake = runtime.block_on(FakeAnthropic::start(login_script(&points)));
    let base_url = fake.base_url();
    let output = retrace(
        &[
            "act",
            "Log in to the demo app",
            "--url",
            demo.url(),
            "--json",
        ],
        Some(&base_url),
    );
    let summary = summary_after_exit(&output, 0);
    assert_eq!(summary["act"]["outcome"], "done");
    assert_eq!(summary["act"]["turns"], 7);
    assert!(
        summary["act"]["final_url"]
            .as_str()
            .unwrap()
            .ends_with("/dashboard"),
        "{summary}"
    );
    // Known model, known prices: a cost estimate.
    assert!(
        summary["act"]["cost_usd"].as_f64().unwrap() > 0.0,
        "{summary}"
    );

    let requests = fake.requests();
    assert_requests_carry_screenshots(&requests);
    let first = &requests[0];
    assert_eq!(first.header("x-api-key"), Some("test-key"));
    assert!(
        first
            .header("anthropic-beta")
            .unwrap_or_default()
            .contains("computer-use")
    );
    let computer = first.body()["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|tool| tool["name"] == "computer")
        .unwrap();
    assert_eq!(computer["display_width_px"], 1280);
    assert_eq!(computer["display_height_px"], 800);
    // The last request's screenshot is the page after "Sign in": the tool_result image.
    let last = requests.last().unwrap();
    let last_user = last.body()["messages"].as_array().unwrap().last().unwrap();
    assert_eq!(last_user["content"][0]["type"], "tool_result");
    assert_eq!(
        last_user["content"][0]["content"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|b| b["type"] == "image")
            .count(),
        1
    );
}

#[test]
fn act_logs_in_to_the_demo_app_through_the_openai_compatible_client() {
    retrace_test_support::require!(Chromium);
    let demo = DemoThread::start(DemoConfig::default());
    let runtime = runtime();
    let points = login_points(&runtime, demo.url());
    let fake = runtime.block_on(FakeOpenAi::start(login_script(&points)));
    let base_url = fake.base_url();
    let output = retrace(
        &[
            "act",
            "Log in to the demo app",
            "--url",
            demo.url(),
            "--provider",
            "openai",
            "--model",
            "qwen2.5-vl-7b",
            "--base-url",
            &base_url,
            "--json",
        ],
        None,
    );
    let summary = summary_after_exit(&output, 0);
    assert_eq!(summary["act"]["outcome"], "done");
    assert!(
        summary["act"]["final_url"]
            .as_str()
            .unwrap()
            .ends_with("/dashboard"),
        "{summary}"
    );
    let requests = fake.requests();
    assert_requests_carry_screenshots(&requests);
    assert_eq!(requests[0].body()["model"], "qwen2.5-vl-7b");
    assert!(
        requests[1]
            .body()
            .to_string()
            .contains("data:image/png;base64,")
    );
}

#[test]
fn act_without_a_key_names_the_variable_to_set() {
    let output = retrace(&["act", "Log in", "--url", "http://127.0.0.1:9/"], None);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("ANTHROPIC_API_KEY") && stderr.contains("--api-key-env"),
        "{stderr}"
    );
    let output = retrace(
        &[
            "act",
            "Log in",
            "--url",
            "http://127.0.0.1:9/",
            "--api-key-env",
            "MY_RETRACE_TEST_KEY",
        ],
        None,
    );
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("MY_RETRACE_TEST_KEY"));
}

fn hex16(value: &Value) -> bool {
    value
        .as_str()
        .is_some_and(|hash| hash.len() == 16 && hash.chars().all(|c| c.is_ascii_hexdigit()))
}

#[test]
fn act_records_a_parameterised_login_that_replays_without_a_model() {
    retrace_test_support::require!(Chromium);
    let demo = DemoThread::start(DemoConfig::default());
    let runtime = runtime();
    let points = login_points(&runtime, demo.url());
    let fake = runtime.block_on(FakeAnthropic::start(login_script(&points)));
    let base_url = fake.base_url();
    let dir = tempfile::tempdir().unwrap();
    let cache_dir = dir.path().join("cache");
    let events = dir.path().join("events.jsonl");
    let output = act_cached(
        "Log in as {{username}} with password {{password}}",
        demo.url(),
        "record",
        &cache_dir,
        &["--events", events.to_str().unwrap()],
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
    let file = cache_dir.join("login.json");
    assert_eq!(
        summary["act"]["recorded"].as_str().map(Path::new),
        Some(file.as_path())
    );

    // The model was sent the filled goal; the file, the event log and stdout never see the
    // password.
    let requests_after_recording = fake.requests().len();
    assert_eq!(requests_after_recording, 7);
    assert!(
        fake.requests()[0]
            .body()
            .to_string()
            .contains(&format!("with password {PASSWORD}"))
    );
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(
        !text.contains(PASSWORD),
        "the password leaked into the cache file"
    );
    assert!(
        !std::fs::read_to_string(&events).unwrap().contains(PASSWORD),
        "the password leaked into the event log"
    );
    assert!(!String::from_utf8_lossy(&output.stdout).contains(PASSWORD));

    let cache: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        cache["metadata"]["goal"],
        "Log in as {{username}} with password {{password}}"
    );
    let parameters = cache["cache_parameters"].as_object().unwrap();
    assert!(
        parameters.contains_key("username") && parameters.contains_key("password"),
        "{parameters:?}"
    );
    let steps = cache["trajectory"].as_array().unwrap();
    let typed: Vec<&str> = steps
        .iter()
        .filter(|s| s["input"]["action"] == "type")
        .map(|s| s["input"]["text"].as_str().unwrap())
        .collect();
    assert_eq!(typed, ["{{username}}", "{{password}}"]);
    // Where the keys went: the field with the focus before typing, checked before replay types.
    for step in steps.iter().filter(|s| s["input"]["action"] == "type") {
        assert_eq!(step["element"]["role"], "textbox", "{step}");
    }
    let acting_at_a_point: Vec<&Value> = steps
        .iter()
        .filter(|s| s["input"].get("coordinate").is_some())
        .collect();
    assert_eq!(acting_at_a_point.len(), 3, "three clicks");
    for step in acting_at_a_point {
        assert!(hex16(&step["visual_representation"]), "no hash at {step}");
    }

    // Replay with no provider at all: no key, no base URL, and the fake hears nothing.
    let output = replay_logged_in(&file, demo.url(), &[]);
    let replay = summary_after_exit(&output, 0);
    assert_eq!(replay["status"], "passed");
    assert_eq!(replay["replay"]["steps_replayed"], 5, "{replay}");
    assert_eq!(replay["replay"]["checks_passed"]["visual"], 3, "{replay}");
    // The three clicks' elements, and the focus before each typing.
    assert_eq!(replay["replay"]["checks_passed"]["semantic"], 5, "{replay}");
    assert_eq!(
        fake.requests().len(),
        requests_after_recording,
        "replay must not call the model"
    );
}

/// The centre of the dashboard's report button at 1280x800, asked of the page after signing in
/// through the form.
fn report_button_point(runtime: &tokio::runtime::Runtime, url: &str) -> (i64, i64) {
    runtime.block_on(async {
        let config = ChromiumConfig {
            width: 1280,
            height: 800,
            ..ChromiumConfig::default()
        };
        let browser = retrace_test_support::chromium::started(&config).await;
        let page = browser.open_page().await.unwrap();
        page.navigate(url).await.unwrap();
        page.evaluate(&format!(
            "document.querySelector('#username').value = '{USERNAME}';
             document.querySelector('#password').value = '{PASSWORD}';
             document.querySelector('#sign-in').click(); true"
        ))
        .await
        .unwrap();
        for _ in 0..100 {
            let on_dashboard = page
                .current_url()
                .await
                .is_ok_and(|url| url.contains("/dashboard"));
            if on_dashboard
                && let Some(found) = page.query_selector("#generate-report").await.unwrap()
            {
                return (
                    (found.x + found.width / 2.0).round() as i64,
                    (found.y + found.height / 2.0).round() as i64,
                );
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        panic!("never reached the dashboard's report button");
    })
}

fn hamming(a: &str, b: &str) -> u32 {
    let a = u64::from_str_radix(a, 16).unwrap();
    let b = u64::from_str_radix(b, 16).unwrap();
    (a ^ b).count_ones()
}

/// The acting steps of a cache file whose input has a coordinate, as (point, hash).
fn steps_at_points(cache: &Value) -> Vec<((i64, i64), String)> {
    cache["trajectory"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|step| {
            let point = step["input"].get("coordinate")?;
            Some((
                (point[0].as_i64().unwrap(), point[1].as_i64().unwrap()),
                step["visual_representation"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned(),
            ))
        })
        .collect()
}

/// Recorded on v1, executed on v2: the moved "Sign in" is repaired without the model, the
/// restyled report button fails its visual check and the run is handed to the (scripted) model,
/// which finishes it; the repaired trajectory is written and the previous file is kept. The
/// repaired file then replays on v2 with no model at all.
#[test]
fn act_hands_a_failed_replay_to_the_model_and_records_the_repair() {
    retrace_test_support::require!(Chromium);
    let demo = DemoThread::start(DemoConfig::default());
    let runtime = runtime();
    let points = login_points(&runtime, demo.url());
    let report = report_button_point(&runtime, demo.url());
    let click = |(x, y): (i64, i64)| {
        ScriptStep::tool_use(
            "computer",
            json!({"action": "left_click", "coordinate": [x, y]}),
        )
    };
    let look = || ScriptStep::tool_use("computer", json!({"action": "screenshot"}));
    let mut recording_script = login_script(&points);
    recording_script.pop();
    recording_script.extend([
        look(),
        click(report),
        ScriptStep::text("Signed in and generated the report."),
    ]);
    let recorder = runtime.block_on(FakeAnthropic::start(recording_script));
    let dir = tempfile::tempdir().unwrap();
    let cache_dir = dir.path().join("cache");
    let goal = "Log in as {{username}} with password {{password}}, then generate the report";
    let output = act_cached(
        goal,
        demo.url(),
        "record",
        &cache_dir,
        &[],
        &recorder.base_url(),
    );
    let summary = json_summary(&output);
    assert_eq!(output.status.code(), Some(0), "{summary}");
    let file = cache_dir.join("login.json");
    let original: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let original_steps = steps_at_points(&original);
    assert_eq!(
        original_steps
            .iter()
            .map(|(point, _)| *point)
            .collect::<Vec<_>>(),
        [points.username, points.password, points.sign_in, report]
    );

    // On v2 the model only asks for the recording; then it is handed the failed step.
    let v2_url = format!("{}?layout=v2", demo.url());
    let model = runtime.block_on(FakeAnthropic::start(vec![
        ScriptStep::tool_use(
            "execute_cached_executions_tool",
            json!({
                "trajectory_file": "login.json",
                "parameter_values": {"username": USERNAME, "password": PASSWORD},
            }),
        ),
        look(),
        click(report),
        ScriptStep::text("The report button is now called Export report; clicked it."),
    ]));
    let output = act_cached(goal, &v2_url, "auto", &cache_dir, &[], &model.base_url());
    let summary = summary_after_exit(&output, 0);
    assert_eq!(model.requests().len(), 4, "one request per scripted turn");
    let replayed = &summary["replay"];
    assert_eq!(
        replayed["repairs"].as_array().map(Vec::len),
        Some(1),
        "the moved sign-in button: {summary}"
    );
    assert_eq!(replayed["status"], "failed", "{summary}");
    let report_index = original["trajectory"]
        .as_array()
        .unwrap()
        .iter()
        .position(|step| step["input"]["coordinate"] == json!([report.0, report.1]))
        .unwrap();
    let report_step = format!("at step {} (", report_index + 1);
    let failure = replayed["failure"]["message"].as_str().unwrap();
    assert!(
        failure.contains(&report_step) && failure.contains("threshold: 10"),
        "the failure names the report step, its distance and threshold: {failure}"
    );
    // The model was told which step failed and why.
    let handed_over = model.requests()[1].body().to_string();
    assert!(handed_over.contains("could not continue"), "{handed_over}");
    assert!(handed_over.contains(&report_step), "{handed_over}");
    assert!(
        summary["act"]["final_url"]
            .as_str()
            .unwrap()
            .contains("/dashboard")
    );

    // The repaired recording replaced login.json; the old one is kept, marked invalid.
    assert_eq!(
        summary["act"]["recorded"].as_str().map(Path::new),
        Some(file.as_path())
    );
    let previous = Path::new(summary["act"]["previous"].as_str().unwrap());
    assert!(previous.exists() && previous.parent() == Some(cache_dir.as_path()));
    let kept: Value = serde_json::from_str(&std::fs::read_to_string(previous).unwrap()).unwrap();
    assert_eq!(kept["trajectory"], original["trajectory"]);
    assert_eq!(kept["metadata"]["is_valid"], false);
    let repaired_text = std::fs::read_to_string(&file).unwrap();
    assert!(!repaired_text.contains(PASSWORD), "the password leaked");
    let repaired: Value = serde_json::from_str(&repaired_text).unwrap();
    let repaired_steps = steps_at_points(&repaired);
    assert_eq!(repaired_steps.len(), 4, "{repaired_steps:?}");
    let (moved, _) = repaired_steps[2];
    let shift = (moved.0 - points.sign_in.0, moved.1 - points.sign_in.1);
    assert!(
        (shift.0 - 40).abs() <= 3 && (shift.1 - 24).abs() <= 3,
        "sign-in recorded at its v2 place, shifted by {shift:?}"
    );
    let (report_point, report_hash) = &repaired_steps[3];
    assert_eq!(*report_point, report);
    assert!(
        hamming(report_hash, &original_steps[3].1) > 10,
        "the report step now carries the v2 look"
    );

    // The repaired file replays on v2 with no model at all.
    let output = replay_logged_in(&file, &v2_url, &[]);
    let replay = json_summary(&output);
    assert_eq!(output.status.code(), Some(0), "{replay}");
    assert_eq!(replay["status"], "passed", "{replay}");
    assert_eq!(model.requests().len(), 4, "replay must not call the model");
}

/// `--cache execute` with the model verifying: the replay that ran to its end counted one
/// attempt, and the model's verdict on it is written without counting a second.
#[test]
fn a_verified_replay_counts_one_attempt() {
    retrace_test_support::require!(Chromium);
    let demo = DemoThread::start(DemoConfig::default());
    let runtime = runtime();
    let dir = tempfile::tempdir().unwrap();
    let cache_dir = dir.path().join("cache");
    std::fs::create_dir_all(&cache_dir).unwrap();
    let file = cache_dir.join("login.json");
    std::fs::write(&file, retrace_runner::demo::DEMO_RECORDING).unwrap();
    let model = runtime.block_on(FakeAnthropic::start(vec![
        ScriptStep::tool_use(
            "execute_cached_executions_tool",
            json!({
                "trajectory_file": "login.json",
                "parameter_values": {"username": USERNAME, "password": PASSWORD},
            }),
        ),
        ScriptStep::tool_use(
            "verify_cache_execution",
            json!({"trajectory_file": "login.json", "success": true, "notes": "draft row shown"}),
        ),
        ScriptStep::text("Signed in and added the draft invoice."),
    ]));
    let output = act_cached(
        "Sign in as {{username}} with password {{password}}, then add a draft invoice for Acme Corp of 120.00",
        demo.url(),
        "execute",
        &cache_dir,
        &[],
        &model.base_url(),
    );
    let summary = summary_after_exit(&output, 0);
    assert_eq!(summary["replay"]["status"], "passed", "{summary}");
    assert_eq!(model.requests().len(), 3, "{summary}");
    let verdict_reply = model.requests()[2].body()["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .to_string();
    assert!(
        verdict_reply.contains("Recorded a successful replay of login.json (attempt 1)"),
        "{verdict_reply}"
    );
    let recording: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(recording["metadata"]["execution_attempts"], 1);
    assert_eq!(recording["metadata"]["last_verification"]["success"], true);
    assert_eq!(
        recording["metadata"]["failures"].as_array().map(Vec::len),
        Some(0)
    );
}

/// The `step` of every `tool_called` event in a JSON Lines event log, in order.
fn tool_call_steps(events: &Path) -> Vec<u64> {
    std::fs::read_to_string(events)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .filter(|event| event["type"] == "tool_called")
        .filter_map(|event| event["step"].as_u64())
        .collect()
}

/// `act --size 1920x1080`: the model is shown the page scaled to 1280x720 (under Anthropic's
/// 1280x800) and its coordinates are scaled back, so a model that answers in the coordinates
/// it sees clicks the intended controls; the recording holds their hashes (not a blank
/// region's) and elements, and replays at the recorded viewport. Every step has the same
/// number in act's events, the file and replay's events.
#[test]
fn act_on_a_large_viewport_scales_to_the_model_size_and_records_the_intended_controls() {
    retrace_test_support::require!(Chromium);
    let demo = DemoThread::start(DemoConfig::default());
    let runtime = runtime();
    let page_points = login_points_at(&runtime, demo.url(), (1920, 1080));
    let to_model = |(x, y): (i64, i64)| (x * 2 / 3, y * 2 / 3);
    let points = LoginPoints {
        username: to_model(page_points.username),
        password: to_model(page_points.password),
        sign_in: to_model(page_points.sign_in),
    };
    let fake = runtime.block_on(FakeAnthropic::start(login_script(&points)));
    let dir = tempfile::tempdir().unwrap();
    let cache_dir = dir.path().join("cache");
    let act_events = dir.path().join("act.jsonl");
    let output = act_cached(
        "Log in as {{username}} with password {{password}}",
        demo.url(),
        "record",
        &cache_dir,
        &[
            "--size",
            "1920x1080",
            "--events",
            act_events.to_str().unwrap(),
        ],
        &fake.base_url(),
    );
    let summary = summary_after_exit(&output, 0);
    assert!(
        summary["act"]["final_url"]
            .as_str()
            .unwrap()
            .ends_with("/dashboard"),
        "the scaled clicks signed in: {summary}"
    );
    let request = fake.requests()[0].body().to_string();
    assert!(
        request.contains("\"display_width_px\":1280")
            && request.contains("\"display_height_px\":720"),
        "the model is told 1280x720: {}",
        &request[..request.len().min(600)]
    );

    let file = cache_dir.join("login.json");
    let cache: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(cache["metadata"]["display_size"], json!([1280, 720]));
    assert_eq!(cache["metadata"]["viewport"], json!([1920, 1080]));
    let steps = cache["trajectory"].as_array().unwrap();
    let names: Vec<&str> = steps
        .iter()
        .filter(|step| step["input"].get("coordinate").is_some())
        .filter_map(|step| step["element"]["name"].as_str())
        .collect();
    assert_eq!(
        names,
        ["Username", "Password", "Sign in"],
        "the intended controls"
    );
    for step in steps
        .iter()
        .filter(|s| s["input"].get("coordinate").is_some())
    {
        let hash = step["visual_representation"].as_str().unwrap();
        assert!(
            !["8000000000000000", "0000000000000000"].contains(&hash),
            "a blank region was recorded at {step}"
        );
    }
    let checked = retrace(&["cache", "check", file.to_str().unwrap()], None);
    assert_eq!(
        checked.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&checked.stdout)
    );

    let replay_events = dir.path().join("replay.jsonl");
    let output = replay_logged_in(
        &file,
        demo.url(),
        &["--events", replay_events.to_str().unwrap()],
    );
    let replay = summary_after_exit(&output, 0);
    // The three clicked controls, and the focus before each of the two typings.
    assert_eq!(replay["replay"]["checks_passed"]["semantic"], 5, "{replay}");

    // One numbering: the trajectory index, 1-based. act called steps 1..=6 (the screenshot
    // is step 1); replay replays the acting ones under the same numbers.
    assert_eq!(tool_call_steps(&act_events), [1, 2, 3, 4, 5, 6]);
    assert_eq!(tool_call_steps(&replay_events), [2, 3, 4, 5, 6]);
    let shown = retrace(&["cache", "show", file.to_str().unwrap()], None);
    let shown = String::from_utf8_lossy(&shown.stdout);
    assert!(
        shown
            .lines()
            .any(|line| line.trim_start().starts_with("6") && line.contains("left_click")),
        "cache show numbers the sign-in click 6: {shown}"
    );
}
