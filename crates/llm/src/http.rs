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
use crate::error::RetryHint;

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

/// What an error response says about retrying, read as the official SDKs read it
/// (`anthropic` 2.14.0, `_base_client.py`: `_parse_retry_after_header`, `_should_retry`):
/// `retry-after-ms` first, then `retry-after` as seconds (fractions allowed) or as an HTTP
/// date; only a positive wait counts. `x-should-retry: true|false` is the server's own answer.
pub(crate) fn retry_hint(headers: &HeaderMap) -> RetryHint {
    let header = |name: &str| headers.get(name).and_then(|value| value.to_str().ok());
    RetryHint {
        retry_after: retrace_protocol::retry::server_wait(header),
        should_retry: match header("x-should-retry") {
            Some("true") => Some(true),
            Some("false") => Some(false),
            _ => None,
        },
    }
}

/// The id the API gave the request (`request-id`, or OpenAI's `x-request-id`), quoted in
/// every error so a user can hand it to the provider's support.
pub(crate) fn request_id(headers: &HeaderMap) -> Option<&str> {
    ["request-id", "x-request-id"]
        .iter()
        .find_map(|name| headers.get(*name).and_then(|value| value.to_str().ok()))
}

/// The error for a non-success status. `api_type` is the API's own error type when the body
/// had one (`overloaded_error` counts as overload whatever the status). The message ends with
/// the request id when the response had one.
pub(crate) fn status_error(
    status: u16,
    headers: &HeaderMap,
    api_type: Option<&str>,
    message: String,
) -> VlmError {
    let retry = retry_hint(headers);
    let message = match request_id(headers) {
        Some(id) => format!("{message} (request-id {id})"),
        None => message,
    };
    match (status, api_type) {
        (429, _) | (_, Some("rate_limit_error")) => VlmError::RateLimited { retry, message },
        (529, _) | (_, Some("overloaded_error")) => VlmError::Overloaded { retry, message },
        (401 | 403, _) => VlmError::Auth { status, message },
        (408 | 409, _) => VlmError::Server {
            status,
            retry,
            message,
        },
        (400..=499, _) => VlmError::BadRequest {
            status,
            retry,
            message,
        },
        _ => VlmError::Server {
            status,
            retry,
            message,
        },
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
    fn reads_retry_after_in_seconds_ms_and_http_dates() {
        let wait = |pairs: &[(&'static str, &'static str)]| retry_hint(&headers(pairs)).retry_after;
        assert_eq!(wait(&[("retry-after", "2")]), Some(Duration::from_secs(2)));
        assert_eq!(
            wait(&[("retry-after", "0.5")]),
            Some(Duration::from_millis(500))
        );
        assert_eq!(
            wait(&[("retry-after", "1"), ("retry-after-ms", "1500")]),
            Some(Duration::from_millis(1500))
        );
        assert_eq!(
            wait(&[("retry-after", "Wed, 21 Oct 2015 07:28:00 GMT")]),
            None
        );
        assert_eq!(wait(&[("retry-after", "-3")]), None);
        assert_eq!(wait(&[("retry-after", "soon")]), None);
        let in_ten =
            httpdate::fmt_http_date(std::time::SystemTime::now() + Duration::from_secs(10));
        let mut map = HeaderMap::new();
        map.insert("retry-after", HeaderValue::from_str(&in_ten).unwrap());
        let waited = retry_hint(&map).retry_after.unwrap();
        assert!(
            waited > Duration::from_secs(7) && waited <= Duration::from_secs(10),
            "{waited:?}"
        );
    }

    #[test]
    fn reads_x_should_retry_and_quotes_the_request_id() {
        let hint = |value| retry_hint(&headers(&[("x-should-retry", value)])).should_retry;
        assert_eq!(hint("true"), Some(true));
        assert_eq!(hint("false"), Some(false));
        assert_eq!(hint("maybe"), None);
        let error = status_error(
            400,
            &headers(&[("request-id", "req_011CabcXYZ")]),
            Some("invalid_request_error"),
            "bad field".into(),
        );
        assert!(
            error
                .to_string()
                .ends_with("bad field (request-id req_011CabcXYZ)"),
            "{error}"
        );
    }

    #[test]
    fn maps_statuses() {
        let none = HeaderMap::new();
        let map = |status, api_type| status_error(status, &none, api_type, "m".into());
        assert!(matches!(map(429, None), VlmError::RateLimited { .. }));
        assert!(matches!(
            map(408, None),
            VlmError::Server { status: 408, .. }
        ));
        assert!(matches!(
            map(409, None),
            VlmError::Server { status: 409, .. }
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
