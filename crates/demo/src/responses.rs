//! The small response helpers every handler uses: an uncached HTML page, a redirect, the
//! app's deliberate latency and the header that reports it.

use std::time::Duration;

use axum::http::HeaderName;
use axum::http::HeaderValue;
use axum::http::StatusCode;
use axum::http::header;
use axum::response::Html;
use axum::response::IntoResponse;
use axum::response::Response;

/// The response header carrying the latency (ms) the server applied to a slow request.
pub const LATENCY_HEADER: &str = "x-retrace-demo-latency-ms";

/// An HTML response that browsers must not cache.
pub(crate) fn html_page(status: StatusCode, body: String) -> Response {
    (
        status,
        [(header::CACHE_CONTROL, HeaderValue::from_static("no-store"))],
        Html(body),
    )
        .into_response()
}

/// A 303 to `location`.
pub(crate) fn redirect(location: &str) -> Response {
    match HeaderValue::from_str(location) {
        Ok(value) => (StatusCode::SEE_OTHER, [(header::LOCATION, value)]).into_response(),
        Err(_) => (StatusCode::INTERNAL_SERVER_ERROR, "bad redirect target").into_response(),
    }
}

/// Waits `ms` milliseconds (a deliberate slowness of the app), logging `message` with
/// `latency_ms` at info level for benchmarks that set the app's own waits against a run's
/// time (e.g. "applied app latency latency_ms=250").
pub(crate) async fn delay(ms: u64, message: &str) {
    if ms > 0 {
        tracing::info!(latency_ms = ms, "{message}");
        tokio::time::sleep(Duration::from_millis(ms)).await;
    }
}

/// Adds the header that reports the delay (ms) the server applied.
pub(crate) fn with_latency(mut response: Response, ms: u64) -> Response {
    response.headers_mut().insert(
        HeaderName::from_static(LATENCY_HEADER),
        HeaderValue::from(ms),
    );
    response
}
