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
    /// HTTP 429: too many requests. Retried after `retry_after` when the server gave one.
    #[error("rate limited by the model API (429){}: {message}", retry_after_text(*.retry_after))]
    RateLimited {
        /// The server's `retry-after`, when sent.
        retry_after: Option<Duration>,
        /// The API's message.
        message: String,
    },
    /// HTTP 529 (or an `overloaded_error`): the API is overloaded. Retried.
    #[error("the model API is overloaded (529): {message}")]
    Overloaded {
        /// The API's message.
        message: String,
    },
    /// HTTP 5xx other than 529. 500, 502, 503 and 504 are retried.
    #[error("the model API failed with HTTP {status}: {message}")]
    Server {
        /// The HTTP status.
        status: u16,
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
    /// HTTP 4xx other than 401/403/429: the request is wrong. Not retried.
    #[error("the model API rejected the request (HTTP {status}): {message}")]
    BadRequest {
        /// The HTTP status.
        status: u16,
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
    pub fn is_retryable(&self) -> bool {
        match self {
            VlmError::RateLimited { .. }
            | VlmError::Overloaded { .. }
            | VlmError::Transport { .. }
            | VlmError::Timeout { .. } => true,
            VlmError::Server { status, .. } => matches!(status, 500 | 502 | 503 | 504),
            VlmError::Auth { .. }
            | VlmError::BadRequest { .. }
            | VlmError::BadResponse { .. }
            | VlmError::Config { .. }
            | VlmError::RetriesExhausted { .. } => false,
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
            message: String::new(),
        };
        assert!(server(503).is_retryable());
        assert!(!server(501).is_retryable());
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
