//! The `never-loads` response: a 200 whose body sends the page up to the end of its header and
//! then never completes, so the browser shows a partial page and never fires `load`. It ends
//! (as an aborted body) only when the server stops.

use std::io;

use axum::body::Body;
use axum::body::Bytes;
use axum::http::HeaderValue;
use axum::http::StatusCode;
use axum::http::header;
use axum::response::IntoResponse;
use axum::response::Response;
use futures::StreamExt;
use tokio::sync::watch;

use crate::app_state::wait_for_stop;

/// Where the sent part ends: right after the site header.
const SENT_UNTIL: &str = "</header>";

/// The response for `html`, cut after its header and left hanging until `stopping` turns true
/// (forever when `None`).
pub fn response(html: String, stopping: Option<watch::Receiver<bool>>) -> Response {
    let cut = html
        .find(SENT_UNTIL)
        .map_or(html.len(), |at| at + SENT_UNTIL.len());
    let mut first = html;
    first.truncate(cut);
    let sent = futures::stream::once(async move { Ok::<Bytes, io::Error>(Bytes::from(first)) });
    let hang = futures::stream::once(async move {
        wait_for_stop(stopping).await;
        Err::<Bytes, io::Error>(io::Error::other("the demo app stopped"))
    });
    (
        StatusCode::OK,
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/html; charset=utf-8"),
            ),
            (header::CACHE_CONTROL, HeaderValue::from_static("no-store")),
        ],
        Body::from_stream(sent.chain(hang)),
    )
        .into_response()
}
