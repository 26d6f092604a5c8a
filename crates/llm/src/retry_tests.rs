use std::collections::VecDeque;
use std::sync::Mutex;
use std::sync::atomic::AtomicU32;
use std::sync::atomic::Ordering;

use retrace_protocol::StopReason;
use retrace_protocol::Usage;

use super::*;
use crate::error::RetryHint;

/// A provider answering from a list of results, counting calls.
struct Scripted {
    results: Mutex<VecDeque<Result<MessageResponse, VlmError>>>,
    calls: AtomicU32,
}

impl Scripted {
    fn new(results: Vec<Result<MessageResponse, VlmError>>) -> Self {
        Self {
            results: Mutex::new(results.into()),
            calls: AtomicU32::new(0),
        }
    }
}

#[async_trait]
impl VlmProvider for Scripted {
    async fn create_message(&self, _: &MessageRequest) -> Result<MessageResponse, VlmError> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        self.results
            .lock()
            .unwrap()
            .pop_front()
            .unwrap_or(Err(VlmError::Config {
                detail: "script exhausted".into(),
            }))
    }
    fn model_id(&self) -> &str {
        "scripted"
    }
}

fn ok() -> Result<MessageResponse, VlmError> {
    Ok(MessageResponse {
        id: "msg_1".into(),
        content: Vec::new(),
        stop_reason: StopReason::EndTurn,
        usage: Usage::default(),
        model: "scripted".into(),
    })
}

fn server(status: u16) -> Result<MessageResponse, VlmError> {
    Err(VlmError::Server {
        status,
        retry: RetryHint::default(),
        message: "boom".into(),
    })
}

fn request() -> MessageRequest {
    MessageRequest::new(vec![retrace_protocol::Message::user_text("hi")], 10)
}

fn policy(max_attempts: u32) -> RetryPolicy {
    RetryPolicy {
        max_attempts,
        base_delay: Duration::from_millis(100),
        max_delay: Duration::from_secs(1),
        max_total: Duration::from_secs(60),
    }
}

type Waits = Arc<Mutex<Vec<(u32, Duration, String)>>>;

fn recording_observer() -> (Arc<dyn RetryObserver>, Waits) {
    let waits: Waits = Arc::default();
    let sink = Arc::clone(&waits);
    let observer = move |attempt: u32, delay: Duration, error: &VlmError| {
        sink.lock()
            .unwrap()
            .push((attempt, delay, error.kind().to_owned()));
    };
    (Arc::new(observer), waits)
}

#[tokio::test(start_paused = true)]
async fn retries_server_errors_then_succeeds_and_reports_each_wait() {
    let provider = Scripted::new(vec![server(503), server(502), ok()]);
    let (observer, waits) = recording_observer();
    let retrying = RetryingProvider::new(provider, policy(5)).with_observer(observer);
    let response = retrying.create_message(&request()).await.unwrap();
    assert_eq!(response.id, "msg_1");
    assert_eq!(retrying.inner().calls.load(Ordering::SeqCst), 3);
    let waits = waits.lock().unwrap();
    let attempts: Vec<(u32, &str)> = waits.iter().map(|(a, _, k)| (*a, k.as_str())).collect();
    assert_eq!(attempts, vec![(1, "server"), (2, "server")]);
}

/// Auth errors are not retried, nor anything the server says not to retry
/// (`x-should-retry: false`), even a 529.
#[tokio::test(start_paused = true)]
async fn does_not_retry_auth_or_what_the_server_says_not_to() {
    for error in [
        Err(VlmError::Auth {
            status: 401,
            message: "invalid x-api-key".into(),
        }),
        Err(VlmError::Overloaded {
            retry: RetryHint {
                retry_after: None,
                should_retry: Some(false),
            },
            message: "Overloaded".into(),
        }),
    ] {
        let retrying = RetryingProvider::new(Scripted::new(vec![error.clone(), ok()]), policy(5));
        let got = retrying.create_message(&request()).await.unwrap_err();
        assert_eq!(Err(got), error);
        assert_eq!(retrying.inner().calls.load(Ordering::SeqCst), 1);
    }
}

#[tokio::test(start_paused = true)]
async fn gives_up_after_max_attempts_with_the_last_error() {
    let overloaded = || {
        Err(VlmError::Overloaded {
            retry: RetryHint::default(),
            message: "Overloaded".into(),
        })
    };
    let retrying = RetryingProvider::new(
        Scripted::new((0..10).map(|_| overloaded()).collect()),
        policy(3),
    );
    let error = retrying.create_message(&request()).await.unwrap_err();
    assert_eq!(retrying.inner().calls.load(Ordering::SeqCst), 3);
    let VlmError::RetriesExhausted { attempts, last, .. } = &error else {
        panic!("expected RetriesExhausted, got {error:?}");
    };
    assert_eq!(*attempts, 3);
    assert!(matches!(**last, VlmError::Overloaded { .. }));
}

#[tokio::test(start_paused = true)]
async fn a_wait_past_max_total_is_not_started() {
    let limited = Err(VlmError::RateLimited {
        retry: RetryHint {
            retry_after: Some(Duration::from_secs(90)),
            should_retry: None,
        },
        message: "slow down".into(),
    });
    let (observer, waits) = recording_observer();
    let retrying = RetryingProvider::new(Scripted::new(vec![limited, ok()]), policy(5))
        .with_observer(observer);
    let started = Instant::now();
    let error = retrying.create_message(&request()).await.unwrap_err();
    assert!(matches!(
        error,
        VlmError::RetriesExhausted { attempts: 1, .. }
    ));
    assert!(waits.lock().unwrap().is_empty());
    assert!(started.elapsed() < Duration::from_secs(1));
}
