use pretty_assertions::assert_eq;
use retrace_protocol::Message;
use retrace_protocol::ToolResultBlock;
use retrace_protocol::ToolUseBlock;
use serde_json::json;

use super::*;

fn fixture(name: &str) -> String {
    let path = retrace_test_support::package_dir()
        .join("tests/fixtures/anthropic")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn computer_request() -> MessageRequest {
    let click = ToolUseBlock::new("toolu_01", "computer", json!({"action": "screenshot"}))
        .with_visual_representation("ffffff0800ffffff");
    let result = ToolResultBlock::new(
        "toolu_01",
        vec![ContentBlock::png_base64("iVBORw0KGgo=")],
        false,
    );
    MessageRequest::new(
        vec![
            Message::user_text("Log in as demo"),
            Message::assistant(vec![
                ContentBlock::text("Taking a screenshot."),
                ContentBlock::ToolUse(click),
            ]),
            Message::user(vec![ContentBlock::ToolResult(result)]),
        ],
        1024,
    )
    .with_system("You operate a web page.")
    .with_tools(vec![
        ToolSpec::computer(1280, 800),
        ToolSpec::custom(
            "switch_speaker",
            "Hand the conversation to another speaker.",
            json!({"type": "object", "properties": {"speaker": {"type": "string"}}, "required": ["speaker"]}),
        ),
    ])
    .with_tool_choice(ToolChoice::Auto)
    .with_temperature(0.5)
    .with_thinking(2048)
}

/// `claude-sonnet-4-5` takes `computer_20250124` and manual thinking budgets; the
/// temperature the request asks for is not sent (the current API has no such field).
#[test]
fn request_body_matches_the_fixture_and_drops_cache_fields() {
    let body = request_body("claude-sonnet-4-5", &computer_request());
    let expected: Value = serde_json::from_str(&fixture("request_computer.json")).unwrap();
    assert_eq!(body, expected);
    assert!(!body.to_string().contains("visual_representation"));
}

/// `claude-sonnet-4-6` takes `computer_20251124` with zoom, and adaptive thinking.
#[test]
fn a_20251124_model_gets_zoom_and_adaptive_thinking() {
    let mut request = computer_request();
    request.effort = Some(crate::Effort::High);
    let body = request_body("claude-sonnet-4-6", &request);
    assert_eq!(
        body["tools"][0],
        json!({"type": "computer_20251124", "name": "computer", "display_width_px": 1280,
               "display_height_px": 800, "enable_zoom": true})
    );
    assert_eq!(body["thinking"], json!({"type": "adaptive"}));
    assert_eq!(body["output_config"], json!({"effort": "high"}));
    assert!(body.get("temperature").is_none());
    assert_eq!(
        beta_headers(&request, RequestShape::for_model("claude-sonnet-4-6")),
        vec!["computer-use-2025-11-24"]
    );
}

/// The toolset form: one nameless tools entry, calls named by their action with
/// `toolset_name`, results echoing it, and no beta header.
#[test]
fn a_toolset_model_gets_the_toolset_encoding() {
    let request = computer_request();
    let body = request_body("claude-sonnet-5-5", &request);
    assert_eq!(
        body["tools"][0],
        json!({"type": "computer_toolset_20260801"})
    );
    assert_eq!(
        body["messages"][1]["content"][1],
        json!({"type": "tool_use", "id": "toolu_01", "name": "screenshot",
               "toolset_name": "computer", "input": {}})
    );
    assert_eq!(
        body["messages"][2]["content"][0]["toolset_name"],
        "computer"
    );
    assert!(beta_headers(&request, RequestShape::for_model("claude-sonnet-5-5")).is_empty());
    // The fragments the client reuses give the same bytes as the whole body.
    let cache = FragmentCache::default();
    let shape = RequestShape::for_model("claude-sonnet-5-5");
    let bytes = request_bytes("claude-sonnet-5-5", &request, shape, &cache).unwrap();
    assert_eq!(serde_json::from_slice::<Value>(&bytes).unwrap(), body);
}

#[test]
fn an_answer_in_the_toolset_form_reads_as_computer_calls() {
    let body = json!({
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-5-5",
        "content": [
            {"type": "tool_use", "id": "toolu_1", "name": "left_click", "toolset_name": "computer",
             "input": {"coordinate": [5, 6]}, "caller": {"type": "direct"}},
            {"type": "tool_use", "id": "toolu_2", "name": "zoom", "toolset_name": "computer",
             "input": {"region": [0, 0, 100, 50]}, "caller": {"type": "direct"}}
        ],
        "stop_reason": "tool_use", "stop_sequence": null,
        "usage": {"input_tokens": 1, "output_tokens": 2}
    });
    let response = parse_response(&body.to_string()).unwrap();
    let calls: Vec<_> = response.to_message().tool_uses().cloned().collect();
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[0].name, "computer");
    assert_eq!(
        calls[0].input,
        json!({"action": "left_click", "coordinate": [5, 6]})
    );
    assert_eq!(
        calls[1].input,
        json!({"action": "zoom", "region": [0, 0, 100, 50]})
    );
}

#[test]
fn computer_tool_needs_the_beta_header() {
    let shape = RequestShape::for_model("claude-sonnet-4-5");
    assert_eq!(
        beta_headers(&computer_request(), shape),
        vec!["computer-use-2025-01-24"]
    );
    let plain = MessageRequest::new(vec![Message::user_text("hi")], 10);
    assert!(beta_headers(&plain, shape).is_empty());
    let body = request_body("m", &plain);
    assert_eq!(
        body,
        json!({"model": "m", "max_tokens": 10, "messages": [{"role": "user", "content": "hi"}],
               "cache_control": {"type": "ephemeral"}})
    );
    let uncached = RequestShape {
        caching: false,
        ..RequestShape::for_model("m")
    };
    assert_eq!(
        shaped_request_body("m", &plain, uncached),
        json!({"model": "m", "max_tokens": 10, "messages": [{"role": "user", "content": "hi"}]})
    );
}

/// A request whose newest turn the next one will not reuse keeps the breakpoints on the
/// system prompt and the tools, and puts the conversation's on the last block an earlier
/// request stored instead of its own last block: it reads that prefix and writes nothing.
#[test]
fn a_turn_not_reused_reads_the_stored_prefix_and_writes_nothing() {
    let request = computer_request()
        .with_system("be careful")
        .with_conversation_cache(ConversationCache::Stored(1));
    let body = request_body("claude-sonnet-4-5", &request);
    assert_eq!(body.get("cache_control"), None, "{body}");
    assert_eq!(
        body["system"][0]["cache_control"],
        json!({"type": "ephemeral"})
    );
    let tools = body["tools"].as_array().unwrap();
    assert_eq!(
        tools.last().unwrap()["cache_control"],
        json!({"type": "ephemeral"})
    );
    // The goal, a plain string, becomes one text block carrying the breakpoint.
    assert_eq!(
        body["messages"][0]["content"],
        json!([{"type": "text", "text": "Log in as demo", "cache_control": {"type": "ephemeral"}}])
    );
    let marks = body.to_string().matches("cache_control").count();
    assert_eq!(marks, 3, "system, tools and the stored prefix: {body}");
    // The bytes sent are the same as the body, and the fragment kept for the next request
    // is the plain message.
    let shape = RequestShape::for_model("claude-sonnet-4-5");
    let fragments = FragmentCache::default();
    let sent = request_bytes("claude-sonnet-4-5", &request, shape, &fragments).unwrap();
    assert_eq!(serde_json::from_slice::<Value>(&sent).unwrap(), body);
    let whole = request.with_conversation_cache(ConversationCache::Whole);
    let sent = request_bytes("claude-sonnet-4-5", &whole, shape, &fragments).unwrap();
    assert_eq!(
        serde_json::from_slice::<Value>(&sent).unwrap(),
        request_body("claude-sonnet-4-5", &whole)
    );
    assert_eq!(
        request_body("claude-sonnet-4-5", &whole)["cache_control"],
        json!({"type": "ephemeral"})
    );
}

#[test]
fn tool_choices() {
    let choices = [
        ToolChoice::Auto,
        ToolChoice::Any,
        ToolChoice::Tool("computer".into()),
        ToolChoice::None,
    ];
    let json: Vec<Value> = choices.iter().map(tool_choice_json).collect();
    assert_eq!(
        json,
        vec![
            json!({"type": "auto"}),
            json!({"type": "any"}),
            json!({"type": "tool", "name": "computer"}),
            json!({"type": "none"}),
        ]
    );
}

#[test]
fn parses_a_tool_use_response() {
    let response = parse_response(&fixture("response_tool_use.json")).unwrap();
    assert_eq!(response.id, "msg_01XFDUDYJgAACzvnptvVoYEL");
    assert_eq!(response.model, "claude-sonnet-4-5-20250929");
    assert_eq!(response.stop_reason, StopReason::ToolUse);
    assert_eq!(
        response.usage,
        Usage {
            input_tokens: 2095,
            output_tokens: 503,
            cache_creation_input_tokens: 0,
            cache_read_input_tokens: 1024,
        }
    );
    assert_eq!(
        response.content,
        vec![
            ContentBlock::Thinking {
                thinking: "The username field is at the top.".into(),
                signature: "EqQBCgIYAhIM".into(),
            },
            ContentBlock::text("I'll click the username field."),
            ContentBlock::ToolUse(ToolUseBlock::new(
                "toolu_01A09q90qw90lq917835lq9",
                "computer",
                json!({"action": "left_click", "coordinate": [640, 210]}),
            )),
        ]
    );
}

#[test]
fn parses_a_max_tokens_stop() {
    let response = parse_response(&fixture("response_max_tokens.json")).unwrap();
    assert_eq!(response.stop_reason, StopReason::MaxTokens);
    assert_eq!(response.text(), "The page shows a login form with");
    assert_eq!(response.usage.cache_read_input_tokens, 0);
}

#[test]
fn malformed_bodies_are_bad_responses_quoting_the_body() {
    let cases = [
        ("<html>502 Bad Gateway</html>", "not JSON"),
        (
            r#"{"id": "m", "type": "message", "stop_reason": "end_turn"}"#,
            "`content`",
        ),
        (
            r#"{"id": "m", "content": [{"type": "text"}], "stop_reason": "end_turn"}"#,
            "content[0]: text block: missing field `text`",
        ),
        (r#"{"id": "m", "content": []}"#, "`stop_reason`"),
        (
            r#"{"type": "error", "error": {}}"#,
            "expected `type: message`",
        ),
    ];
    for (body, detail_part) in cases {
        match parse_response(body) {
            Err(VlmError::BadResponse {
                detail,
                body_excerpt,
            }) => {
                assert!(detail.contains(detail_part), "{detail:?} for {body}");
                assert_eq!(body_excerpt, body);
            }
            other => panic!("expected BadResponse for {body}, got {other:?}"),
        }
    }
}

#[test]
fn parses_error_bodies() {
    assert_eq!(
        parse_error(&fixture("error_overloaded.json")),
        (Some("overloaded_error".into()), "Overloaded".into())
    );
    assert_eq!(
        parse_error("upstream connect error"),
        (None, "upstream connect error".into())
    );
}
