//! [`VlmError`]: what can go wrong when asking a model, shaped by what the caller does next.
//!
//! The retry policy decides by variant (never by message text): rate limits, overload,
//! some server errors, transport errors and timeouts are retried; auth, bad requests and bad
//! responses are not. No variant ever holds an API key: bodies are scrubbed and truncated
//! before they are stored.

use std::time::Duration;

/// How many characters of a response body an error quotes.
pub const BODY_EXCERPT_CHARS: usize = 400;

/// An error from a model provider.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum VlmError {
    /// HTTP 429: too many requests. Retried, after the server's `retry-after` when it gave one.
    #[error("rate limited by the model API (429){}: {message}", retry_after_text(retry.retry_after))]
    RateLimited {
        /// What the server said about retrying.
        retry: RetryHint,
        /// The API's message.
        message: String,
    },
    /// HTTP 529 (or an `overloaded_error`): the API is overloaded. Retried.
    #[error("the model API is overloaded (529): {message}")]
    Overloaded {
        /// What the server said about retrying.
        retry: RetryHint,
        /// The API's message.
        message: String,
    },
    /// HTTP 5xx other than 529, 408 (request timeout) or 409 (lock timeout): retried, as the
    /// official SDKs do.
    #[error("the model API failed with HTTP {status}: {message}")]
    Server {
        /// The HTTP status.
        status: u16,
        /// What the server said about retrying.
        retry: RetryHint,
        /// The API's message, or an excerpt of the body.
        message: String,
    },
    /// HTTP 401/403: the key is missing, wrong or lacks permission. Not retried.
    #[error("the model API refused the credentials (HTTP {status}): {message}")]
    Auth {
        /// The HTTP status.
        status: u16,
        /// The API's message.
        message: String,
    },
    /// HTTP 4xx other than 401/403/408/409/429: the request is wrong. Not retried unless
    /// the server says so (`x-should-retry: true`).
    #[error("the model API rejected the request (HTTP {status}): {message}")]
    BadRequest {
        /// The HTTP status.
        status: u16,
        /// What the server said about retrying.
        retry: RetryHint,
        /// The API's message (names the field at fault, usually).
        message: String,
    },
    /// The API answered, but not with what the protocol promises. Not retried.
    #[error(
        "the model API sent a response this client cannot read: {detail}; body: {body_excerpt}"
    )]
    BadResponse {
        /// What was wrong.
        detail: String,
        /// The start of what came back (truncated, scrubbed).
        body_excerpt: String,
    },
    /// The connection failed (refused, reset, DNS, TLS). Retried.
    #[error("cannot reach the model API: {message}")]
    Transport {
        /// What the HTTP client said.
        message: String,
    },
    /// The request took longer than the configured timeout. Retried.
    #[error("the model API did not answer within {}", seconds(*.after))]
    Timeout {
        /// The timeout that expired.
        after: Duration,
    },
    /// The client is configured wrongly (a base URL or a key that cannot be used). Not retried.
    #[error("invalid model client configuration: {detail}")]
    Config {
        /// What is wrong and how to fix it.
        detail: String,
    },
    /// The model's answer waits on a safety check (OpenAI's Responses API
    /// `pending_safety_checks`) that the user did not allow to be acknowledged. Not retried.
    #[error(
        "the model paused on a pending safety check `{code}`: {message} (check {id}); \
         acknowledge such checks only after reviewing the run, with --allow-safety-checks"
    )]
    SafetyCheck {
        /// The check's id.
        id: String,
        /// Its type (`malicious_instructions`, `irrelevant_domain`, `sensitive_domain`).
        code: String,
        /// What it says.
        message: String,
    },
    /// A retryable error persisted through every attempt the retry policy allowed.
    #[error("gave up after {attempts} attempts over {}: {last}", seconds(*.elapsed))]
    RetriesExhausted {
        /// How many requests were made.
        attempts: u32,
        /// Time from the first request to giving up.
        elapsed: Duration,
        /// The error of the last attempt.
        last: Box<VlmError>,
    },
}

impl VlmError {
    /// Whether a later identical request may succeed (the retry policy's question).
    ///
    /// The official SDKs' rule: the server's `x-should-retry` when it sent one, else 408,
    /// 409, 429 and every 5xx, and connection failures and timeouts.
    pub fn is_retryable(&self) -> bool {
        if let Some(directed) = self.retry_hint().and_then(|hint| hint.should_retry) {
            return directed;
        }
        match self {
            VlmError::RateLimited { .. }
            | VlmError::Overloaded { .. }
            | VlmError::Server { .. }
            | VlmError::Transport { .. }
            | VlmError::Timeout { .. } => true,
            VlmError::Auth { .. }
            | VlmError::BadRequest { .. }
            | VlmError::BadResponse { .. }
            | VlmError::Config { .. }
            | VlmError::SafetyCheck { .. }
            | VlmError::RetriesExhausted { .. } => false,
        }
    }

    /// What the server said about retrying, for errors that came with a status.
    pub fn retry_hint(&self) -> Option<&RetryHint> {
        match self {
            VlmError::RateLimited { retry, .. }
            | VlmError::Overloaded { retry, .. }
            | VlmError::Server { retry, .. }
            | VlmError::BadRequest { retry, .. } => Some(retry),
            _ => None,
        }
    }

    /// The error behind any [`VlmError::RetriesExhausted`] wrapping (itself otherwise).
    pub fn root(&self) -> &VlmError {
        match self {
            VlmError::RetriesExhausted { last, .. } => last.root(),
            other => other,
        }
    }

    /// A short stable label for events and logs (`rate_limited`, `overloaded`...).
    pub fn kind(&self) -> &'static str {
        match self {
            VlmError::RateLimited { .. } => "rate_limited",
            VlmError::Overloaded { .. } => "overloaded",
            VlmError::Server { .. } => "server",
            VlmError::Auth { .. } => "auth",
            VlmError::BadRequest { .. } => "bad_request",
            VlmError::BadResponse { .. } => "bad_response",
            VlmError::Transport { .. } => "transport",
            VlmError::Timeout { .. } => "timeout",
            VlmError::Config { .. } => "config",
            VlmError::SafetyCheck { .. } => "safety_check",
            VlmError::RetriesExhausted { .. } => "retries_exhausted",
        }
    }

    /// A [`VlmError::BadResponse`] quoting the start of `body`.
    pub fn bad_response(detail: impl Into<String>, body: &str) -> Self {
        VlmError::BadResponse {
            detail: detail.into(),
            body_excerpt: excerpt(body),
        }
    }
}

/// What an error response said about retrying it (`retry-after`, `retry-after-ms`,
/// `x-should-retry`), read as the official SDKs read them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RetryHint {
    /// How long the server asked to wait, when it said (a positive `retry-after-ms`,
    /// `retry-after` in seconds or as an HTTP date).
    pub retry_after: Option<Duration>,
    /// The server's own answer to "retry?" (`x-should-retry: true|false`), which wins over
    /// the status.
    pub should_retry: Option<bool>,
}

/// The first [`BODY_EXCERPT_CHARS`] characters of `text`, marked when cut.
pub fn excerpt(text: &str) -> String {
    match text.char_indices().nth(BODY_EXCERPT_CHARS) {
        Some((cut, _)) => format!("{}… ({} bytes in all)", &text[..cut], text.len()),
        None => text.to_owned(),
    }
}

fn retry_after_text(retry_after: Option<Duration>) -> String {
    retry_after
        .map(|after| format!(", retry after {}", seconds(after)))
        .unwrap_or_default()
}

fn seconds(duration: Duration) -> String {
    format!("{:.1} s", duration.as_secs_f64())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retryable_by_variant() {
        let server = |status| VlmError::Server {
            status,
            retry: RetryHint::default(),
            message: String::new(),
        };
        assert!(server(503).is_retryable());
        assert!(server(501).is_retryable());
        assert!(server(409).is_retryable());
        let told_not_to = VlmError::Overloaded {
            retry: RetryHint {
                should_retry: Some(false),
                ..RetryHint::default()
            },
            message: String::new(),
        };
        assert!(!told_not_to.is_retryable());
        let told_to = VlmError::BadRequest {
            status: 400,
            retry: RetryHint {
                should_retry: Some(true),
                ..RetryHint::default()
            },
            message: String::new(),
        };
        assert!(told_to.is_retryable());
        assert!(
            !VlmError::Auth {
                status: 401,
                message: String::new()
            }
            .is_retryable()
        );
        assert!(
            VlmError::Timeout {
                after: Duration::from_secs(1)
            }
            .is_retryable()
        );
    }

    #[test]
    fn excerpt_truncates_on_char_boundaries() {
        let long = "é".repeat(BODY_EXCERPT_CHARS + 10);
        let cut = excerpt(&long);
        assert!(cut.starts_with(&"é".repeat(BODY_EXCERPT_CHARS)));
        assert!(cut.ends_with(&format!("({} bytes in all)", long.len())));
        assert_eq!(excerpt("short"), "short");
    }

    #[test]
    fn exhausted_names_attempts_and_cause() {
        let error = VlmError::RetriesExhausted {
            attempts: 3,
            elapsed: Duration::from_millis(1500),
            last: Box::new(VlmError::Overloaded {
                retry: RetryHint::default(),
                message: "Overloaded".into(),
            }),
        };
        assert_eq!(
            error.to_string(),
            "gave up after 3 attempts over 1.5 s: the model API is overloaded (529): Overloaded"
        );
        assert!(matches!(error.root(), VlmError::Overloaded { .. }));
    }
}
