//! [`RetryingProvider`], which applies the one retry policy ([`retrace_protocol::retry`]:
//! backoff with full jitter, a server's `retry-after` honoured as given) to model calls.
//! Retried as the official SDKs retry: what `x-should-retry` says, else 408, 409, 429, every 5xx, transport errors and
//! timeouts (see [`VlmError::is_retryable`]). Bounded by
//! `max_attempts` and by `max_total`, the time from the first request after which no new
//! wait starts. Each wait is reported to a [`RetryObserver`] before it begins, so a caller can
//! show "waiting 1.0 s to retry (rate limited)".

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use tokio::time::Instant;

use crate::MessageRequest;
use crate::MessageResponse;
use crate::Pricing;
use crate::VlmError;
use crate::VlmProvider;

pub use retrace_protocol::retry::RetryPolicy;

/// Told about every wait before it starts.
pub trait RetryObserver: Send + Sync {
    /// Attempt number `attempt` (1-based) failed with `error`; the next request goes out
    /// after `delay`.
    fn on_retry(&self, attempt: u32, delay: Duration, error: &VlmError);
}

impl<F> RetryObserver for F
where
    F: Fn(u32, Duration, &VlmError) + Send + Sync,
{
    fn on_retry(&self, attempt: u32, delay: Duration, error: &VlmError) {
        self(attempt, delay, error);
    }
}

/// A provider that retries another by a [`RetryPolicy`]; itself a [`VlmProvider`].
///
/// A non-retryable error comes back as it is; when retries run out the last error comes
/// back wrapped in [`VlmError::RetriesExhausted`] (whose [`VlmError::root`] is that error).
pub struct RetryingProvider<P> {
    inner: P,
    policy: RetryPolicy,
    observer: Option<Arc<dyn RetryObserver>>,
}

impl<P: std::fmt::Debug> std::fmt::Debug for RetryingProvider<P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RetryingProvider")
            .field("inner", &self.inner)
            .field("policy", &self.policy)
            .finish_non_exhaustive()
    }
}

impl<P: VlmProvider> RetryingProvider<P> {
    /// Wraps `inner`.
    pub fn new(inner: P, policy: RetryPolicy) -> Self {
        Self {
            inner,
            policy,
            observer: None,
        }
    }

    /// The same wrapper reporting each wait to `observer`.
    pub fn with_observer(mut self, observer: Arc<dyn RetryObserver>) -> Self {
        self.observer = Some(observer);
        self
    }

    /// The wrapped provider.
    pub fn inner(&self) -> &P {
        &self.inner
    }

    /// The policy in force.
    pub fn policy(&self) -> RetryPolicy {
        self.policy
    }
}

#[async_trait]
impl<P: VlmProvider> VlmProvider for RetryingProvider<P> {
    async fn create_message(&self, request: &MessageRequest) -> Result<MessageResponse, VlmError> {
        let started = Instant::now();
        let mut attempt = 1;
        loop {
            let error = match self.inner.create_message(request).await {
                Ok(response) => return Ok(response),
                Err(error) if !error.is_retryable() => return Err(error),
                Err(error) => error,
            };
            let server_wait = error.retry_hint().and_then(|hint| hint.retry_after);
            let delay = self.policy.delay(attempt, server_wait);
            if self.policy.gives_up(attempt, started.elapsed(), delay) {
                tracing::warn!(attempt, kind = error.kind(), "giving up on the model call");
                return Err(VlmError::RetriesExhausted {
                    attempts: attempt,
                    elapsed: started.elapsed(),
                    last: Box::new(error),
                });
            }
            tracing::info!(
                attempt,
                ?delay,
                kind = error.kind(),
                "retrying the model call"
            );
            if let Some(observer) = &self.observer {
                observer.on_retry(attempt, delay, &error);
            }
            tokio::time::sleep(delay).await;
            attempt += 1;
        }
    }

    fn model_id(&self) -> &str {
        self.inner.model_id()
    }

    fn pricing(&self) -> Option<Pricing> {
        self.inner.pricing()
    }

    fn image_limits(&self) -> crate::catalog::ImageLimits {
        self.inner.image_limits()
    }
}

#[cfg(test)]
#[path = "retry_tests.rs"]
mod tests;
