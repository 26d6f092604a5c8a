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
            if matches!(&**last, VlmError::Overloaded { message, .. }
                if message == "Overloaded (request-id req_fake_3)")),
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

/// A 529 whose `retry-after` is an HTTP date is retried after the wait that date asks for
/// (the SDKs' `_parse_retry_after_header`), not after the policy's short backoff, and the
/// 200 that follows is the answer.
#[tokio::test]
async fn a_529_with_an_http_date_retry_after_waits_for_the_date_then_succeeds() {
    // Five seconds ahead: the first request reaches the server in milliseconds, so the date
    // is still ahead when the answer is read, with seconds to spare on a loaded machine.
    let at = std::time::SystemTime::now() + Duration::from_secs(5);
    let fake = FakeAnthropic::start(vec![
        ScriptStep::overloaded_retry_at(at),
        ScriptStep::text("after the date"),
    ])
    .await;
    let (observer, waits) = recording_observer();
    let provider = RetryingProvider::new(anthropic_client(&fake.base_url()), quick_policy(3))
        .with_observer(observer);
    let response = provider.create_message(&hello()).await.unwrap();
    assert_eq!(response.text(), "after the date");
    assert_eq!(fake.requests().len(), 2);
    let waits = waits.lock().unwrap();
    assert_eq!(waits.len(), 1);
    // The policy's backoff is at most 100 ms; only the header asks for seconds.
    let (attempt, delay, kind) = waits[0];
    assert_eq!((attempt, kind), (1, "overloaded"));
    assert!(delay > Duration::from_secs(1), "{delay:?}");
    assert!(delay <= Duration::from_secs(6), "{delay:?}");
}

/// `x-should-retry: false` wins over a status the SDKs would otherwise retry.
#[tokio::test]
async fn a_5xx_the_server_says_not_to_retry_is_not_retried() {
    let fake = FakeAnthropic::start(vec![
        ScriptStep::server_error_not_retryable(503),
        ScriptStep::text("unused"),
    ])
    .await;
    let provider = RetryingProvider::new(anthropic_client(&fake.base_url()), quick_policy(5));
    let error = provider.create_message(&hello()).await.unwrap_err();
    assert!(
        matches!(&error, VlmError::Server { status: 503, message, .. }
            if message.ends_with("(request-id req_fake_1)")),
        "{error:?}"
    );
    assert_eq!(fake.requests().len(), 1);
}
