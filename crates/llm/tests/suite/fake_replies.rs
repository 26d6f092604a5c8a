//! The fake servers over HTTP: every reply body they build validates strictly against the
//! SDKs' response types (`anthropic.types.Message` / `BetaMessage`, and the toolset's
//! `ComputerToolUseBlock`; `openai.types.chat.ChatCompletion`), they refuse what the real API
//! refuses with its error shape and a request id, and scripted error headers arrive as set.

use std::time::Duration;
use std::time::SystemTime;

use pretty_assertions::assert_eq;
#[cfg(feature = "e2e")]
use retrace_protocol::StopReason;
#[cfg(feature = "e2e")]
use retrace_protocol::Usage;
use retrace_test_support::fake_model::FakeAnthropic;
use retrace_test_support::fake_model::FakeOpenAi;
use retrace_test_support::fake_model::ScriptStep;
#[cfg(feature = "e2e")]
use retrace_test_support::sdk_check::SdkApi;
#[cfg(feature = "e2e")]
use retrace_test_support::sdk_check::validate;
use serde_json::Value;
use serde_json::json;

/// An answer: status, headers (lowercase names), body.
struct Answer {
    status: u16,
    headers: reqwest::header::HeaderMap,
    body: Value,
}

async fn post(url: &str, headers: &[(&str, &str)], body: &Value) -> Answer {
    let mut request = reqwest::Client::new().post(url).json(body);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = request.send().await.unwrap();
    Answer {
        status: response.status().as_u16(),
        headers: response.headers().clone(),
        body: response.json().await.unwrap(),
    }
}

const VERSION: (&str, &str) = ("anthropic-version", "2026-10-21");

#[cfg(feature = "e2e")]
fn cached_usage() -> Usage {
    Usage {
        input_tokens: 50,
        output_tokens: 20,
        cache_creation_input_tokens: 1200,
        cache_read_input_tokens: 3400,
    }
}

/// One of each kind of turn: text, a tool call, two tool calls, each stop reason, usage with
/// cache fields.
#[cfg(feature = "e2e")]
fn every_kind_of_turn() -> Vec<ScriptStep> {
    let click = json!({"action": "left_click", "coordinate": [640, 400]});
    vec![
        ScriptStep::text("Done."),
        ScriptStep::tool_use("computer", click.clone()),
        ScriptStep::text("Two actions.")
            .and_tool_use("computer", click)
            .and_tool_use("computer", json!({"action": "type", "text": "demo"})),
        ScriptStep::text("Paused.").stop(StopReason::PauseTurn),
        ScriptStep::text("I can't help with that.").stop(StopReason::Refusal),
        ScriptStep::text("cut off").stop(StopReason::MaxTokens),
        ScriptStep::text("full").stop(StopReason::Other("model_context_window_exceeded".into())),
        ScriptStep::text("cached").usage(cached_usage()),
        ScriptStep::tool_use("computer", json!({"action": "key", "text": "Return", "repeat": 3}))
            .and_tool_use(
                "computer",
                json!({"action": "scroll", "coordinate": [1, 2], "scroll_direction": "down", "scroll_amount": 5}),
            )
            .and_tool_use("computer", json!({"action": "zoom", "region": [0, 0, 640, 400]}))
            .and_tool_use("computer", json!({"action": "wait", "duration": 120}))
            .and_tool_use("computer", json!({"action": "screenshot"})),
    ]
}

#[cfg(feature = "e2e")] // the end-to-end tier: Python and the SDKs
#[tokio::test]
async fn anthropic_replies_validate_against_the_sdk_response_types_in_both_forms() {
    let steps = every_kind_of_turn();
    let count = steps.len();
    let fake = FakeAnthropic::start(steps.clone()).await;
    for step in steps {
        fake.push(step);
    }
    let url = format!("{}/v1/messages", fake.base_url());
    let legacy = json!({
        "model": "claude-sonnet-4-5", "max_tokens": 1024,
        "tools": [{"type": "computer_20250124", "name": "computer", "display_width_px": 1280, "display_height_px": 800}],
        "messages": [{"role": "user", "content": "go"}],
    });
    let toolset = json!({
        "model": "claude-opus-5-5", "max_tokens": 1024,
        "tools": [{"type": "computer_toolset_20260801"}],
        "messages": [{"role": "user", "content": "go"}],
    });
    let beta = [VERSION, ("anthropic-beta", "computer-use-2025-01-24")];
    let mut legacy_replies = Vec::new();
    let mut toolset_replies = Vec::new();
    for _ in 0..count {
        let answer = post(&url, &beta, &legacy).await;
        assert_eq!(answer.status, 200, "{}", answer.body);
        legacy_replies.push(answer.body);
    }
    for _ in 0..count {
        let answer = post(&url, &[VERSION], &toolset).await;
        assert_eq!(answer.status, 200, "{}", answer.body);
        toolset_replies.push(answer.body);
    }
    // The toolset's shape: named by the action, toolset_name, no input.action, a caller.
    assert_eq!(
        toolset_replies[1]["content"][0],
        json!({"type": "tool_use", "id": toolset_replies[1]["content"][0]["id"], "name": "left_click",
               "toolset_name": "computer", "caller": {"type": "direct"}, "input": {"coordinate": [640, 400]}})
    );
    assert_eq!(toolset_replies[2]["content"].as_array().unwrap().len(), 3);
    assert_eq!(
        toolset_replies[6]["stop_reason"],
        json!("model_context_window_exceeded")
    );
    let Some(beta_verdicts) = validate(SdkApi::AnthropicBetaResponse, &legacy_replies) else {
        return;
    };
    assert_eq!(beta_verdicts, vec![Ok(()); count]);
    let all: Vec<Value> = legacy_replies.into_iter().chain(toolset_replies).collect();
    let verdicts = validate(SdkApi::AnthropicResponse, &all).unwrap();
    assert_eq!(verdicts, vec![Ok(()); 2 * count]);
}

#[cfg(feature = "e2e")] // the end-to-end tier: Python and the SDKs
#[tokio::test]
async fn openai_replies_validate_against_the_sdk_response_type() {
    let steps = every_kind_of_turn();
    let count = steps.len();
    let fake = FakeOpenAi::start(steps).await;
    let url = format!("{}/chat/completions", fake.base_url());
    let body = json!({"model": "gpt-5.2", "max_completion_tokens": 100, "messages": [{"role": "user", "content": "go"}]});
    let mut replies = Vec::new();
    for _ in 0..count {
        let answer = post(&url, &[], &body).await;
        assert_eq!(answer.status, 200, "{}", answer.body);
        replies.push(answer.body);
    }
    let Some(verdicts) = validate(SdkApi::OpenAiChatResponse, &replies) else {
        return;
    };
    assert_eq!(verdicts, vec![Ok(()); count]);
}

#[tokio::test]
async fn a_refused_request_gets_the_apis_400_with_a_request_id_and_leaves_the_step() {
    let fake = FakeAnthropic::start(vec![ScriptStep::text("Done.")]).await;
    let url = format!("{}/v1/messages", fake.base_url());
    let old_form = json!({
        "model": "claude-sonnet-4-6", "max_tokens": 1024,
        "tools": [{"type": "computer_20250124", "name": "computer", "display_width_px": 1280, "display_height_px": 800}],
        "messages": [{"role": "user", "content": "go"}],
    });
    let refused = post(
        &url,
        &[VERSION, ("anthropic-beta", "computer-use-2025-01-24")],
        &old_form,
    )
    .await;
    assert_eq!(refused.status, 400);
    assert_eq!(refused.headers["request-id"], "req_fake_1");
    assert_eq!(
        refused.body,
        json!({"type": "error", "request_id": "req_fake_1", "error": {
            "type": "invalid_request_error",
            "message": "'claude-sonnet-4-6' does not support tool types: computer_20250124",
        }})
    );
    assert_eq!(fake.remaining(), 1, "a refusal does not use up the step");
    let mut new_form = old_form.clone();
    new_form["tools"][0]["type"] = json!("computer_20251124");
    let answer = post(
        &url,
        &[VERSION, ("anthropic-beta", "computer-use-2025-11-24")],
        &new_form,
    )
    .await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    assert_eq!(answer.headers["request-id"], "req_fake_2");
    assert_eq!(fake.requests().len(), 2);
    assert_eq!(
        fake.requests()[1].header("anthropic-version"),
        Some("2026-10-21")
    );
    // Both bodies are well-formed beta requests: the refusal is the model's, not the SDK's.
    retrace_test_support::sdk_check::assert_requests_valid(&fake.requests());
}

#[tokio::test]
async fn scripted_errors_carry_an_http_date_retry_after_and_x_should_retry() {
    let at = SystemTime::UNIX_EPOCH + Duration::from_secs(1_800_000_000);
    let fake = FakeAnthropic::start(vec![
        ScriptStep::overloaded_retry_at(at),
        ScriptStep::server_error_not_retryable(503),
        ScriptStep::rate_limited(7),
    ])
    .await;
    let url = format!("{}/v1/messages", fake.base_url());
    let body = json!({"model": "claude-test", "max_tokens": 10, "messages": []});
    let overloaded = post(&url, &[VERSION], &body).await;
    assert_eq!(overloaded.status, 529);
    assert_eq!(
        overloaded.headers["retry-after"],
        "Fri, 15 Jan 2027 08:00:00 GMT"
    );
    assert_eq!(overloaded.body["error"]["type"], "overloaded_error");
    assert_eq!(overloaded.body["request_id"], "req_fake_1");
    let not_retryable = post(&url, &[VERSION], &body).await;
    assert_eq!(not_retryable.status, 503);
    assert_eq!(not_retryable.headers["x-should-retry"], "false");
    assert_eq!(not_retryable.headers["request-id"], "req_fake_2");
    let limited = post(&url, &[VERSION], &body).await;
    assert_eq!(limited.headers["retry-after"], "7");
    assert!(!limited.headers.contains_key("x-should-retry"));
}

#[tokio::test]
async fn a_gpt_5_model_given_max_tokens_gets_openais_400() {
    let fake = FakeOpenAi::start(vec![ScriptStep::text("Done.")]).await;
    let url = format!("{}/chat/completions", fake.base_url());
    let body = json!({"model": "gpt-5", "max_tokens": 100, "messages": [{"role": "user", "content": "go"}]});
    let refused = post(&url, &[], &body).await;
    assert_eq!(refused.status, 400);
    assert_eq!(
        refused.body,
        json!({"error": {
            "message": "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
            "type": "invalid_request_error", "param": "max_tokens", "code": "unsupported_parameter",
        }})
    );
    assert!(refused.headers.contains_key("x-request-id"));
    let open_model =
        json!({"model": "Qwen/Qwen2.5-VL-7B-Instruct", "max_tokens": 100, "messages": []});
    assert_eq!(post(&url, &[], &open_model).await.status, 200);
}
