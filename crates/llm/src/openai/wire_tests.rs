use pretty_assertions::assert_eq;

use super::*;

fn fixture(name: &str) -> String {
    let path = retrace_test_support::package_dir()
        .join("tests/fixtures/openai")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn tool_round() -> MessageRequest {
    let click = ToolUseBlock::new(
        "toolu_01",
        "computer",
        json!({"action": "left_click", "coordinate": [640, 210]}),
    )
    .with_visual_representation("ffffff0800ffffff");
    let result = ToolResultBlock::new(
        "toolu_01",
        vec![
            ContentBlock::text("clicked"),
            ContentBlock::png_base64("iVBORw0KGgo="),
        ],
        false,
    );
    MessageRequest::new(
        vec![
            Message::user_text("Log in as demo"),
            Message::assistant(vec![
                ContentBlock::Thinking {
                    thinking: "hidden".into(),
                    signature: "sig".into(),
                },
                ContentBlock::text("Clicking the field."),
                ContentBlock::ToolUse(click),
            ]),
            Message::user(vec![
                ContentBlock::ToolResult(result),
                ContentBlock::text("Go on."),
            ]),
        ],
        512,
    )
    .with_system("You operate a web page.")
    .with_tools(vec![ToolSpec::custom(
        "switch_speaker",
        "Hand the conversation to another speaker.",
        json!({"type": "object", "properties": {"speaker": {"type": "string"}}, "required": ["speaker"]}),
    )])
    .with_tool_choice(ToolChoice::Any)
    .with_temperature(0.0)
    .with_response_schema(json!({"type": "object"}))
}

#[test]
fn a_tool_round_maps_to_tool_messages_and_a_user_message_with_the_image() {
    let body = request_body("qwen2.5-vl-7b", &tool_round(), true);
    let expected: Value = serde_json::from_str(&fixture("request_tool_round.json")).unwrap();
    assert_eq!(body, expected);
    assert!(!body.to_string().contains("visual_representation"));
    assert!(!body.to_string().contains("hidden"));
}

#[test]
fn the_computer_tool_becomes_a_function_with_the_action_set() {
    let request = MessageRequest::new(vec![Message::user_text("hi")], 10)
        .with_tools(vec![ToolSpec::computer(1280, 800)]);
    let body = request_body("m", &request, true);
    let function = &body["tools"][0]["function"];
    assert_eq!(body["tools"][0]["type"], "function");
    assert_eq!(function["name"], "computer");
    assert!(
        function["description"]
            .as_str()
            .unwrap()
            .contains("1280x800")
    );
    let actions = &function["parameters"]["properties"]["action"]["enum"];
    assert_eq!(
        actions.as_array().unwrap().len(),
        retrace_protocol::tool_input::COMPUTER_ACTIONS.len()
    );
    assert!(actions.as_array().unwrap().contains(&json!("zoom")));
    assert!(actions.as_array().unwrap().contains(&json!("left_click")));
    assert_eq!(function["parameters"]["required"], json!(["action"]));
}

#[test]
fn an_error_tool_result_without_text_is_marked() {
    let messages = vec![Message::user(vec![ContentBlock::ToolResult(
        ToolResultBlock::new("call_1", vec![], true),
    )])];
    assert_eq!(
        messages_json(None, &messages),
        vec![json!({"role": "tool", "tool_call_id": "call_1", "content": "Error: (no output)"})]
    );
}

#[test]
fn parses_tool_calls_usage_and_empty_arguments() {
    let response = parse_response(&fixture("response_tool_calls.json")).unwrap();
    assert_eq!(response.id, "chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG");
    assert_eq!(response.stop_reason, StopReason::ToolUse);
    assert_eq!(
        response.content,
        vec![
            ContentBlock::text("I'll type the user name."),
            ContentBlock::ToolUse(ToolUseBlock::new(
                "call_abc",
                "computer",
                json!({"action": "type", "text": "demo"})
            )),
            ContentBlock::ToolUse(ToolUseBlock::new("call_def", "computer", json!({}))),
        ]
    );
    assert_eq!(
        response.usage,
        Usage {
            input_tokens: 93,
            output_tokens: 46,
            cache_creation_input_tokens: 0,
            cache_read_input_tokens: 1024,
        }
    );
}

fn with_finish(finish: Value, message: Value) -> String {
    json!({"id": "x", "model": "m", "choices": [{"index": 0, "message": message, "finish_reason": finish}]})
        .to_string()
}

#[test]
fn finish_reasons_map_to_stop_reasons() {
    let text = json!({"role": "assistant", "content": "hi"});
    let call = json!({"role": "assistant", "content": null, "tool_calls": [
        {"id": "c", "type": "function", "function": {"name": "computer", "arguments": "{}"}}]});
    let cases = [
        (json!("stop"), &text, StopReason::EndTurn),
        (json!("length"), &text, StopReason::MaxTokens),
        (json!("tool_calls"), &call, StopReason::ToolUse),
        (json!("stop"), &call, StopReason::ToolUse),
        (json!("content_filter"), &text, StopReason::Refusal),
        (json!(null), &text, StopReason::EndTurn),
        (json!("eos"), &text, StopReason::Other("eos".into())),
    ];
    for (finish, message, expected) in cases {
        let body = with_finish(finish.clone(), message.clone());
        assert_eq!(
            parse_response(&body).unwrap().stop_reason,
            expected,
            "{finish}"
        );
    }
    let refused = with_finish(
        json!("stop"),
        json!({"role": "assistant", "content": null, "refusal": "I can't help with that."}),
    );
    let response = parse_response(&refused).unwrap();
    assert_eq!(response.stop_reason, StopReason::Refusal);
    assert_eq!(response.text(), "I can't help with that.");
}

#[test]
fn malformed_arguments_are_a_bad_response_naming_the_call() {
    let body = with_finish(
        json!("tool_calls"),
        json!({"role": "assistant", "content": null, "tool_calls": [
            {"id": "c", "type": "function", "function": {"name": "computer", "arguments": "{\"action\": \"left_cl"}}]}),
    );
    let Err(VlmError::BadResponse {
        detail,
        body_excerpt,
    }) = parse_response(&body)
    else {
        panic!("expected BadResponse");
    };
    assert!(
        detail.starts_with(
            "`choices[0].message.tool_calls[0]` (`computer`): `arguments` is not valid JSON"
        ),
        "{detail}"
    );
    assert!(detail.ends_with(r#"{"action": "left_cl"#), "{detail}");
    assert_eq!(body_excerpt, body);
}

#[test]
fn missing_choices_is_a_bad_response() {
    for body in [
        r#"{"id": "x", "choices": []}"#,
        "not json",
        r#"{"choices": [{}]}"#,
    ] {
        assert!(
            matches!(parse_response(body), Err(VlmError::BadResponse { .. })),
            "{body}"
        );
    }
}

#[test]
fn parses_error_bodies_of_several_servers() {
    let cases = [
        (
            r#"{"error": {"message": "Incorrect API key provided", "type": "invalid_request_error", "param": null, "code": "invalid_api_key"}}"#,
            (Some("invalid_api_key"), "Incorrect API key provided"),
        ),
        (
            r#"{"error": "model \"llava\" not found, try pulling it first"}"#,
            (None, r#"model "llava" not found, try pulling it first"#),
        ),
        (
            r#"{"object": "error", "message": "max_tokens is too large", "type": "BadRequestError", "param": null, "code": 400}"#,
            (Some("BadRequestError"), "max_tokens is too large"),
        ),
        (r#"{"detail": "Not Found"}"#, (None, "Not Found")),
        ("Bad Gateway", (None, "Bad Gateway")),
    ];
    for (body, (kind, message)) in cases {
        assert_eq!(
            parse_error(body),
            (kind.map(str::to_owned), message.to_owned()),
            "{body}"
        );
    }
}

/// OpenAI's GPT-5 models take `max_completion_tokens` and no `temperature`; a server the
/// catalogue does not know (vLLM, Ollama) keeps `max_tokens` and the temperature asked for.
#[test]
fn gpt5_models_get_max_completion_tokens_and_no_temperature() {
    let request = MessageRequest::new(vec![Message::user_text("hi")], 64).with_temperature(0.0);
    let gpt = request_body("gpt-5.2", &request, true);
    assert_eq!(gpt["max_completion_tokens"], 64);
    assert!(gpt.get("max_tokens").is_none());
    assert!(gpt.get("temperature").is_none());
    let open = request_body("my-local-vlm", &request, true);
    assert_eq!(open["max_tokens"], 64);
    assert!(open.get("max_completion_tokens").is_none());
    assert_eq!(open["temperature"], 0.0);
}
