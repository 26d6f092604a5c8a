//! DevTools discovery: `GET <endpoint>/json/version` and its `webSocketDebuggerUrl`, moved
//! onto the endpoint the user gave (see [`Endpoint::rebase`]): the browser reports its own
//! host (`127.0.0.1`, a container name), which is rarely where the user reaches it.

use url::Url;

use super::backoff::StepError;
use super::endpoint::Endpoint;
use super::transport::Transport;
use super::transport::excerpt;
use crate::error::DriveError;

/// Asks `endpoint` for the browser's websocket URL.
pub(crate) async fn websocket_url(
    transport: &Transport,
    endpoint: &Endpoint,
) -> Result<Url, StepError> {
    let url = endpoint.join("/json/version");
    let what = "DevTools discovery (/json/version)";
    let answer = transport
        .request(reqwest::Method::GET, &url, None, None, what)
        .await?;
    let failed = |detail: String| {
        StepError::Failed(DriveError::Launch {
            backend: "chromium".to_owned(),
            detail: format!("{what} at {endpoint}: {detail}"),
        })
    };
    if !(200..300).contains(&answer.status) {
        return Err(failed(format!(
            "refused with HTTP {}{}",
            answer.status,
            excerpt(&answer.body)
        )));
    }
    let version: serde_json::Value = serde_json::from_str(&answer.body).map_err(|e| {
        failed(format!(
            "the answer is not JSON ({e}){}",
            excerpt(&answer.body)
        ))
    })?;
    let reported = version
        .get("webSocketDebuggerUrl")
        .and_then(serde_json::Value::as_str)
        .ok_or_else(|| {
            failed(
                "the answer has no `webSocketDebuggerUrl` (is this a Chromium DevTools \
                 endpoint?)"
                    .to_owned(),
            )
        })?;
    let url = endpoint.rebase(reported, true)?;
    tracing::debug!(browser = ?version.get("Browser"), "discovered the DevTools websocket");
    Ok(url)
}
