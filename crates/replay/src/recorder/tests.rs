use std::sync::Arc;
use std::sync::Mutex;

use async_trait::async_trait;
use base64::Engine;
use pretty_assertions::assert_eq;
use retrace_cache::CacheStore;
use retrace_llm::MessageRequest;
use retrace_llm::MessageResponse;
use retrace_llm::VlmError;
use retrace_llm::VlmProvider;
use retrace_protocol::ContentBlock;
use retrace_protocol::Message;
use retrace_protocol::StopReason;
use retrace_protocol::ToolResultBlock;
use retrace_protocol::ToolUseBlock;
use retrace_protocol::Usage;
use retrace_test_support::askui_examples_dir;
use retrace_test_support::read_json;
use retrace_test_support::vectors_dir;
use serde_json::Value;
use serde_json::json;

use super::*;
use retrace_agent::tool::AgentTool;
use retrace_agent::tool::FatalToolError;
use retrace_agent::tool::ToolReply;

/// A tool that only has a name and a cacheable flag: recording never calls tools.
struct Named {
    name: String,
    cacheable: bool,
}

#[async_trait]
impl AgentTool for Named {
    fn name(&self) -> &str {
        &self.name
    }
    fn description(&self) -> &str {
        "test tool"
    }
    fn input_schema(&self) -> Value {
        json!({"type": "object"})
    }
    fn cacheable(&self) -> bool {
        self.cacheable
    }
    async fn call(&self, _input: Value) -> Result<ToolReply, FatalToolError> {
        Ok(ToolReply::text("ok"))
    }
}

fn toolbox(tools: &[(&str, bool)]) -> Toolbox {
    let mut toolbox = Toolbox::new();
    for (name, cacheable) in tools {
        toolbox.add(Arc::new(Named {
            name: (*name).to_owned(),
            cacheable: *cacheable,
        }));
    }
    toolbox
}

fn screen(relative: &str) -> ContentBlock {
    let bytes = std::fs::read(vectors_dir().join(relative)).unwrap();
    ContentBlock::png_base64(base64::engine::general_purpose::STANDARD.encode(bytes))
}

fn screen_image(relative: &str) -> retrace_vision::Image {
    retrace_vision::decode_png(&std::fs::read(vectors_dir().join(relative)).unwrap()).unwrap()
}

fn result(id: &str, image: Option<&str>) -> ContentBlock {
    let mut blocks = vec![ContentBlock::text("done")];
    blocks.extend(image.map(screen));
    ContentBlock::ToolResult(ToolResultBlock::new(id, blocks, false))
}

fn tool_use(id: &str, name: &str, input: Value) -> ContentBlock {
    ContentBlock::ToolUse(ToolUseBlock::new(id, name, input))
}

fn region_hash_of(relative: &str, point: (i64, i64), method: Method, region_size: u32) -> String {
    let image = screen_image(relative);
    let region = retrace_vision::action_region(point, region_size, image.width(), image.height());
    retrace_vision::region_hash(&image, region, method, 8)
        .unwrap()
        .to_string()
}

/// Replaces `{{name}}` in a sidecar input by its value: what the model typed.
fn as_typed(input: &Value, values: &[(&str, &str)]) -> Value {
    let mut text = input.to_string();
    for (name, value) in values {
        text = text.replace(&format!("{{{{{name}}}}}"), value);
    }
    serde_json::from_str(&text).unwrap()
}

/// Rebuilds the conversation behind an askui example from its sidecar: one assistant message
/// per step, each step's tool_result carrying the screenshot askui hashed for the next step.
fn askui_history(sidecar: &Value, values: &[(&str, &str)]) -> (Vec<Message>, Toolbox) {
    let steps = sidecar["steps"].as_array().unwrap();
    let mut history = vec![Message::user_text(sidecar["goal"].as_str().unwrap())];
    let mut tools = Vec::new();
    for (index, step) in steps.iter().enumerate() {
        let id = step["tool_use_id"].as_str().unwrap();
        let name = step["name"].as_str().unwrap();
        let sent = step.get("input_as_sent_by_model").unwrap_or(&step["input"]);
        history.push(Message::assistant(vec![tool_use(
            id,
            name,
            as_typed(sent, values),
        )]));
        let next_screen = steps
            .get(index + 1)
            .and_then(|next| next["before_image"].as_str());
        history.push(Message::user(vec![result(id, next_screen)]));
        tools.push((name, step.get("input_as_sent_by_model").is_none()));
    }
    (history, toolbox(&tools))
}

fn check_askui_example(stem: &str, values: &[(&str, &str)]) {
    let dir = askui_examples_dir();
    let sidecar = read_json(&dir.join(format!("{stem}.expect.json")));
    let recorded = read_json(&dir.join(format!("{stem}.json")));
    let (history, toolbox) = askui_history(&sidecar, values);
    let method: Method = sidecar["hash"]["method"].as_str().unwrap().parse().unwrap();
    let region_size = u32::try_from(sidecar["hash"]["region_size"].as_u64().unwrap()).unwrap();
    let settings = RecordSettings {
        method,
        region_size,
        parameters: values.iter().copied().collect(),
        ..RecordSettings::default()
    };
    let usage = Usage {
        input_tokens: 85,
        output_tokens: 1045,
        ..Usage::default()
    };
    let file = build_cache_file(
        sidecar["goal"].as_str().unwrap(),
        &history,
        &toolbox,
        usage,
        &settings,
    )
    .unwrap();

    let steps = sidecar["steps"].as_array().unwrap();
    assert_eq!(file.trajectory.len(), steps.len(), "{stem}: step count");
    for (index, (ours, expected)) in file.trajectory.iter().zip(steps).enumerate() {
        let theirs = &recorded["trajectory"][index];
        assert_eq!(
            ours.id,
            theirs["id"].as_str().unwrap(),
            "{stem} step {index}: id"
        );
        assert_eq!(
            ours.name,
            theirs["name"].as_str().unwrap(),
            "{stem} step {index}: name"
        );
        assert_eq!(ours.input, theirs["input"], "{stem} step {index}: input");
        assert_eq!(
            ours.visual_representation.as_deref(),
            theirs["visual_representation"].as_str(),
            "{stem} step {index}: visual_representation"
        );
        // After-action hash: the same region in the screenshot this step's result returned.
        let after = ours
            .extra
            .get(fields::AFTER_HASH)
            .and_then(Value::as_str)
            .map(str::to_owned);
        let next_screen = steps
            .get(index + 1)
            .and_then(|next| next["before_image"].as_str());
        let point = retrace_protocol::tool_input::action_point(&ours.input);
        let expected_after = point
            .zip(next_screen)
            .map(|(point, shot)| region_hash_of(shot, point, method, region_size));
        assert_eq!(after, expected_after, "{stem} step {index}: after hash");
        if let (Some(after), Some(before)) = (&after, expected["visual_representation"].as_str())
            && next_screen == expected["before_image"].as_str()
        {
            assert_eq!(
                after, before,
                "{stem} step {index}: same screen before and after"
            );
        }
    }
    assert_eq!(
        serde_json::to_value(&file.cache_parameters).unwrap(),
        recorded["cache_parameters"],
        "{stem}"
    );
    let validation = file.metadata.visual_validation.as_ref().unwrap();
    assert_eq!(
        (validation.method.as_str(), validation.region_size),
        (method.name(), region_size)
    );
    assert_eq!(
        file.metadata.goal.as_deref(),
        recorded["metadata"]["goal"].as_str()
    );
    assert_eq!(file.metadata.token_usage, Some(usage));
    assert_eq!(file.metadata.version, "0.3");
}

#[test]
fn reproduces_askui_std_search_error_code() {
    check_askui_example("std_search_error_code", &[("error_code", "E0308")]);
}

#[test]
fn reproduces_askui_ownership_open_chapter() {
    check_askui_example("ownership_open_chapter", &[]);
}

#[test]
fn reproduces_askui_platform_support_long() {
    check_askui_example("platform_support_long", &[]);
}

#[test]
fn reproduces_askui_reference_replays() {
    check_askui_example("reference_replays_with_failures", &[("term", "literal")]);
}

const SCREEN_A: &str = "images/screens/rust_book_ownership_1280x800.png";
const SCREEN_B: &str = "images/screens/rust_reference_expressions_1280x800.png";

#[test]
fn steps_of_one_assistant_message_share_the_screenshot_before_it() {
    let history = vec![
        Message::user_text("goal"),
        Message::assistant(vec![tool_use(
            "s",
            "computer",
            json!({"action": "screenshot"}),
        )]),
        Message::user(vec![result("s", Some(SCREEN_A))]),
        Message::assistant(vec![
            tool_use(
                "c1",
                "computer",
                json!({"action": "left_click", "coordinate": [428, 24]}),
            ),
            tool_use(
                "c2",
                "computer",
                json!({"action": "left_click", "coordinate": [139, 351]}),
            ),
        ]),
        Message::user(vec![
            result("c1", Some(SCREEN_B)),
            result("c2", Some(SCREEN_B)),
        ]),
    ];
    let file = build_cache_file(
        "goal",
        &history,
        &toolbox(&[("computer", true)]),
        Usage::default(),
        &RecordSettings::default(),
    )
    .unwrap();
    let hash = |shot, point| Some(region_hash_of(shot, point, Method::Phash, 100));
    assert_eq!(
        file.trajectory[2].visual_representation,
        hash(SCREEN_A, (139, 351))
    );
    assert_ne!(
        hash(SCREEN_A, (139, 351)),
        hash(SCREEN_B, (139, 351)),
        "the test needs screens that differ there"
    );
    assert_eq!(
        file.trajectory[2]
            .extra
            .get(fields::AFTER_HASH)
            .and_then(Value::as_str)
            .map(str::to_owned),
        hash(SCREEN_B, (139, 351))
    );
    assert_eq!(file.trajectory[0].visual_representation, None);
    assert_eq!(
        file.metadata.extra.get(fields::DISPLAY_SIZE),
        Some(&json!([1280, 800]))
    );
    // The expected crop is the hashed region of the screen before the step: it hashes to the
    // recorded hash.
    use base64::Engine as _;
    let crop = file.trajectory[2].extra[fields::EXPECTED_CROP]
        .as_str()
        .unwrap();
    let crop = base64::engine::general_purpose::STANDARD
        .decode(crop)
        .unwrap();
    let crop = retrace_vision::decode_png(&crop).unwrap();
    assert_eq!((crop.width(), crop.height()), (100, 100));
    let whole = retrace_vision::action_region((50, 50), 100, 100, 100);
    assert_eq!(
        Some(
            retrace_vision::region_hash(&crop, whole, Method::Phash, 8)
                .unwrap()
                .to_string()
        ),
        hash(SCREEN_A, (139, 351))
    );
    assert!(
        file.trajectory[0]
            .extra
            .get(fields::EXPECTED_CROP)
            .is_none()
    );
}

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
    assert!(error.to_string().contains("no JSON list"), "{error}");
}
