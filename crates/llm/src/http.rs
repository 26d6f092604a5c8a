//! The thin HTTP layer both clients share: one POST of a JSON body, and the mapping of
//! statuses, headers and transport failures onto [`VlmError`].

use std::error::Error as _;
use std::time::Duration;

use bytes::Bytes;
use reqwest::header::CONTENT_TYPE;
use reqwest::header::HeaderMap;
use reqwest::header::HeaderValue;

use crate::ApiKey;
use crate::VlmError;

/// A response as received: status, headers, body text.
pub(crate) struct RawResponse {
    pub status: u16,
    pub headers: HeaderMap,
    pub body: String,
}

/// A reqwest client with this request timeout (connect included).
pub(crate) fn build_client(timeout: Duration) -> Result<reqwest::Client, VlmError> {
    reqwest::Client::builder()
        .timeout(timeout)
        .build()
        .map_err(|e| VlmError::Config {
            detail: format!("cannot build the HTTP client: {}", chain(&e)),
        })
}

/// POSTs `body` (JSON text) and reads the whole answer, whatever its status. The bytes are
/// handed to the connection as they are, not copied.
pub(crate) async fn post_json(
    client: &reqwest::Client,
    url: &str,
    headers: HeaderMap,
    body: Bytes,
    timeout: Duration,
    key: Option<&ApiKey>,
) -> Result<RawResponse, VlmError> {
    let scrub = |text: String| match key {
        Some(key) => key.redact(&text),
        None => text,
    };
    let response = client
        .post(url)
        .headers(headers)
        .header(CONTENT_TYPE, HeaderValue::from_static("application/json"))
        .body(body)
        .send()
        .await
        .map_err(|e| transport_error(&e, timeout, scrub))?;
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    let body = response
        .text()
        .await
        .map_err(|e| transport_error(&e, timeout, scrub))?;
    Ok(RawResponse {
        status,
        headers,
        body: scrub(body),
    })
}

fn transport_error(
    error: &reqwest::Error,
    timeout: Duration,
    scrub: impl Fn(String) -> String,
) -> VlmError {
    if error.is_timeout() {
        VlmError::Timeout { after: timeout }
    } else {
        VlmError::Transport {
            message: scrub(chain(error)),
        }
    }
}

/// An error and its causes, `: `-joined (reqwest's own message says little: "error sending
/// request"; the cause says "Connection refused").
fn chain(error: &reqwest::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

/// The server's wish for a pause: `retry-after-ms` (OpenAI) or `retry-after` in seconds.
/// An HTTP-date `retry-after` is not understood and gives `None` (the policy's backoff
/// applies instead).
pub(crate) fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let header = |name: &str| headers.get(name).and_then(|value| value.to_str().ok());
    if let Some(ms) = header("retry-after-ms").and_then(|text| text.trim().parse::<f64>().ok()) {
        return duration_from_secs(ms / 1000.0);
    }
    header("retry-after")
        .and_then(|text| text.trim().parse::<f64>().ok())
        .and_then(duration_from_secs)
}

fn duration_from_secs(secs: f64) -> Option<Duration> {
    (secs.is_finite() && secs >= 0.0).then(|| Duration::from_secs_f64(secs.min(86_400.0)))
}

/// The error for a non-success status. `api_type` is the API's own error type when the body
/// had one (`overloaded_error` counts as overload whatever the status).
pub(crate) fn status_error(
    status: u16,
    headers: &HeaderMap,
    api_type: Option<&str>,
    message: String,
) -> VlmError {
    match (status, api_type) {
        (429, _) | (_, Some("rate_limit_error")) => VlmError::RateLimited {
            retry_after: retry_after(headers),
            message,
        },
        (529, _) | (_, Some("overloaded_error")) => VlmError::Overloaded { message },
        (401 | 403, _) => VlmError::Auth { status, message },
        (408, _) => VlmError::Server { status, message },
        (400..=499, _) => VlmError::BadRequest { status, message },
        _ => VlmError::Server { status, message },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderValue;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.insert(*name, HeaderValue::from_static(value));
        }
        map
    }

    #[test]
    fn reads_retry_after_in_seconds_and_ms() {
        assert_eq!(
            retry_after(&headers(&[("retry-after", "2")])),
            Some(Duration::from_secs(2))
        );
        assert_eq!(
            retry_after(&headers(&[
                ("retry-after", "1"),
                ("retry-after-ms", "1500")
            ])),
            Some(Duration::from_millis(1500))
        );
        assert_eq!(
            retry_after(&headers(&[(
                "retry-after",
                "Wed, 21 Oct 2015 07:28:00 GMT"
            )])),
            None
        );
        assert_eq!(retry_after(&headers(&[("retry-after", "-3")])), None);
    }

    #[test]
    fn maps_statuses() {
        let none = HeaderMap::new();
        let map = |status, api_type| status_error(status, &none, api_type, "m".into());
        assert!(matches!(
            map(429, None),
            VlmError::RateLimited {
                retry_after: None,
                ..
            }
        ));
        assert!(matches!(map(529, None), VlmError::Overloaded { .. }));
        assert!(matches!(
            map(500, Some("overloaded_error")),
            VlmError::Overloaded { .. }
        ));
        assert!(matches!(map(401, None), VlmError::Auth { status: 401, .. }));
        assert!(matches!(map(403, None), VlmError::Auth { status: 403, .. }));
        assert!(matches!(
            map(400, None),
            VlmError::BadRequest { status: 400, .. }
        ));
        assert!(matches!(
            map(404, None),
            VlmError::BadRequest { status: 404, .. }
        ));
        assert!(matches!(
            map(502, None),
            VlmError::Server { status: 502, .. }
        ));
    }
}
