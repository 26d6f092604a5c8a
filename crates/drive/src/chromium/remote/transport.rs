//! [`Transport`]: how we talk to a remote endpoint — HTTP requests (discovery, WebDriver) and
//! websocket upgrades, both with the user's headers and the same TLS trust. Answers that mean
//! "busy" come back as [`StepError::Busy`] so the caller can back off; every other failure
//! names the endpoint without credentials. reqwest's errors carry the URL (with its token),
//! so they are always stripped of it before they are shown.

use std::error::Error as _;
use std::sync::Arc;
use std::time::Duration;

use async_tungstenite::WebSocketStream;
use async_tungstenite::tokio::TokioAdapter;
use async_tungstenite::tungstenite;
use async_tungstenite::tungstenite::client::IntoClientRequest;
use async_tungstenite::tungstenite::protocol::WebSocketConfig;
use reqwest::header::HeaderMap;
use url::Url;

use super::backoff::StepError;
use super::backoff::is_busy;
use super::backoff::retry_after;
use super::endpoint::redact;
use crate::error::DriveError;

/// The Content-Type of the JSON bodies we send.
const JSON_UTF8: &str = "application/json; charset=utf-8";

/// A byte stream a websocket runs on: plain TCP or TLS over it.
pub(crate) trait Io: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send {}
impl<T: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send> Io for T {}

/// A websocket we opened to a remote endpoint.
pub(crate) type RemoteSocket = WebSocketStream<TokioAdapter<Box<dyn Io>>>;

/// A websocket configuration without message size limits: a full-page screenshot in one CDP
/// message can be tens of megabytes.
pub(crate) fn unlimited() -> WebSocketConfig {
    WebSocketConfig::default()
        .max_message_size(None)
        .max_frame_size(None)
}

/// An HTTP answer read whole.
#[derive(Debug)]
pub(crate) struct Answer {
    pub(crate) status: u16,
    pub(crate) body: String,
}

/// The HTTP client, the TLS trust and the headers for one remote endpoint.
#[derive(Debug, Clone)]
pub(crate) struct Transport {
    http: reqwest::Client,
    tls: Arc<rustls::ClientConfig>,
    headers: HeaderMap,
    timeout: Duration,
}

impl Transport {
    /// `headers` go on every request and upgrade; `timeout` bounds each HTTP request (unless
    /// the caller gives another), TCP connect and websocket handshake.
    pub(crate) fn new(
        tls: Arc<rustls::ClientConfig>,
        headers: HeaderMap,
        timeout: Duration,
    ) -> Result<Self, DriveError> {
        let http = http_client(&tls, &headers, timeout)?;
        Ok(Self {
            http,
            tls,
            headers,
            timeout,
        })
    }

    /// Another transport with the same settings but a fresh HTTP client, for use from another
    /// runtime (a client's pooled connections belong to the runtime that opened them).
    pub(crate) fn fresh(&self) -> Result<Self, DriveError> {
        Self::new(Arc::clone(&self.tls), self.headers.clone(), self.timeout)
    }

    /// Sends `method url` (with a JSON `body` if given) and reads the answer; busy answers
    /// become [`StepError::Busy`], transport failures [`DriveError::Launch`] naming `what`.
    pub(crate) async fn request(
        &self,
        method: reqwest::Method,
        url: &Url,
        body: Option<&serde_json::Value>,
        timeout: Option<Duration>,
        what: &str,
    ) -> Result<Answer, StepError> {
        let mut request = self
            .http
            .request(method, url.clone())
            .timeout(timeout.unwrap_or(self.timeout));
        if let Some(body) = body {
            // A real Grid 4 refuses a body whose Content-Type does not name UTF-8 ("Content-Type
            // header does not indicate utf-8 encoded json"), so the charset is spelled out.
            request = request
                .header(reqwest::header::CONTENT_TYPE, JSON_UTF8)
                .body(body.to_string());
        }
        let failed = |error: reqwest::Error| {
            StepError::Failed(unreachable(what, url, &describe_reqwest(error)))
        };
        let response = request.send().await.map_err(failed)?;
        let status = response.status().as_u16();
        let wait = retry_after(response.headers());
        let body = response.text().await.map_err(failed)?;
        if is_busy(status, &body) {
            return Err(StepError::Busy {
                reason: format!("HTTP {status} to {what}{}", excerpt(&body)),
                retry_after: wait,
            });
        }
        Ok(Answer { status, body })
    }

    /// Opens a websocket to `url` (`ws://` or `wss://`) with our headers; a 429 or 503
    /// answer to the upgrade is [`StepError::Busy`].
    pub(crate) async fn open_websocket(&self, url: &Url) -> Result<RemoteSocket, StepError> {
        let what = "the websocket upgrade";
        let fail = |detail: String| StepError::Failed(unreachable(what, url, &detail));
        let host = url.host_str().unwrap_or_default().to_owned();
        let port = url.port_or_known_default().unwrap_or(80);
        let connect = tokio::net::TcpStream::connect((host.trim_matches(['[', ']']), port));
        let tcp = tokio::time::timeout(self.timeout, connect)
            .await
            .map_err(|_| fail(format!("no TCP connection within {:?}", self.timeout)))?
            .map_err(|e| fail(format!("cannot open a TCP connection ({e})")))?;
        if let Err(error) = tcp.set_nodelay(true) {
            tracing::debug!(%error, "TCP_NODELAY on the remote websocket");
        }
        let stream: Box<dyn Io> = if url.scheme() == "wss" {
            let name = rustls::pki_types::ServerName::try_from(host.trim_matches(['[', ']']))
                .map_err(|e| fail(format!("`{host}` cannot be a TLS server name ({e})")))?
                .to_owned();
            let connector = tokio_rustls::TlsConnector::from(Arc::clone(&self.tls));
            let tls = tokio::time::timeout(self.timeout, connector.connect(name, tcp))
                .await
                .map_err(|_| fail(format!("no TLS handshake within {:?}", self.timeout)))?
                .map_err(|e| fail(format!("TLS handshake failed ({e})")))?;
            Box::new(tls)
        } else {
            Box::new(tcp)
        };
        let mut request = url
            .as_str()
            .into_client_request()
            .map_err(|e| fail(format!("cannot build the upgrade request ({e})")))?;
        for (name, value) in &self.headers {
            request.headers_mut().append(name, value.clone());
        }
        let handshake =
            async_tungstenite::tokio::client_async_with_config(request, stream, Some(unlimited()));
        match tokio::time::timeout(self.timeout, handshake).await {
            Err(_) => Err(fail(format!(
                "no websocket handshake within {:?}",
                self.timeout
            ))),
            Ok(Ok((socket, _))) => Ok(socket),
            Ok(Err(tungstenite::Error::Http(response))) => {
                let status = response.status().as_u16();
                let body = response
                    .body()
                    .as_deref()
                    .map(String::from_utf8_lossy)
                    .unwrap_or_default();
                if is_busy(status, &body) {
                    return Err(StepError::Busy {
                        reason: format!("HTTP {status} to {what}{}", excerpt(&body)),
                        retry_after: retry_after(response.headers()),
                    });
                }
                Err(fail(format!(
                    "refused with HTTP {status}{}",
                    excerpt(&body)
                )))
            }
            Ok(Err(error)) => Err(fail(error.to_string())),
        }
    }
}

/// The reqwest client: our TLS configuration, our headers on every request, no proxy from the
/// environment (the websocket does not use one either, and both must reach the same place).
fn http_client(
    tls: &Arc<rustls::ClientConfig>,
    headers: &HeaderMap,
    timeout: Duration,
) -> Result<reqwest::Client, DriveError> {
    reqwest::Client::builder()
        .use_preconfigured_tls((**tls).clone())
        .default_headers(headers.clone())
        .connect_timeout(timeout)
        .no_proxy()
        .build()
        .map_err(|e| {
            DriveError::InvalidInput(format!("HTTP client setup: {}", describe_reqwest(e)))
        })
}

/// The error for "cannot reach `what` at `url`".
fn unreachable(what: &str, url: &Url, detail: &str) -> DriveError {
    DriveError::Launch {
        backend: "chromium".to_owned(),
        detail: format!("{what} at {} failed: {detail}", redact(url.as_str())),
    }
}

/// A reqwest error and its causes, without the URL (which may carry a token).
fn describe_reqwest(error: reqwest::Error) -> String {
    let error = error.without_url();
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

/// `: <the first 200 characters of body>` for error messages, or nothing for an empty body.
pub(crate) fn excerpt(body: &str) -> String {
    let body = body.trim();
    if body.is_empty() {
        return String::new();
    }
    let short: String = body.chars().take(200).collect();
    let more = if short.len() < body.len() { "…" } else { "" };
    format!(": {short}{more}")
}
