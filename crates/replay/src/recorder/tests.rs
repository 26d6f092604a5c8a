use std::sync::Arc;

use async_trait::async_trait;
use base64::Engine;
use pretty_assertions::assert_eq;
use retrace_protocol::ContentBlock;
use retrace_protocol::Message;
use retrace_protocol::ToolResultBlock;
use retrace_protocol::ToolUseBlock;
use retrace_protocol::Usage;
use retrace_test_support::askui_examples_dir;
use retrace_test_support::read_json;
use retrace_test_support::vectors_dir;
use retrace_vision::Method;
use serde_json::Value;
use serde_json::json;

use super::*;
use retrace_drive::tool::Tool;
use retrace_drive::tool::ToolError;
use retrace_drive::tool::ToolOutput;

/// A tool that only has a name and a cacheable flag: recording never calls tools.
struct Named {
    name: String,
    cacheable: bool,
}

#[async_trait]
impl Tool for Named {
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
    async fn call(&self, _input: Value) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text("ok"))
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

/// Parameters: presets, identified ones, and values that must never reach a file.
mod parameters;
