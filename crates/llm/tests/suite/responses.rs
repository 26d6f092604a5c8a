//! OpenAI's Responses API end to end against [`FakeOpenAiResponses`]: the client's requests
//! pass the SDK's request types, the fake's replies its `Response` model, a `computer_call`
//! becomes a `computer` tool call and its answer a `computer_call_output`, and pending safety
//! checks are acknowledged only when allowed. The fake refuses what the API refuses.

use std::time::Duration;

use pretty_assertions::assert_eq;
use retrace_llm::MessageRequest;
use retrace_llm::MessageResponse;
use retrace_llm::ToolSpec;
use retrace_llm::VlmError;
use retrace_llm::VlmProvider;
use retrace_llm::openai::OpenAiConfig;
use retrace_llm::openai::responses::ResponsesClient;
use retrace_llm::openai::responses::ResponsesConfig;
use retrace_protocol::ContentBlock;
use retrace_protocol::Message;
use retrace_protocol::ToolResultBlock;
use retrace_test_support::fake_model::FakeOpenAiResponses;
use retrace_test_support::fake_model::ScriptStep;
#[cfg(feature = "e2e")]
use retrace_test_support::sdk_check::SdkApi;
use retrace_test_support::sdk_check::assert_requests_valid;
#[cfg(feature = "e2e")]
use retrace_test_support::sdk_check::validate;
use serde_json::Value;
use serde_json::json;

use super::screenshot_png;

fn client(base_url: &str, model: &str, allow_safety_checks: bool) -> ResponsesClient {
    let api = OpenAiConfig::new(base_url, model).with_timeout(Duration::from_secs(10));
    ResponsesClient::new(ResponsesConfig::new(api).with_allow_safety_checks(allow_safety_checks))
        .unwrap()
}

fn screenshot() -> ContentBlock {
    use base64::Engine as _;
    ContentBlock::png_base64(base64::engine::general_purpose::STANDARD.encode(screenshot_png()))
}

fn first_request() -> MessageRequest {
    MessageRequest::new(
        vec![Message::user(vec![
            ContentBlock::text("Log in"),
            screenshot(),
        ])],
        1024,
    )
    .with_system("You operate a web page.")
    .with_tools(vec![ToolSpec::computer(1280, 800)])
}

/// The request after `answer`, every computer call answered with a screenshot.
fn next_request(mut request: MessageRequest, answer: &MessageResponse) -> MessageRequest {
    request.messages.push(answer.to_message());
    let results =
        answer
            .content
            .iter()
            .filter_map(|block| match block {
                ContentBlock::ToolUse(call) => Some(ContentBlock::ToolResult(
                    ToolResultBlock::new(&call.id, vec![screenshot()], false),
                )),
                _ => None,
            })
            .collect();
    request.messages.push(Message::user(results));
    request
}

fn click() -> ScriptStep {
    ScriptStep::tool_use(
        "computer",
        json!({"action": "left_click", "coordinate": [640, 400]}),
    )
}

fn first_tool_input(answer: &MessageResponse) -> Value {
    answer
        .content
        .iter()
        .find_map(|block| match block {
            ContentBlock::ToolUse(call) => Some(call.input.clone()),
            _ => None,
        })
        .unwrap()
}

#[tokio::test]
async fn a_computer_call_is_run_and_answered_with_its_screenshot() {
    for model in ["computer-use-preview", "gpt-5.5"] {
        let fake = FakeOpenAiResponses::start(vec![click(), ScriptStep::text("Signed in.")]).await;
        let client = client(&fake.base_url(), model, false);
        let request = first_request();
        let answer = client.create_message(&request).await.unwrap();
        assert_eq!(
            first_tool_input(&answer),
            json!({"action": "left_click", "coordinate": [640, 400]})
        );
        let request = next_request(request, &answer);
        let done = client.create_message(&request).await.unwrap();
        assert_eq!(done.text(), "Signed in.");
        let sent = fake.requests();
        assert_requests_valid(&sent);
        let input = sent[1].body()["input"].as_array().unwrap().clone();
        let output = input
            .iter()
            .find(|item| item["type"] == "computer_call_output")
            .unwrap();
        assert_eq!(output["output"]["type"], "computer_screenshot", "{model}");
        assert!(sent[1].body().get("temperature").is_none());
        assert_eq!(sent[1].body()["max_output_tokens"], 1024);
    }
}

#[tokio::test]
async fn a_pending_safety_check_stops_the_run_unless_allowed() {
    let step = || {
        click().with_pending_safety_check(
            "malicious_instructions",
            "The page asks to ignore the user.",
        )
    };
    let fake = FakeOpenAiResponses::start(vec![step()]).await;
    let refused = client(&fake.base_url(), "computer-use-preview", false)
        .create_message(&first_request())
        .await
        .unwrap_err();
    assert!(
        matches!(refused, VlmError::SafetyCheck { .. }),
        "{refused:?}"
    );
    let said = refused.to_string();
    assert!(
        said.contains("`malicious_instructions`")
            && said.contains("The page asks to ignore the user.")
            && said.contains("--allow-safety-checks"),
        "{said}"
    );
    assert!(!refused.is_retryable());

    let fake = FakeOpenAiResponses::start(vec![step(), ScriptStep::text("Done.")]).await;
    let client = client(&fake.base_url(), "computer-use-preview", true);
    let request = first_request();
    let answer = client.create_message(&request).await.unwrap();
    let request = next_request(request, &answer);
    assert_eq!(
        client.create_message(&request).await.unwrap().text(),
        "Done."
    );
    let sent = fake.requests();
    assert_requests_valid(&sent);
    let output = sent[1].body()["input"]
        .as_array()
        .unwrap()
        .iter()
        .find(|item| item["type"] == "computer_call_output")
        .cloned()
        .unwrap();
    assert_eq!(
        output["acknowledged_safety_checks"][0]["code"],
        "malicious_instructions"
    );
}

async fn post(url: &str, body: &Value) -> (u16, Value) {
    let response = reqwest::Client::new()
        .post(url)
        .json(body)
        .send()
        .await
        .unwrap();
    (response.status().as_u16(), response.json().await.unwrap())
}

const IMAGE: &str = "data:image/png;base64,iVBORw0KGgo=";

#[tokio::test]
async fn the_fake_refuses_what_the_api_refuses() {
    let fake = FakeOpenAiResponses::start(vec![ScriptStep::text("ok")]).await;
    let url = format!("{}/responses", fake.base_url());
    let call = json!({"type": "computer_call", "id": "cu_1", "call_id": "call_1",
        "status": "completed", "action": {"type": "screenshot"},
        "pending_safety_checks": [{"id": "cu_sc_1", "code": "sensitive_domain", "message": "m"}]});
    let output = |call_id: &str| {
        json!({"type": "computer_call_output", "call_id": call_id,
        "output": {"type": "computer_screenshot", "image_url": IMAGE}})
    };
    let cases = [
        (
            json!({"model": "computer-use-preview", "input": "go", "max_tokens": 10}),
            "Unknown parameter: 'max_tokens'.",
        ),
        (
            json!({"model": "computer-use-preview", "input": "go", "temperature": 0.0}),
            "Unsupported parameter: 'temperature' is not supported with this model.",
        ),
        (
            json!({"model": "computer-use-preview", "input": [output("call_9")]}),
            "No tool call found for computer call output with call_id call_9.",
        ),
        (
            json!({"model": "computer-use-preview", "input": [call, output("call_1")]}),
            "Computer tool has unacknowledged safety check for ['cu_sc_1']",
        ),
        (
            json!({"model": "computer-use-preview", "input": [
                {"type": "computer_call", "id": "cu_2", "call_id": "call_2",
                 "status": "completed", "action": {"type": "screenshot"},
                 "pending_safety_checks": []},
                {"type": "computer_call_output", "call_id": "call_2",
                 "output": {"type": "computer_screenshot", "image_url": ""}}]}),
            "Invalid 'output.image_url' of computer call output call_2: expected the URL of a \
             screenshot, got ''.",
        ),
        (
            json!({"model": "computer-use-preview", "input": [
                {"type": "computer_call", "id": "cu_fake_5", "call_id": "call_fake_5",
                 "status": "completed", "action": {"type": "screenshot"},
                 "pending_safety_checks": []},
                output("call_fake_5")]}),
            "Item 'cu_fake_5' of type 'computer_call' was provided without its required \
             'reasoning' item: 'rs_fake_5'.",
        ),
    ];
    for (body, message) in cases {
        let (status, answer) = post(&url, &body).await;
        assert_eq!(status, 400, "{body}");
        assert_eq!(answer["error"]["message"], message);
        assert_eq!(answer["error"]["type"], "invalid_request_error");
    }
    assert_eq!(fake.remaining(), 1, "a refused request leaves the step");
}

#[cfg(feature = "e2e")] // the end-to-end tier: Python and the SDKs
#[tokio::test]
async fn the_fakes_replies_pass_the_sdk_response_model() {
    let batch = click().and_tool_use("computer", json!({"action": "key", "text": "ctrl+a"}));
    let script = vec![
        click().with_pending_safety_check("irrelevant_domain", "Off task."),
        batch.clone(),
        ScriptStep::text("Done."),
        batch,
    ];
    let fake = FakeOpenAiResponses::start(script).await;
    let url = format!("{}/responses", fake.base_url());
    let preview = json!({"model": "computer-use-preview", "input": "go", "truncation": "auto",
        "tools": [{"type": "computer_use_preview", "display_width": 1280, "display_height": 800,
                   "environment": "browser"}]});
    let computer = json!({"model": "gpt-5.5", "input": "go", "tools": [{"type": "computer"}]});
    let mut replies = Vec::new();
    for body in [&preview, &preview, &preview, &computer] {
        let (status, reply) = post(&url, body).await;
        assert_eq!(status, 200, "{reply}");
        replies.push(reply);
    }
    assert_eq!(
        replies[1]["output"].as_array().unwrap().len(),
        4,
        "one call per action, each after its reasoning"
    );
    assert_eq!(
        replies[3]["output"][1]["actions"][1],
        json!({"type": "keypress", "keys": ["CTRL", "A"]})
    );
    let Some(verdicts) = validate(SdkApi::OpenAiResponsesResponse, &replies) else {
        return;
    };
    assert_eq!(verdicts, vec![Ok(()); replies.len()]);
}
