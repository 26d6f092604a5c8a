//! Recording with parameters: preset values replaced exactly (and never written), names the
//! model identifies checked then replaced, and the previous file kept on a repair.

use std::sync::Mutex;

use async_trait::async_trait;
use pretty_assertions::assert_eq;
use retrace_cache::CacheStore;
use retrace_llm::MessageRequest;
use retrace_llm::MessageResponse;
use retrace_llm::VlmError;
use retrace_llm::VlmProvider;
use retrace_protocol::ContentBlock;
use retrace_protocol::Message;
use retrace_protocol::StopReason;
use retrace_protocol::Usage;
use serde_json::Value;
use serde_json::json;

use super::*;

fn login_history(password: &str) -> Vec<Message> {
    vec![
        Message::user_text("Log in as {{username}} with {{password}}"),
        Message::assistant(vec![tool_use(
            "s",
            "computer",
            json!({"action": "screenshot"}),
        )]),
        Message::user(vec![result("s", Some(SCREEN_A))]),
        Message::assistant(vec![
            tool_use(
                "u",
                "computer",
                json!({"action": "left_click", "coordinate": [130, 571]}),
            ),
            tool_use("t1", "computer", json!({"action": "type", "text": "alice"})),
        ]),
        Message::user(vec![result("u", Some(SCREEN_A)), result("t1", None)]),
        Message::assistant(vec![tool_use(
            "t2",
            "computer",
            json!({"action": "type", "text": password}),
        )]),
        Message::user(vec![result("t2", None)]),
        Message::assistant(vec![tool_use(
            "w",
            "web_executor",
            json!({"command": "INPUT_TEXT", "selector": "#pw", "text": format!("{password}\n"), "note": "alice's demonstration"}),
        )]),
        Message::user(vec![result("w", None)]),
        Message::assistant(vec![
            tool_use("l", "locate", json!({"x": 10, "y": 10, "query": password})),
            tool_use(
                "v",
                tool_names::VERIFY_CACHE_EXECUTION,
                json!({"trajectory_file": "x", "success": true}),
            ),
        ]),
        Message::user(vec![result("l", None), result("v", None)]),
        Message::assistant(vec![ContentBlock::text("Logged in.")]),
    ]
}

#[test]
fn preset_parameters_never_reach_the_file() {
    let password = "hunter2!Xy";
    let dir = tempfile::tempdir().unwrap();
    let store = CacheStore::new(dir.path());
    let settings = RecordSettings {
        parameters: [("username", "alice"), ("password", password)]
            .into_iter()
            .collect(),
        parameter_descriptions: [("username".to_owned(), "The demo user".to_owned())]
            .into_iter()
            .collect(),
        display_size: Some((1024, 768)),
        ..RecordSettings::default()
    };
    let tools = toolbox(&[
        ("computer", true),
        ("web_executor", true),
        ("locate", false),
    ]);
    let file = build_cache_file(
        "Log in as {{username}} with {{password}}",
        &login_history(password),
        &tools,
        Usage::default(),
        &settings,
    )
    .unwrap();
    let path = record(&store, Some("login"), &file).unwrap();
    let bytes = std::fs::read_to_string(&path).unwrap();
    assert!(!bytes.contains(password), "the password was written");
    assert!(
        !bytes.contains("hunter2"),
        "part of the password was written"
    );

    let inputs: Vec<&Value> = file.trajectory.iter().map(|s| &s.input).collect();
    assert_eq!(
        inputs[2],
        &json!({"action": "type", "text": "{{username}}"})
    );
    assert_eq!(
        inputs[3],
        &json!({"action": "type", "text": "{{password}}"})
    );
    // Delimited by a newline: replaced; inside "alice's demonstration": `alice` is delimited
    // by the apostrophe, so it is replaced too, but `demo`-like fragments of words are not.
    assert_eq!(inputs[4]["text"], json!("{{password}}\n"));
    assert_eq!(inputs[4]["note"], json!("{{username}}'s demonstration"));
    // Non-cacheable `locate` is kept with an empty input; the control tool is left out.
    assert_eq!(
        (file.trajectory[5].name.as_str(), inputs[5]),
        ("locate", &json!({}))
    );
    assert_eq!(file.trajectory.len(), 6);
    assert_eq!(
        file.cache_parameters,
        [
            ("password".to_owned(), "Parameter for password".to_owned()),
            ("username".to_owned(), "The demo user".to_owned())
        ]
        .into_iter()
        .collect()
    );
    assert_eq!(
        file.metadata.goal.as_deref(),
        Some("Log in as {{username}} with {{password}}")
    );
    assert_eq!(
        file.metadata.extra.get(fields::DISPLAY_SIZE),
        Some(&json!([1024, 768]))
    );
    let reread = store.read("login").unwrap();
    assert_eq!(reread.to_json()["trajectory"], file.to_json()["trajectory"]);
    assert!(file.trajectory[1].extra.contains_key(fields::AFTER_HASH));
}

#[test]
fn replacement_is_exact_and_keeps_types() {
    let values = vec![
        ("code".to_owned(), "100".to_owned()),
        ("word".to_owned(), "demo".to_owned()),
    ];
    let input = json!({
        "coordinate": [100, 200],
        "text": "100",
        "list": ["demonstration", "a demo.", "demo", "{{demo}} stays", "x100", "100%"],
        "flag": true
    });
    assert_eq!(
        parameterize_value(&input, &values),
        json!({
            "coordinate": [100, 200],
            "text": "{{code}}",
            "list": ["demonstration", "a {{word}}.", "{{word}}", "{{demo}} stays", "x100", "{{code}}%"],
            "flag": true
        })
    );
    // The longer value wins where values overlap.
    let overlapping = vec![
        ("a".to_owned(), "New".to_owned()),
        ("b".to_owned(), "New York".to_owned()),
    ];
    assert_eq!(
        parameterize_value(&json!("to New York, New Jersey"), &overlapping),
        json!("to {{b}}, {{a}} Jersey")
    );
}

#[test]
fn a_history_without_tool_calls_is_not_recorded() {
    let history = vec![
        Message::user_text("goal"),
        Message::assistant(vec![ContentBlock::text("nothing to do")]),
    ];
    let error = build_cache_file(
        "goal",
        &history,
        &Toolbox::new(),
        Usage::default(),
        &RecordSettings::default(),
    )
    .unwrap_err();
    assert!(matches!(error, RecordError::Empty), "{error}");
}

#[test]
fn a_broken_screenshot_names_the_step() {
    let history = vec![
        Message::user_text("goal"),
        Message::assistant(vec![tool_use(
            "s",
            "computer",
            json!({"action": "screenshot"}),
        )]),
        Message::user(vec![ContentBlock::ToolResult(ToolResultBlock::new(
            "s",
            vec![ContentBlock::png_base64("AAAA")],
            false,
        ))]),
        Message::assistant(vec![tool_use(
            "c",
            "computer",
            json!({"action": "left_click", "coordinate": [5, 5]}),
        )]),
    ];
    let error = build_cache_file(
        "goal",
        &history,
        &toolbox(&[("computer", true)]),
        Usage::default(),
        &RecordSettings::default(),
    )
    .unwrap_err();
    let text = error.to_string();
    assert!(
        text.starts_with("step 1 (tool_use c): the screenshot in history message 2"),
        "{text}"
    );
}

#[test]
fn record_without_a_name_generates_one_and_repairs_keep_the_previous_file() {
    let dir = tempfile::tempdir().unwrap();
    let store = CacheStore::new(dir.path());
    let tools = toolbox(&[
        ("computer", true),
        ("web_executor", true),
        ("locate", false),
    ]);
    let file = build_cache_file(
        "goal",
        &login_history("pw"),
        &tools,
        Usage::default(),
        &RecordSettings::default(),
    )
    .unwrap();
    let generated = record(&store, None, &file).unwrap();
    let name = generated.file_name().unwrap().to_str().unwrap().to_owned();
    assert!(
        name.starts_with("cached_trajectory_") && name.ends_with(".json"),
        "{name}"
    );

    let first = record_repaired(&store, "login", &file).unwrap();
    assert_eq!(first.previous, None);
    let mut repaired = file.clone();
    repaired.trajectory.truncate(2);
    let second = record_repaired(&store, "login", &repaired).unwrap();
    let previous = second.previous.unwrap();
    let previous_name = previous.file_name().unwrap().to_str().unwrap();
    assert!(
        previous_name.starts_with("login.previous-") && previous_name.ends_with(".json"),
        "{previous_name}"
    );
    assert_eq!(store.read("login").unwrap().trajectory.len(), 2);
    let kept = store.read(previous_name).unwrap();
    assert_eq!(kept.trajectory.len(), file.trajectory.len());
    assert!(!kept.metadata.is_valid);
    assert_eq!(
        kept.metadata.invalidation_reason.as_deref(),
        Some("replaced by the repaired recording login.json")
    );
    let listed: Vec<String> = store
        .list(false)
        .unwrap()
        .entries
        .into_iter()
        .map(|e| e.name)
        .collect();
    assert_eq!(listed, vec![name, "login.json".to_owned()]);
}

/// A provider that answers every request with one fixed text and counts the requests.
struct OneAnswer {
    text: String,
    requests: Mutex<Vec<MessageRequest>>,
}

#[async_trait]
impl VlmProvider for OneAnswer {
    async fn create_message(&self, request: &MessageRequest) -> Result<MessageResponse, VlmError> {
        self.requests.lock().unwrap().push(request.clone());
        Ok(MessageResponse {
            id: "msg_1".into(),
            content: vec![ContentBlock::text(self.text.clone())],
            stop_reason: StopReason::EndTurn,
            usage: Usage::default(),
            model: "scripted".into(),
        })
    }
    fn model_id(&self) -> &str {
        "scripted"
    }
}

#[tokio::test]
async fn identified_parameters_are_checked_then_replaced() {
    let secret = "Sw0rdf1sh";
    let tools = toolbox(&[
        ("computer", true),
        ("web_executor", true),
        ("locate", false),
    ]);
    let goal = "Log in as alice";
    let mut file = build_cache_file(
        goal,
        &login_history(secret),
        &tools,
        Usage::default(),
        &RecordSettings::default(),
    )
    .unwrap();
    let answer = json!([
        {"name": "username", "value": "alice", "description": "Who logs in"},
        {"name": "password", "value": secret},
        {"name": "1st", "value": "alice"},
        {"name": "absent", "value": "bob"},
        {"name": "fragment", "value": "demon"},
        {"name": "username", "value": secret},
        {"value": "x"}
    ]);
    let provider = OneAnswer {
        text: format!("Here you go:\n```json\n{answer}\n```"),
        requests: Mutex::default(),
    };
    let found = identify_parameters(&provider, goal, &file.trajectory)
        .await
        .unwrap();
    assert_eq!(provider.requests.lock().unwrap().len(), 1);
    let names: Vec<&str> = found.accepted.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["username", "password"]);
    let dropped: Vec<&str> = found
        .dropped
        .iter()
        .map(|(name, _)| name.as_str())
        .collect();
    assert_eq!(
        dropped,
        ["1st", "absent", "fragment", "username", "entry 6"]
    );
    assert!(
        found
            .dropped
            .iter()
            .all(|(_, reason)| !reason.contains(secret))
    );
    assert!(
        !format!("{found:?}").contains(secret),
        "Debug shows a value"
    );

    add_parameters(&mut file, &found.accepted);
    assert_eq!(
        file.metadata.goal.as_deref(),
        Some("Log in as {{username}}")
    );
    assert_eq!(
        file.cache_parameters.get("username").map(String::as_str),
        Some("Who logs in")
    );
    assert_eq!(
        file.cache_parameters.get("password").map(String::as_str),
        Some("Parameter for password")
    );
    let text = file.to_json().to_string();
    assert!(!text.contains(secret));
    assert!(text.contains("demonstration"));
}

#[tokio::test]
async fn an_answer_without_a_list_is_an_error() {
    let provider = OneAnswer {
        text: "I found none.".into(),
        requests: Mutex::default(),
    };
    let error = identify_parameters(&provider, "goal", &[])
        .await
        .unwrap_err();
    assert!(
        error.to_string().contains("no one JSON list")
            && error.to_string().contains("no JSON array"),
        "{error}"
    );
}
