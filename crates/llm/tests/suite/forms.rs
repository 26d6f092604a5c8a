//! The computer tool forms against the scripted server: the form a model takes, and the one
//! retry with the next form when a model refuses one as unsupported.

use std::sync::Arc;
use std::sync::Mutex;
use std::time::Duration;

use retrace_llm::ApiKey;
use retrace_llm::MessageRequest;
use retrace_llm::ToolSpec;
use retrace_llm::VlmError;
use retrace_llm::VlmProvider;
use retrace_llm::anthropic::AnthropicClient;
use retrace_llm::anthropic::AnthropicConfig;
use retrace_llm::catalog::ComputerToolForm;
use retrace_protocol::Message;
use retrace_test_support::fake_model::FakeAnthropic;
use retrace_test_support::fake_model::ScriptStep;
use serde_json::json;

use super::TEST_KEY;

fn client(base_url: &str, model: &str) -> (AnthropicClient, Arc<Mutex<Vec<String>>>) {
    let notices: Arc<Mutex<Vec<String>>> = Arc::default();
    let sink = Arc::clone(&notices);
    let client = AnthropicClient::new(
        AnthropicConfig::new(ApiKey::new(TEST_KEY), model)
            .with_base_url(base_url)
            .with_timeout(Duration::from_secs(10)),
    )
    .unwrap()
    .with_notices(Arc::new(move |text: &str| {
        sink.lock().unwrap().push(text.to_owned());
    }));
    (client, notices)
}

fn computer_request() -> MessageRequest {
    MessageRequest::new(vec![Message::user_text("Sign in")], 256)
        .with_tools(vec![ToolSpec::computer(1280, 800)])
}

fn unsupported(model: &str, form: &str) -> ScriptStep {
    ScriptStep::api_error(
        400,
        "invalid_request_error",
        &format!("'{model}' does not support tool types: {form}"),
    )
}

/// An unknown model gets the newest form; refused, the next form is tried once, taken, kept
/// for later requests, and a notice names both forms.
#[tokio::test]
async fn a_refused_form_is_retried_once_with_the_next_and_said() {
    let model = "claude-unknown-9";
    let fake = FakeAnthropic::start(vec![
        unsupported(model, "computer_toolset_20260801"),
        ScriptStep::text("taken"),
        ScriptStep::text("again"),
    ])
    .await;
    let (client, notices) = client(&fake.base_url(), model);
    assert_eq!(
        client
            .create_message(&computer_request())
            .await
            .unwrap()
            .text(),
        "taken"
    );
    assert_eq!(
        client
            .create_message(&computer_request())
            .await
            .unwrap()
            .text(),
        "again"
    );

    let requests = fake.requests();
    assert_eq!(requests.len(), 3);
    assert_eq!(
        requests[0].body()["tools"][0],
        json!({"type": "computer_toolset_20260801", "cache_control": {"type": "ephemeral"}})
    );
    assert_eq!(requests[0].header("anthropic-beta"), None);
    for later in &requests[1..] {
        assert_eq!(later.body()["tools"][0]["type"], "computer_20251124");
        assert_eq!(
            later.header("anthropic-beta"),
            Some("computer-use-2025-11-24")
        );
    }
    assert_eq!(
        client.shape().computer_tool,
        ComputerToolForm::Computer20251124
    );
    let notices = notices.lock().unwrap();
    assert_eq!(notices.len(), 1, "{notices:?}");
    assert!(notices[0].contains("refused the computer tool form computer_toolset_20260801"));
    assert!(
        notices[0].contains("it took computer_20251124"),
        "{}",
        notices[0]
    );
}

/// Only one retry: a model refusing the next form too gets that error, and the client keeps
/// its first form.
#[tokio::test]
async fn a_second_refusal_is_the_error() {
    let model = "claude-unknown-9";
    let fake = FakeAnthropic::start(vec![
        unsupported(model, "computer_toolset_20260801"),
        unsupported(model, "computer_20251124"),
    ])
    .await;
    let (client, notices) = client(&fake.base_url(), model);
    let error = client
        .create_message(&computer_request())
        .await
        .unwrap_err();
    assert!(
        matches!(&error, VlmError::BadRequest { message, .. }
        if message.contains("computer_20251124")),
        "{error:?}"
    );
    assert_eq!(fake.requests().len(), 2);
    assert_eq!(
        client.shape().computer_tool,
        ComputerToolForm::Toolset20260801
    );
    assert!(notices.lock().unwrap().is_empty());
}

/// Another 400 is not a reason to change forms.
#[tokio::test]
async fn other_bad_requests_are_not_retried() {
    let fake = FakeAnthropic::start(vec![
        ScriptStep::api_error(400, "invalid_request_error", "max_tokens: too large"),
        ScriptStep::text("unused"),
    ])
    .await;
    let (client, _) = client(&fake.base_url(), "claude-sonnet-5");
    assert!(client.create_message(&computer_request()).await.is_err());
    assert_eq!(fake.requests().len(), 1);
}

/// What retrace's own wire builds for every model of the catalogue that takes a computer tool
/// (each form, thinking in the model's form with effort, the cache breakpoints, a toolset
/// history with `toolset_name`) passes the official SDK's request types: the beta types for
/// the beta forms, the GA types for the toolset.
#[cfg(feature = "e2e")] // the end-to-end tier: Python and the SDKs
#[test]
fn every_catalogue_shape_passes_the_sdk_request_types() {
    use retrace_llm::Effort;
    use retrace_llm::anthropic::wire::RequestShape;
    use retrace_llm::anthropic::wire::beta_headers;
    use retrace_llm::anthropic::wire::shaped_request_body;
    use retrace_llm::catalog::ModelProvider;
    use retrace_protocol::ContentBlock;
    use retrace_protocol::ToolResultBlock;
    use retrace_protocol::ToolUseBlock;
    use retrace_test_support::sdk_check::SdkApi;
    use retrace_test_support::sdk_check::validate_each;

    let click = ToolUseBlock::new(
        "toolu_1",
        "computer",
        json!({"action": "left_click", "coordinate": [640, 400]}),
    );
    let result = ToolResultBlock::new(
        "toolu_1",
        vec![ContentBlock::png_base64("iVBORw0KGgo=")],
        false,
    );
    let mut request = MessageRequest::new(
        vec![
            Message::user_text("Log in"),
            Message::assistant(vec![
                ContentBlock::text("Clicking."),
                ContentBlock::ToolUse(click),
            ]),
            Message::user(vec![ContentBlock::ToolResult(result)]),
        ],
        4096,
    )
    .with_system("You operate a web page.")
    .with_tools(vec![ToolSpec::computer(1280, 800)])
    .with_temperature(0.0)
    .with_thinking(2048);
    request.effort = Some(Effort::High);
    let mut bodies = Vec::new();
    for model in
        retrace_llm::catalog::catalogue().filter(|model| model.provider == ModelProvider::Anthropic)
    {
        for caching in [true, false] {
            let shape = RequestShape {
                caching,
                ..RequestShape::for_model(model.id)
            };
            let api = if beta_headers(&request, shape).is_empty() {
                SdkApi::AnthropicMessages
            } else {
                SdkApi::AnthropicBetaMessages
            };
            bodies.push((api, shaped_request_body(model.id, &request, shape)));
        }
    }
    let items: Vec<(SdkApi, &serde_json::Value)> = bodies.iter().map(|(a, b)| (*a, b)).collect();
    let Some(verdicts) = validate_each(&items) else {
        return;
    };
    for ((_, body), verdict) in bodies.iter().zip(verdicts) {
        assert_eq!(verdict, Ok(()), "{}", body["model"]);
    }
}
