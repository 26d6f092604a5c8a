//! Back-pressure from browser farms: an answer that means "busy, try later" (HTTP 429, 503, a
//! "queue full" message) to discovery, session creation or the websocket upgrade is retried
//! with exponential backoff, bounded by a [`RetryPolicy`]. Every retry is reported to the
//! caller's observer as a [`ConnectEvent`] (so a runner can show it) and logged.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use crate::error::DriveError;

/// How often and how patiently a busy endpoint is retried: the one retry policy. Its default
/// for farms is [`farm_retry_policy`].
pub use retrace_protocol::retry::RetryPolicy;

/// Seven attempts from 1 s up to 30 s between them, 90 s in all: about a minute of patience.
pub fn farm_retry_policy() -> RetryPolicy {
    RetryPolicy {
        max_attempts: 7,
        base_delay: Duration::from_secs(1),
        max_delay: Duration::from_secs(30),
        max_total: Duration::from_secs(90),
    }
}

/// Something that happened while connecting that a runner may want to show.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConnectEvent {
    /// The endpoint was busy; retry number `retry` follows after `delay`.
    Retrying {
        /// The endpoint, without credentials.
        endpoint: String,
        /// What was refused ("discovery", "session creation", "websocket upgrade").
        step: String,
        /// Which retry this is (1-based).
        retry: u32,
        /// How long until it.
        delay: Duration,
        /// The answer that said "busy" ("HTTP 429 Too Many Requests").
        reason: String,
    },
    /// Every one of the endpoint's `limit` session slots in this process is taken; waiting
    /// for one to be freed.
    WaitingForSession {
        /// The endpoint, without credentials.
        endpoint: String,
        /// The `max_sessions` limit.
        limit: usize,
    },
}

/// Receives [`ConnectEvent`]s; called on the connecting task, so it should return quickly.
#[derive(Clone)]
pub struct ConnectObserver(Arc<dyn Fn(&ConnectEvent) + Send + Sync>);

impl ConnectObserver {
    /// Wraps a callback.
    pub fn new(callback: impl Fn(&ConnectEvent) + Send + Sync + 'static) -> Self {
        Self(Arc::new(callback))
    }

    pub(crate) fn notify(&self, event: &ConnectEvent) {
        (self.0)(event);
    }
}

impl fmt::Debug for ConnectObserver {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ConnectObserver")
    }
}

/// How one attempt at a step failed.
#[derive(Debug)]
pub(crate) enum StepError {
    /// The endpoint is busy; worth retrying (after `retry_after` if it said so).
    Busy {
        reason: String,
        retry_after: Option<Duration>,
    },
    /// Anything else: not retried.
    Failed(DriveError),
}

impl From<DriveError> for StepError {
    fn from(error: DriveError) -> Self {
        Self::Failed(error)
    }
}

/// Whether an HTTP answer means "busy, try later": 429, 503, or a body saying the queue is
/// full (Selenium Grid, some farms).
pub(crate) fn is_busy(status: u16, body: &str) -> bool {
    let body = body.to_ascii_lowercase();
    status == 429
        || status == 503
        || (status >= 400 && (body.contains("queue full") || body.contains("queue is full")))
}

/// The wait a busy answer asked for (`retry-after` in seconds or as an HTTP date,
/// `retry-after-ms`).
pub(crate) fn retry_after(headers: &reqwest::header::HeaderMap) -> Option<Duration> {
    retrace_protocol::retry::server_wait(|name| {
        headers.get(name).and_then(|value| value.to_str().ok())
    })
}

/// Runs `attempt` until it succeeds, fails for good, or stays busy through every retry
/// (then [`DriveError::Busy`]).
pub(crate) async fn with_backoff<T, F, Fut>(
    policy: &RetryPolicy,
    observer: Option<&ConnectObserver>,
    endpoint: &str,
    step: &str,
    mut attempt: F,
) -> Result<T, DriveError>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, StepError>>,
{
    let started = tokio::time::Instant::now();
    let mut retry = 0;
    loop {
        match attempt().await {
            Ok(value) => return Ok(value),
            Err(StepError::Failed(error)) => return Err(error),
            Err(StepError::Busy {
                reason,
                retry_after,
            }) => {
                let delay = policy.delay(retry + 1, retry_after);
                if policy.gives_up(retry + 1, started.elapsed(), delay) {
                    return Err(DriveError::Busy {
                        endpoint: endpoint.to_owned(),
                        retries: retry,
                        detail: format!("{step}: {reason}"),
                    });
                }
                retry += 1;
                tracing::info!(endpoint, step, retry, ?delay, %reason, "remote browser busy; retrying");
                if let Some(observer) = observer {
                    observer.notify(&ConnectEvent::Retrying {
                        endpoint: endpoint.to_owned(),
                        step: step.to_owned(),
                        retry,
                        delay,
                        reason,
                    });
                }
                tokio::time::sleep(delay).await;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use pretty_assertions::assert_eq;

    use super::*;

    #[test]
    fn busy_answers_are_429_503_and_full_queues() {
        assert!(is_busy(429, ""));
        assert!(is_busy(503, ""));
        assert!(is_busy(
            500,
            "{\"value\":{\"message\":\"New session queue is full\"}}"
        ));
        assert!(!is_busy(500, "session not created: chrome crashed"));
        assert!(!is_busy(401, "unauthorized"));
        assert!(!is_busy(200, "queue full"));
    }

    #[tokio::test]
    async fn retries_busy_answers_reports_each_and_gives_up_with_busy() {
        let events = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&events);
        let observer = ConnectObserver::new(move |e| sink.lock().unwrap().push(e.clone()));
        let policy = RetryPolicy {
            max_attempts: 3,
            base_delay: Duration::from_millis(1),
            max_delay: Duration::from_millis(5),
            max_total: Duration::from_secs(60),
        };
        let mut calls = 0;
        let answer = with_backoff(&policy, Some(&observer), "ws://farm", "discovery", || {
            calls += 1;
            let busy = calls <= 2;
            async move {
                if busy {
                    Err(StepError::Busy {
                        reason: "HTTP 429".to_owned(),
                        retry_after: None,
                    })
                } else {
                    Ok(calls)
                }
            }
        })
        .await
        .unwrap();
        assert_eq!(answer, 3);
        let retries: Vec<u32> = events
            .lock()
            .unwrap()
            .iter()
            .map(|e| match e {
                ConnectEvent::Retrying { retry, .. } => *retry,
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(retries, [1, 2]);

        let error = with_backoff(&policy, None, "ws://farm", "discovery", || async {
            Err::<(), _>(StepError::Busy {
                reason: "HTTP 503".to_owned(),
                retry_after: None,
            })
        })
        .await
        .unwrap_err();
        assert!(
            matches!(error, DriveError::Busy { retries: 2, .. }),
            "{error:?}"
        );
        assert_eq!(
            error.to_string(),
            "ws://farm stayed busy after 2 retries: discovery: HTTP 503"
        );
        assert!(error.is_retryable());
    }
}
