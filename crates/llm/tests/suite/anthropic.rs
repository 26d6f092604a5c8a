//! The Anthropic client against the fake Anthropic server: what goes out, what comes back.

use std::time::Duration;

use base64::Engine;
use pretty_assertions::assert_eq;
use retrace_llm::MessageRequest;
use retrace_llm::RetryingProvider;
use retrace_llm::ToolSpec;
use retrace_llm::VlmError;
use retrace_llm::VlmProvider;
use retrace_llm::anthropic::AnthropicClient;
use retrace_llm::anthropic::AnthropicConfig;
use retrace_llm::error::RetryHint;
use retrace_protocol::ContentBlock;
use retrace_protocol::Message;
use retrace_protocol::StopReason;
use retrace_protocol::ToolResultBlock;
use retrace_protocol::ToolUseBlock;
use retrace_test_support::fake_model::FakeAnthropic;
use retrace_test_support::fake_model::ScriptStep;
use serde_json::json;

use super::TEST_KEY;
use super::anthropic_client;
use super::quick_policy;
use super::screenshot_png;

/// A history after one replayed click: the tool_use carries a cache-only visual hash and the
/// tool_result carries the screenshot.
fn history_with_screenshot(png: &[u8]) -> Vec<Message> {
    let data = base64::engine::general_purpose::STANDARD.encode(png);
    let click = ToolUseBlock::new(
        "toolu_1",
        "computer",
        json!({"action": "left_click", "coordinate": [640, 400]}),
    )
    .with_visual_representation("ffffff0800ffffff");
    vec![
        Message::user_text("Log in as demo / demo"),
        Message::assistant(vec![ContentBlock::ToolUse(click)]),
        Message::user(vec![ContentBlock::ToolResult(ToolResultBlock::new(
            "toolu_1",
            vec![ContentBlock::png_base64(data)],
            false,
        ))]),
    ]
}

#[tokio::test]
async fn request_carries_screenshots_as_image_blocks_and_never_visual_representation() {
    let fake = FakeAnthropic::start(vec![
        ScriptStep::text("Typing the user name.")
            .and_tool_use("computer", json!({"action": "type", "text": "demo"})),
    ])
    .await;
    let png = screenshot_png();
    let request = MessageRequest::new(history_with_screenshot(&png), 1024)
        .with_system("You operate a web page.")
        .with_tools(vec![ToolSpec::computer(1280, 800)]);
    let response = anthropic_client(&fake.base_url())
        .create_message(&request)
        .await
        .unwrap();

    assert_eq!(response.stop_reason, StopReason::ToolUse);
    assert_eq!(response.model, "claude-test");
    assert_eq!(response.text(), "Typing the user name.");
    let calls: Vec<_> = response
        .to_message()
        .tool_uses()
        .map(|call| (call.name.clone(), call.input.clone()))
        .collect();
    assert_eq!(
        calls,
        vec![(
            "computer".to_owned(),
            json!({"action": "type", "text": "demo"})
        )]
    );
    assert_eq!(response.usage.input_tokens, 100);

    let requests = fake.requests();
    assert_eq!(requests.len(), 1);
    let sent = &requests[0];
    assert_eq!(sent.path, "/v1/messages");
    assert_eq!(sent.header("x-api-key"), Some(TEST_KEY));
    // The version the official SDK sends (`anthropic` 2.14.0, `_constants.py`).
    assert_eq!(sent.header("anthropic-version"), Some("2026-10-21"));
    assert_eq!(
        sent.header("anthropic-beta"),
        Some("computer-use-2025-01-24")
    );
    assert_eq!(sent.body()["model"], "claude-test");
    assert_eq!(sent.body()["system"], "You operate a web page.");
    assert_eq!(
        sent.body()["tools"],
        json!([{"type": "computer_20250124", "name": "computer", "display_width_px": 1280, "display_height_px": 800}])
    );
    let image = &sent.body()["messages"][2]["content"][0]["content"][0];
    assert_eq!(image["type"], "image");
    assert_eq!(image["source"]["media_type"], "image/png");
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(image["source"]["data"].as_str().unwrap())
        .unwrap();
    assert_eq!(decoded, png);
    assert_eq!(
        sent.body()["messages"][1]["content"][0],
        json!({"type": "tool_use", "id": "toolu_1", "name": "computer", "input": {"action": "left_click", "coordinate": [640, 400]}})
    );
    assert!(!sent.body().to_string().contains("visual_representation"));
    assert!(!sent.has_field("visual_representation"));
    assert_eq!(
        sent.images(),
        vec![base64::engine::general_purpose::STANDARD.encode(&png)]
    );
}

#[tokio::test]
async fn no_beta_header_without_the_computer_tool() {
    let fake = FakeAnthropic::start(vec![ScriptStep::text("hello")]).await;
    let request = MessageRequest::new(vec![Message::user_text("hi")], 16);
    anthropic_client(&fake.base_url())
        .create_message(&request)
        .await
        .unwrap();
    assert_eq!(fake.requests()[0].header("anthropic-beta"), None);
}

#[tokio::test]
async fn max_tokens_stop_is_a_typed_stop_reason() {
    let fake = FakeAnthropic::start(vec![
        ScriptStep::text("The page shows").stop(StopReason::MaxTokens),
    ])
    .await;
    let request = MessageRequest::new(vec![Message::user_text("Describe the page")], 4);
    let response = anthropic_client(&fake.base_url())
        .create_message(&request)
        .await
        .unwrap();
    assert_eq!(response.stop_reason, StopReason::MaxTokens);
    assert_eq!(response.text(), "The page shows");
}

#[tokio::test]
async fn malformed_body_is_a_bad_response_quoting_it_and_not_retried() {
    let body = r#"{"id": "msg_1", "type": "message", "content": "oops"#;
    let fake = FakeAnthropic::start(vec![
        ScriptStep::malformed(body),
        ScriptStep::text("never sent"),
    ])
    .await;
    let provider = RetryingProvider::new(anthropic_client(&fake.base_url()), quick_policy(5));
    let request = MessageRequest::new(vec![Message::user_text("hi")], 16);
    let error = provider.create_message(&request).await.unwrap_err();
    let VlmError::BadResponse {
        detail,
        body_excerpt,
    } = &error
    else {
        panic!("expected BadResponse, got {error:?}");
    };
    assert!(detail.contains("not JSON"), "{detail}");
    assert_eq!(body_excerpt, body);
    assert!(error.to_string().contains(body));
    assert_eq!(fake.requests().len(), 1);
}

#[tokio::test]
async fn auth_error_is_not_retried_and_keeps_the_api_message() {
    let fake =
        FakeAnthropic::start(vec![ScriptStep::auth_error(), ScriptStep::text("never")]).await;
    let provider = RetryingProvider::new(anthropic_client(&fake.base_url()), quick_policy(5));
    let request = MessageRequest::new(vec![Message::user_text("hi")], 16);
    let error = provider.create_message(&request).await.unwrap_err();
    assert_eq!(
        error,
        VlmError::Auth {
            status: 401,
            message: "invalid x-api-key (request-id req_fake_1)".into()
        }
    );
    assert_eq!(fake.requests().len(), 1);
}

#[tokio::test]
async fn bad_request_carries_the_api_message() {
    let fake = FakeAnthropic::start(vec![ScriptStep::api_error(
        400,
        "invalid_request_error",
        "messages.0.content: Field required",
    )])
    .await;
    let request = MessageRequest::new(vec![Message::user_text("hi")], 16);
    let error = anthropic_client(&fake.base_url())
        .create_message(&request)
        .await
        .unwrap_err();
    assert_eq!(
        error,
        VlmError::BadRequest {
            status: 400,
            retry: RetryHint::default(),
            message: "messages.0.content: Field required (request-id req_fake_1)".into()
        }
    );
}

#[tokio::test]
async fn a_slow_answer_past_the_timeout_is_a_timeout() {
    let fake = FakeAnthropic::start(vec![
        ScriptStep::text("late").delayed(Duration::from_secs(3)),
        ScriptStep::text("late again").delayed(Duration::from_secs(3)),
    ])
    .await;
    let client = AnthropicClient::new(
        AnthropicConfig::new(retrace_llm::ApiKey::new(TEST_KEY), "claude-test")
            .with_base_url(fake.base_url())
            .with_timeout(Duration::from_millis(300)),
    )
    .unwrap();
    let provider = RetryingProvider::new(client, quick_policy(2));
    let request = MessageRequest::new(vec![Message::user_text("hi")], 16);
    let error = provider.create_message(&request).await.unwrap_err();
    assert!(
        matches!(error, VlmError::RetriesExhausted { attempts: 2, ref last, .. }
            if **last == VlmError::Timeout { after: Duration::from_millis(300) }),
        "{error:?}"
    );
    assert_eq!(fake.requests().len(), 2);
}

#[tokio::test]
async fn connection_refused_is_a_transport_error() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base_url = format!("http://{}", listener.local_addr().unwrap());
    drop(listener);
    let request = MessageRequest::new(vec![Message::user_text("hi")], 16);
    let error = anthropic_client(&base_url)
        .create_message(&request)
        .await
        .unwrap_err();
    assert!(matches!(error, VlmError::Transport { .. }), "{error:?}");
}

#[tokio::test]
async fn an_exhausted_script_answers_500_saying_so() {
    let fake = FakeAnthropic::start(vec![]).await;
    let request = MessageRequest::new(vec![Message::user_text("hi")], 16);
    let error = anthropic_client(&fake.base_url())
        .create_message(&request)
        .await
        .unwrap_err();
    let VlmError::Server {
        status, message, ..
    } = error
    else {
        panic!("expected Server, got {error:?}");
    };
    assert_eq!(status, 500);
    assert!(message.contains("script exhausted"), "{message}");
}

#[test]
fn a_base_url_without_scheme_is_a_config_error() {
    let error = AnthropicClient::new(
        AnthropicConfig::new(retrace_llm::ApiKey::new(TEST_KEY), "claude-test")
            .with_base_url("api.anthropic.com"),
    )
    .unwrap_err();
    assert!(matches!(error, VlmError::Config { .. }));
    assert!(error.to_string().contains("api.anthropic.com"));
}
