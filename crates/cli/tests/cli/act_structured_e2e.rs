//! `retrace act --mode structured` end to end: the real binary, real headless Chromium, the
//! real demo app, the real Anthropic and OpenAI-compatible clients against scripted fake
//! servers answering in the response schema; then the recorded trajectory replayed by
//! `act --cache execute` with no model request.
#![allow(clippy::unwrap_used, clippy::expect_used)] // test helpers outside #[test] fns

use std::process::Output;

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

/// One scripted answer in the response schema: a decision, reasoning, maybe a command.
fn answer(action: &str, message: &str, command: Option<Value>) -> ScriptStep {
    let mut object = json!({
        "decision": {"action": action, "message": message},
        "reasoning": {
            "analysis": "The page shows what the goal needs next.",
            "rationale": "This step moves towards the goal.",
            "expectedOutcome": "The page changes as intended."
        }
    });
    if let Some(command) = command {
        object["command"] = command;
    }
    // Prose and a code fence around the object, as models write it.
    ScriptStep::text(format!(
        "My decision:\n```json\n{}\n```",
        serde_json::to_string_pretty(&object).unwrap()
    ))
}

fn command(action: &str, parameters: Value) -> Option<Value> {
    Some(json!({"action": action, "parameters": parameters}))
}

/// Log in, with the second answer missing the password field's `text` (corrected by the
/// third), then save the signed-in user's name and type it into the search box by
/// `${reference}`, then finish.
fn login_script() -> Vec<ScriptStep> {
    vec![
        answer(
            "PROCEED",
            "Typing the user name",
            command(
                "INPUT_TEXT",
                json!({"selector": "#username", "text": USERNAME}),
            ),
        ),
        answer(
            "PROCEED",
            "Typing the password",
            command("INPUT_TEXT", json!({"selector": "#password"})),
        ),
        // A model may echo a value it was given: the log must not.
        answer(
            "PROCEED",
            &format!("Typing the password {PASSWORD}"),
            command(
                "INPUT_TEXT",
                json!({"selector": "#password", "text": PASSWORD}),
            ),
        ),
        answer(
            "PROCEED",
            "Signing in",
            command("CLICK_ELEMENT", json!({"selector": "#sign-in"})),
        ),
        answer(
            "PROCEED",
            "Remembering who is signed in",
            command(
                "SAVE_VARIABLE",
                json!({"selector": "#user-name", "variableName": "signed_in_user"}),
            ),
        ),
        answer(
            "PROCEED",
            "Searching for the user's invoices",
            command(
                "INPUT_TEXT",
                json!({"selector": "#search", "text": "${signed_in_user}"}),
            ),
        ),
        answer("PROCEED", "Signed in; the dashboard is open", None),
    ]
}

/// Runs `retrace` with no inherited model settings; with `anthropic`, pointed at that fake.
fn retrace(args: &[&str], anthropic: Option<&str>) -> Output {
    run_retrace(env!("CARGO_BIN_EXE_retrace"), args, anthropic)
}

/// The text of the last message of an Anthropic request.
fn last_message_text(request: &RecordedRequest) -> String {
    let last = request.body()["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap();
    match &last["content"] {
        Value::String(text) => text.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter_map(|block| block["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        other => panic!("unexpected content {other}"),
    }
}

#[test]
fn structured_run_logs_in_corrects_an_invalid_answer_records_and_replays_without_a_model() {
    retrace_test_support::require!(Chromium);
    let demo = DemoThread::start(DemoConfig::default());
    let runtime = runtime();
    let fake = runtime.block_on(FakeAnthropic::start(login_script()));
    let base_url = fake.base_url();
    let dir = tempfile::tempdir().unwrap();
    let cache_dir = dir.path().join("cache");
    let events = dir.path().join("events.jsonl");
    let username = format!("username={USERNAME}");
    let password = format!("password={PASSWORD}");
    let goal = "Log in as {{username}} with password {{password}}";
    let record_args = [
        "act",
        goal,
        "--url",
        demo.url(),
        "--mode",
        "structured",
        "--cache",
        "record",
        "--cache-dir",
        cache_dir.to_str().unwrap(),
        "--cache-file",
        "login.json",
        "--param",
        &username,
        "--param",
        &password,
        "--events",
        events.to_str().unwrap(),
        "--json",
    ];
    let output = retrace(&record_args, Some(&base_url));
    let run = summary_after_exit(&output, 0);
    assert_eq!(run["act"]["outcome"], "done");
    assert_eq!(
        run["act"]["turns"], 6,
        "six decisions, one of them corrected"
    );
    assert!(
        run["act"]["final_url"]
            .as_str()
            .unwrap()
            .ends_with("/dashboard"),
        "{run}"
    );

    // One request per scripted answer: the invalid one cost one extra request.
    let requests = fake.requests();
    assert_eq!(requests.len(), 7);
    let first = &requests[0];
    let system = first.body()["system"].to_string();
    assert!(
        system.contains("response schema") && system.contains("SAVE_VARIABLE"),
        "{system}"
    );
    assert!(
        system.contains("\\\"$id\\\"") && system.contains("\\\"variableName\\\""),
        "the schema travels in the system prompt: {system}"
    );
    let opening = last_message_text(first);
    let goal_line = format!("Goal: Log in as {USERNAME} with password {PASSWORD}");
    for expected in [
        goal_line.as_str(),
        "URL: http://127.0.0.1:",
        "#username",
        "#sign-in",
        "No commands have run yet.",
    ] {
        assert!(opening.contains(expected), "no {expected:?} in {opening}");
    }
    assert_eq!(first.images().len(), 1, "the page's screenshot goes along");

    // The correction request: the invalid answer, then its field-level errors.
    let correction = &requests[2];
    let messages = correction.body()["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 3);
    assert_eq!(messages[1]["role"], "assistant");
    assert!(messages[1].to_string().contains("#password"));
    let errors = last_message_text(correction);
    assert!(
        errors.contains("- command.parameters.text: is required (expected: string)"),
        "{errors}"
    );

    // `${signed_in_user}` was resolved from what SAVE_VARIABLE read: "demo", 4 characters.
    let last = last_message_text(&requests[6]);
    assert!(last.contains("signed_in_user = \"demo\""), "{last}");
    assert!(
        last.contains(&format!(
            "ok: Typed {} characters into `#search`",
            USERNAME.len()
        )),
        "{last}"
    );
    assert!(last.contains("/dashboard"), "{last}");

    // Every decision and the rejection are events; the password is in none of them.
    let log = std::fs::read_to_string(&events).unwrap();
    assert!(
        !log.contains(PASSWORD),
        "the password leaked into the event log"
    );
    let lines: Vec<Value> = log
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let rejected: Vec<&Value> = lines
        .iter()
        .filter(|e| e["type"] == "structured_answer_rejected")
        .collect();
    assert_eq!(rejected.len(), 1);
    assert_eq!(rejected[0]["turn"], 2);
    assert_eq!(
        rejected[0]["errors"],
        json!(["command.parameters.text: is required"])
    );
    let decisions: Vec<(String, Value)> = lines
        .iter()
        .filter(|e| e["type"] == "structured_decision")
        .map(|e| {
            (
                e["decision"].as_str().unwrap().to_owned(),
                e["command"].clone(),
            )
        })
        .collect();
    assert_eq!(
        decisions,
        vec![
            ("PROCEED".to_owned(), json!("INPUT_TEXT")),
            ("PROCEED".to_owned(), json!("INPUT_TEXT")),
            ("PROCEED".to_owned(), json!("CLICK_ELEMENT")),
            ("PROCEED".to_owned(), json!("SAVE_VARIABLE")),
            ("PROCEED".to_owned(), json!("INPUT_TEXT")),
            ("PROCEED".to_owned(), Value::Null),
        ]
    );
    let web_errors = lines
        .iter()
        .filter(|e| e["type"] == "tool_called" && e["is_error"] == true)
        .count();
    assert_eq!(web_errors, 0, "{log}");

    // The trajectory: five web commands, values as placeholders, `${...}` kept for replay.
    let file = cache_dir.join("login.json");
    assert_eq!(run["act"]["recorded"].as_str(), file.to_str());
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(
        !text.contains(PASSWORD),
        "the password leaked into the cache file"
    );
    let cache: Value = serde_json::from_str(&text).unwrap();
    let steps = cache["trajectory"].as_array().unwrap();
    assert!(steps.iter().all(|s| s["name"] == "web_executor"), "{text}");
    let actions: Vec<&str> = steps
        .iter()
        .map(|s| s["input"]["action"].as_str().unwrap())
        .collect();
    assert_eq!(
        actions,
        [
            "INPUT_TEXT",
            "INPUT_TEXT",
            "CLICK_ELEMENT",
            "SAVE_VARIABLE",
            "INPUT_TEXT"
        ]
    );
    let typed: Vec<&str> = steps
        .iter()
        .filter_map(|s| s["input"]["parameters"]["text"].as_str())
        .collect();
    assert_eq!(typed, ["{{username}}", "{{password}}", "${signed_in_user}"]);

    // Replay through `act --cache execute`: the fake hears nothing.
    let replay_fake = runtime.block_on(FakeAnthropic::start(Vec::new()));
    let replay_url = replay_fake.base_url();
    let replay_events = dir.path().join("replay.jsonl");
    let output = retrace(
        &[
            "act",
            goal,
            "--url",
            demo.url(),
            "--mode",
            "structured",
            "--cache",
            "execute",
            "--cache-dir",
            cache_dir.to_str().unwrap(),
            "--cache-file",
            "login.json",
            "--param",
            &username,
            "--param",
            &password,
            "--events",
            replay_events.to_str().unwrap(),
            "--json",
        ],
        Some(&replay_url),
    );
    let replayed = summary_after_exit(&output, 0);
    assert_eq!(
        replay_fake.requests().len(),
        0,
        "replay must not call the model"
    );
    assert_eq!(fake.requests().len(), 7);
    assert_eq!(replayed["act"]["outcome"], "done");
    assert_eq!(replayed["replay"]["steps_replayed"], 5, "{replayed}");
    assert_eq!(replayed["replay"]["status"], "passed", "{replayed}");
    assert!(
        replayed["act"]["recorded"].is_null(),
        "a pure replay records nothing"
    );
    assert!(
        replayed["act"]["final_url"]
            .as_str()
            .unwrap()
            .ends_with("/dashboard"),
        "{replayed}"
    );
    let replay_log = std::fs::read_to_string(&replay_events).unwrap();
    let typed_in_replay: Vec<Value> = replay_log
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .filter(|e| e["type"] == "tool_called")
        .collect();
    assert_eq!(typed_in_replay.len(), 5, "{replay_log}");
    assert!(
        typed_in_replay.iter().all(|e| e["is_error"] == false),
        "{replay_log}"
    );

    // `retrace replay` runs the same web executor commands, with no model configured at all.
    let file = cache_dir.join("login.json");
    let output = retrace(
        &[
            "replay",
            file.to_str().unwrap(),
            "--url",
            demo.url(),
            "--param",
            &username,
            "--param",
            &password,
            "--json",
        ],
        None,
    );
    let replayed = json_summary(&output);
    assert_eq!(output.status.code(), Some(0), "{replayed}");
    assert_eq!(replayed["status"], "passed", "{replayed}");
    assert_eq!(replayed["replay"]["steps_replayed"], 5, "{replayed}");
}

#[test]
fn structured_abort_ends_the_run_with_its_message_and_exit_1() {
    retrace_test_support::require!(Chromium);
    let demo = DemoThread::start(DemoConfig::default());
    let runtime = runtime();
    let message = "The sign-in form cannot be submitted: no password field";
    let fake = runtime.block_on(FakeOpenAi::start(vec![answer("ABORT", message, None)]));
    let base_url = fake.base_url();
    let output = retrace(
        &[
            "act",
            "Log in to the demo app",
            "--url",
            demo.url(),
            "--mode",
            "structured",
            "--provider",
            "openai",
            "--model",
            "qwen2.5-vl-7b",
            "--base-url",
            &base_url,
            "--no-screenshots",
        ],
        None,
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(
        output.status.code(),
        Some(1),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.contains(&format!("FAILED: {message}")), "{stdout}");
    assert!(
        stdout.contains(&format!("turn   1  ABORT: {message}")),
        "{stdout}"
    );

    // One request, with the schema as the structured-output option (not strict: the schema
    // has optional fields), and the page as text only.
    let requests = fake.requests();
    assert_eq!(requests.len(), 1);
    let format = &requests[0].body()["response_format"];
    assert_eq!(format["type"], "json_schema");
    assert_eq!(format["json_schema"]["strict"], false);
    assert_eq!(
        format["json_schema"]["schema"]["properties"]["decision"]["properties"]["action"]["enum"],
        json!(["PROCEED", "RETRY", "ABORT"])
    );
    assert!(requests[0].images().is_empty());
    assert!(requests[0].body().to_string().contains("#sign-in"));
}

#[test]
fn a_replayed_step_that_fails_hands_the_run_to_the_structured_model() {
    retrace_test_support::require!(Chromium);
    let demo = DemoThread::start(DemoConfig::default());
    let runtime = runtime();
    let dir = tempfile::tempdir().unwrap();
    let cache_dir = dir.path().join("cache");
    let goal = "Log in as {{username}} with password {{password}}";
    let username = format!("username={USERNAME}");
    let act = |base_url: &str, cache: &str, password: &str| {
        let password = format!("password={password}");
        retrace(
            &[
                "act",
                goal,
                "--url",
                demo.url(),
                "--mode",
                "structured",
                "--cache",
                cache,
                "--cache-dir",
                cache_dir.to_str().unwrap(),
                "--cache-file",
                "login.json",
                "--param",
                &username,
                "--param",
                &password,
                "--no-screenshots",
                "--json",
            ],
            Some(base_url),
        )
    };
    let input = |selector: &str, text: &str| {
        command("INPUT_TEXT", json!({"selector": selector, "text": text}))
    };
    let recorder = runtime.block_on(FakeAnthropic::start(vec![
        answer("PROCEED", "user", input("#username", USERNAME)),
        answer("PROCEED", "password", input("#password", PASSWORD)),
        answer(
            "PROCEED",
            "sign in",
            command("CLICK_ELEMENT", json!({"selector": "#sign-in"})),
        ),
        answer(
            "PROCEED",
            "who is signed in",
            command(
                "SAVE_VARIABLE",
                json!({"selector": "#user-name", "variableName": "user"}),
            ),
        ),
        answer("PROCEED", "signed in", None),
    ]));
    let output = act(&recorder.base_url(), "record", PASSWORD);
    assert_eq!(output.status.code(), Some(0), "{}", json_summary(&output));
    assert_eq!(recorder.requests().len(), 5);

    // Replayed with a password the app refuses, the signed-in user's name never appears:
    // the cache executor hands the run to the model, which is told why and aborts.
    let message = "The app refused the password; the dashboard never opened";
    let model = runtime.block_on(FakeAnthropic::start(vec![answer("ABORT", message, None)]));
    let output = act(&model.base_url(), "execute", "not-the-password");
    let run = json_summary(&output);
    assert_eq!(output.status.code(), Some(1), "{run}");
    assert_eq!(run["act"]["outcome"], "failed");
    assert_eq!(run["act"]["reason"], message);
    assert_eq!(
        run["act"]["speakers"],
        json!(["cache_executor", "structured"])
    );
    assert_eq!(run["replay"]["steps_replayed"], 4, "{run}");
    assert_eq!(run["replay"]["status"], "failed", "{run}");
    let failure = run["replay"]["failure"]["message"].as_str().unwrap();
    assert_eq!(run["replay"]["failure"]["kind"], "tool_error");
    assert!(
        failure.starts_with("Step 4 (web_executor) failed when replayed: SAVE_VARIABLE"),
        "{failure}"
    );
    let requests = model.requests();
    assert_eq!(requests.len(), 1);
    let asked = last_message_text(&requests[0]);
    assert!(
        asked.contains("Note: The recorded trajectory could not continue: Step 4 (web_executor)"),
        "{asked}"
    );
    assert!(asked.contains("FAILED: SAVE_VARIABLE"), "{asked}");
    assert!(!asked.contains("/dashboard"), "{asked}");
}
