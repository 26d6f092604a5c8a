//! The API key never shows in a Debug or Display of a config, a client or an error.

use retrace_llm::ApiKey;
use retrace_llm::MessageRequest;
use retrace_llm::RetryingProvider;
use retrace_llm::VlmProvider;
use retrace_llm::anthropic::AnthropicConfig;
use retrace_llm::openai::OpenAiClient;
use retrace_llm::openai::OpenAiConfig;
use retrace_protocol::Message;
use retrace_test_support::fake_model::FakeAnthropic;
use retrace_test_support::fake_model::FakeOpenAi;
use retrace_test_support::fake_model::ScriptStep;

use super::TEST_KEY;
use super::anthropic_client;
use super::quick_policy;

fn assert_hidden(what: &str, text: &str) {
    assert!(!text.contains(TEST_KEY), "{what} shows the key: {text}");
}

/// Failures whose bodies echo the key back, as a careless proxy might.
fn echoing_script() -> Vec<ScriptStep> {
    vec![
        ScriptStep::api_error(
            401,
            "authentication_error",
            &format!("invalid x-api-key {TEST_KEY}"),
        ),
        ScriptStep::malformed(format!("<html>key={TEST_KEY}</html>")),
        ScriptStep::overloaded(),
        ScriptStep::overloaded(),
    ]
}

#[tokio::test]
async fn the_anthropic_key_never_shows() {
    let config = AnthropicConfig::new(ApiKey::new(TEST_KEY), "claude-test");
    assert_hidden("config Debug", &format!("{config:?}"));
    let fake = FakeAnthropic::start(echoing_script()).await;
    let client = anthropic_client(&fake.base_url());
    assert_hidden("client Debug", &format!("{client:?}"));
    let provider = RetryingProvider::new(client, quick_policy(2));
    assert_hidden("retrying provider Debug", &format!("{provider:?}"));
    let request = MessageRequest::new(vec![Message::user_text("hi")], 16);
    for round in 0..3 {
        let error = provider.create_message(&request).await.unwrap_err();
        assert_hidden("error Display", &error.to_string());
        assert_hidden("error Debug", &format!("{error:?}"));
        if round < 2 {
            // The echoed key was replaced, not the whole message dropped.
            assert!(error.to_string().contains("***"), "{error}");
        }
    }
    assert_eq!(fake.requests().len(), 4);
}

#[tokio::test]
async fn the_openai_key_never_shows() {
    let fake = FakeOpenAi::start(echoing_script()).await;
    let client = OpenAiClient::new(
        OpenAiConfig::new(fake.base_url(), "m").with_api_key(ApiKey::new(TEST_KEY)),
    )
    .unwrap();
    assert_hidden("client Debug", &format!("{client:?}"));
    let request = MessageRequest::new(vec![Message::user_text("hi")], 16);
    for _ in 0..3 {
        let error = client.create_message(&request).await.unwrap_err();
        assert_hidden("error Display", &error.to_string());
        assert_hidden("error Debug", &format!("{error:?}"));
    }
}
