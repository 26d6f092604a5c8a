//! The retry policy through the real HTTP client and real time.

use std::time::Duration;

use retrace_llm::MessageRequest;
use retrace_llm::RetryingProvider;
use retrace_llm::VlmError;
use retrace_llm::VlmProvider;
use retrace_protocol::Message;
use retrace_test_support::fake_model::FakeAnthropic;
use retrace_test_support::fake_model::ScriptStep;

use super::anthropic_client;
use super::quick_policy;
use super::recording_observer;

fn hello() -> MessageRequest {
    MessageRequest::new(vec![Message::user_text("hi")], 16)
}

#[tokio::test]
async fn rate_limit_with_retry_after_1_is_retried_once_after_a_second() {
    let fake =
        FakeAnthropic::start(vec![ScriptStep::rate_limited(1), ScriptStep::text("done")]).await;
    let (observer, waits) = recording_observer();
    let provider = RetryingProvider::new(anthropic_client(&fake.base_url()), quick_policy(5))
        .with_observer(observer);
    let response = provider.create_message(&hello()).await.unwrap();
    assert_eq!(response.text(), "done");

    let requests = fake.requests();
    assert_eq!(requests.len(), 2);
    let gap = requests[1].at.duration_since(requests[0].at);
    assert!(gap >= Duration::from_secs(1), "retried after {gap:?}");
    assert_eq!(
        *waits.lock().unwrap(),
        vec![(1, Duration::from_secs(1), "rate_limited")]
    );
}

#[tokio::test]
async fn overloaded_on_every_attempt_gives_a_clear_error_after_the_configured_attempts() {
    let fake = FakeAnthropic::start((0..10).map(|_| ScriptStep::overloaded()).collect()).await;
    let (observer, waits) = recording_observer();
    let provider = RetryingProvider::new(anthropic_client(&fake.base_url()), quick_policy(3))
        .with_observer(observer);
    let error = provider.create_message(&hello()).await.unwrap_err();

    assert_eq!(fake.requests().len(), 3);
    assert!(
        matches!(&error, VlmError::RetriesExhausted { attempts: 3, last, .. }
            if matches!(&**last, VlmError::Overloaded { message, .. } if message == "Overloaded")),
        "{error:?}"
    );
    let text = error.to_string();
    assert!(text.starts_with("gave up after 3 attempts"), "{text}");
    assert!(text.contains("overloaded (529): Overloaded"), "{text}");
    let attempts: Vec<u32> = waits.lock().unwrap().iter().map(|w| w.0).collect();
    assert_eq!(attempts, vec![1, 2]);
}

#[tokio::test]
async fn server_errors_are_retried_until_success() {
    let fake = FakeAnthropic::start(vec![
        ScriptStep::server_error(500),
        ScriptStep::server_error(503),
        ScriptStep::text("finally"),
    ])
    .await;
    let provider = RetryingProvider::new(anthropic_client(&fake.base_url()), quick_policy(5));
    let response = provider.create_message(&hello()).await.unwrap();
    assert_eq!(response.text(), "finally");
    assert_eq!(fake.requests().len(), 3);
}

/// Every 5xx is retried, as the official SDKs retry (`_base_client.py`, `_should_retry`:
/// `status_code >= 500`); 501 once was not.
#[tokio::test]
async fn http_501_is_retried_as_the_sdks_retry_it() {
    let fake = FakeAnthropic::start(vec![
        ScriptStep::server_error(501),
        ScriptStep::text("after 501"),
    ])
    .await;
    let provider = RetryingProvider::new(anthropic_client(&fake.base_url()), quick_policy(5));
    let response = provider.create_message(&hello()).await.unwrap();
    assert_eq!(response.text(), "after 501");
    assert_eq!(fake.requests().len(), 2);
}
