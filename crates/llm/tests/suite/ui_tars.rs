//! UI-TARS over an OpenAI-compatible server: its text answers become `computer` calls in
//! screenshot pixels, and an answer it cannot read is shown to it once with what is wrong.

use std::time::Duration;

use pretty_assertions::assert_eq;
use retrace_llm::MessageRequest;
use retrace_llm::ToolSpec;
use retrace_llm::VlmProvider;
use retrace_llm::openai::OpenAiClient;
use retrace_llm::openai::OpenAiConfig;
use retrace_protocol::ContentBlock;
use retrace_protocol::Message;
use retrace_test_support::fake_model::FakeOpenAi;
use retrace_test_support::fake_model::ScriptStep;
use retrace_test_support::sdk_check::assert_requests_valid;
use serde_json::json;

const MODEL: &str = "ByteDance-Seed/UI-TARS-1.5-7B";
const CLICK: &str = "Thought: The username field.\nAction: click(start_box='(644,406)')";

fn client(fake: &FakeOpenAi) -> OpenAiClient {
    OpenAiClient::new(
        OpenAiConfig::new(fake.base_url(), MODEL).with_timeout(Duration::from_secs(10)),
    )
    .unwrap()
}

fn request() -> MessageRequest {
    MessageRequest::new(vec![Message::user_text("Log in")], 256)
        .with_tools(vec![ToolSpec::computer(1280, 800)])
}

#[tokio::test]
async fn an_unreadable_answer_is_shown_to_the_model_once() {
    let fake = FakeOpenAi::start(vec![
        ScriptStep::text("I will click the username field."),
        ScriptStep::text(CLICK),
    ])
    .await;
    let answer = client(&fake).create_message(&request()).await.unwrap();
    let calls: Vec<_> = answer
        .content
        .iter()
        .filter_map(|block| match block {
            ContentBlock::ToolUse(call) => Some(call.input.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(
        calls,
        vec![json!({"action": "left_click", "coordinate": [640, 400]})]
    );
    assert_eq!(answer.usage.input_tokens, 200, "both attempts are counted");
    let sent = fake.requests();
    assert_eq!(sent.len(), 2);
    assert_requests_valid(&sent);
    let messages = sent[1].body()["messages"].as_array().unwrap().clone();
    let said = messages.last().unwrap()["content"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        said.starts_with("Your answer could not be read: no `Action:` in the answer"),
        "{said}"
    );
    assert!(
        sent[0].body().get("tools").is_none(),
        "UI-TARS is offered no tool"
    );
}

#[tokio::test]
async fn an_answer_unreadable_twice_is_an_error_quoting_it() {
    let fake = FakeOpenAi::start(vec![
        ScriptStep::text("Action: clik(start_box='(1,2)')"),
        ScriptStep::text("Action: clik(start_box='(1,2)')"),
    ])
    .await;
    let error = client(&fake)
        .create_message(&request())
        .await
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("UI-TARS's answer cannot be read: unknown action `clik`: use one of click,")
            && error.contains("body: Action: clik"),
        "{error}"
    );
    assert_eq!(fake.requests().len(), 2);
}
