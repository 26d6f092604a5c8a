//! The OpenAI-compatible client against the fake OpenAI server.

use std::time::Duration;

use base64::Engine;
use pretty_assertions::assert_eq;
use retrace_llm::ApiKey;
use retrace_llm::MessageRequest;
use retrace_llm::ToolSpec;
use retrace_llm::VlmError;
use retrace_llm::VlmProvider;
use retrace_llm::error::RetryHint;
use retrace_llm::openai::OpenAiClient;
use retrace_llm::openai::OpenAiConfig;
use retrace_protocol::ContentBlock;
use retrace_protocol::Message;
use retrace_protocol::StopReason;
use retrace_protocol::ToolResultBlock;
use retrace_protocol::ToolUseBlock;
use retrace_test_support::fake_model::FakeOpenAi;
use retrace_test_support::fake_model::ScriptStep;
use serde_json::json;

use super::TEST_KEY;
use super::screenshot_png;

fn client(base_url: &str, key: Option<&str>) -> OpenAiClient {
    let mut config =
        OpenAiConfig::new(base_url, "qwen2.5-vl-7b").with_timeout(Duration::from_secs(10));
    if let Some(key) = key {
        config = config.with_api_key(ApiKey::new(key));
    }
    OpenAiClient::new(config).unwrap()
}

fn hello() -> MessageRequest {
    MessageRequest::new(vec![Message::user_text("hi")], 16)
}

#[tokio::test]
async fn screenshots_go_as_data_urls_and_tool_calls_come_back_as_tool_use() {
    let fake = FakeOpenAi::start(vec![
        ScriptStep::text("Typing.")
            .and_tool_use("computer", json!({"action": "type", "text": "demo"})),
    ])
    .await;
    let png = screenshot_png();
    let data = base64::engine::general_purpose::STANDARD.encode(&png);
    let click = ToolUseBlock::new(
        "toolu_1",
        "computer",
        json!({"action": "left_click", "coordinate": [640, 400]}),
    )
    .with_visual_representation("ffffff0800ffffff");
    let history = vec![
        Message::user_text("Log in as demo / demo"),
        Message::assistant(vec![ContentBlock::ToolUse(click)]),
        Message::user(vec![ContentBlock::ToolResult(ToolResultBlock::new(
            "toolu_1",
            vec![ContentBlock::png_base64(data.clone())],
            false,
        ))]),
    ];
    let request = MessageRequest::new(history, 1024)
        .with_system("You operate a web page.")
        .with_tools(vec![ToolSpec::computer(1280, 800)]);
    let response = client(&fake.base_url(), Some(TEST_KEY))
        .create_message(&request)
        .await
        .unwrap();

    assert_eq!(response.stop_reason, StopReason::ToolUse);
    assert_eq!(response.text(), "Typing.");
    let message = response.to_message();
    let call = message.tool_uses().next().unwrap();
    assert_eq!(call.name, "computer");
    assert_eq!(call.input, json!({"action": "type", "text": "demo"}));
    assert_eq!(response.usage.input_tokens, 100);
    assert_eq!(response.usage.output_tokens, 20);

    let requests = fake.requests();
    assert_eq!(requests.len(), 1);
    let sent = &requests[0];
    assert_eq!(sent.path, "/v1/chat/completions");
    assert_eq!(
        sent.header("authorization"),
        Some(format!("Bearer {TEST_KEY}").as_str())
    );
    let messages = sent.body()["messages"].as_array().unwrap();
    let roles: Vec<&str> = messages
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, vec!["system", "user", "assistant", "tool", "user"]);
    assert_eq!(
        messages[2]["tool_calls"][0]["function"]["arguments"],
        json!(r#"{"action":"left_click","coordinate":[640,400]}"#)
    );
    assert_eq!(messages[3]["tool_call_id"], "toolu_1");
    assert_eq!(
        messages[4]["content"][1],
        json!({"type": "image_url", "image_url": {"url": format!("data:image/png;base64,{data}")}})
    );
    assert_eq!(sent.body()["tools"][0]["function"]["name"], "computer");
    assert!(!sent.body().to_string().contains("visual_representation"));
    assert!(!sent.has_field("visual_representation"));
    assert_eq!(sent.images(), vec![data]);
}

#[tokio::test]
async fn no_key_no_authorization_header_and_schema_goes_as_response_format() {
    let fake = FakeOpenAi::start(vec![ScriptStep::text(r#"{"ok": true}"#)]).await;
    let schema = json!({"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"], "additionalProperties": false});
    let request = hello().with_response_schema(schema.clone());
    client(&fake.base_url(), None)
        .create_message(&request)
        .await
        .unwrap();
    let sent = &fake.requests()[0];
    assert_eq!(sent.header("authorization"), None);
    assert_eq!(
        sent.body()["response_format"],
        json!({"type": "json_schema", "json_schema": {"name": "response", "schema": schema, "strict": true}})
    );
}

#[tokio::test]
async fn length_finish_is_max_tokens() {
    let fake = FakeOpenAi::start(vec![ScriptStep::text("cut").stop(StopReason::MaxTokens)]).await;
    let response = client(&fake.base_url(), None)
        .create_message(&hello())
        .await
        .unwrap();
    assert_eq!(response.stop_reason, StopReason::MaxTokens);
}

#[tokio::test]
async fn malformed_tool_arguments_are_a_bad_response() {
    let body = json!({
        "id": "chatcmpl-1", "object": "chat.completion", "model": "qwen2.5-vl-7b",
        "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {"role": "assistant", "content": null,
            "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "computer", "arguments": "{\"action\": "}}]}}]
    })
    .to_string();
    let fake = FakeOpenAi::start(vec![ScriptStep::malformed(body.clone())]).await;
    let error = client(&fake.base_url(), None)
        .create_message(&hello())
        .await
        .unwrap_err();
    let VlmError::BadResponse {
        detail,
        body_excerpt,
    } = &error
    else {
        panic!("expected BadResponse, got {error:?}");
    };
    assert!(detail.contains("`arguments` is not valid JSON"), "{detail}");
    assert_eq!(body_excerpt, &body);
}

#[tokio::test]
async fn rate_limit_and_auth_errors_are_typed() {
    let fake = FakeOpenAi::start(vec![
        ScriptStep::rate_limited(1),
        ScriptStep::api_error(401, "invalid_request_error", "Incorrect API key provided"),
    ])
    .await;
    let client = client(&fake.base_url(), Some(TEST_KEY));
    assert_eq!(
        client.create_message(&hello()).await.unwrap_err(),
        VlmError::RateLimited {
            retry: RetryHint {
                retry_after: Some(Duration::from_secs(1)),
                should_retry: None,
            },
            message: "Number of requests has exceeded your rate limit (request-id req_fake_1)"
                .into()
        }
    );
    assert_eq!(
        client.create_message(&hello()).await.unwrap_err(),
        VlmError::Auth {
            status: 401,
            message: "Incorrect API key provided (request-id req_fake_2)".into()
        }
    );
}

#[tokio::test]
async fn insufficient_quota_is_not_a_rate_limit() {
    let body = json!({"error": {"message": "You exceeded your current quota", "type": "insufficient_quota", "code": "insufficient_quota"}});
    let fake = FakeOpenAi::start(vec![ScriptStep::raw(429, body.to_string())]).await;
    let error = client(&fake.base_url(), None)
        .create_message(&hello())
        .await
        .unwrap_err();
    assert!(
        matches!(error, VlmError::BadRequest { status: 429, .. }),
        "{error:?}"
    );
    assert!(!error.is_retryable());
}
