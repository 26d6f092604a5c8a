//! Selenium Grid 4: a WebDriver session whose browser we drive over CDP.
//!
//! `POST /session` asks the hub for a headless Chromium (`goog:chromeOptions`); the answer's
//! `se:cdp` capability is the session's CDP websocket, proxied by the hub, which we move onto
//! the hub address the user gave (a Grid reports its internal host). A Grid ends sessions
//! that send no WebDriver command for a while (300 s by default) and CDP traffic does not
//! count, so a keep-alive sends a cheap command (`GET /session/{id}/url`) every
//! [`SeleniumOptions::keepalive_period`]; when it finds the session gone, the connection is
//! marked dead so the next command fails as a lost session. At the end the session is
//! deleted (`DELETE /session/{id}`): awaited through [`GridSession::end`], or from `Drop` on
//! a helper thread (bounded wait) when a run is dropped or fails.

use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use url::Url;

use super::backoff::StepError;
use super::endpoint::Endpoint;
use super::transport::Transport;
use super::transport::excerpt;
use crate::chromium::connection::Liveness;
use crate::error::DriveError;

/// How long `Drop` waits for the `DELETE` it sends.
const DROP_DELETE_TIMEOUT: Duration = Duration::from_secs(15);

/// What to ask a Selenium Grid for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeleniumOptions {
    /// The W3C `browserName` ("chrome"; Edge nodes answer "MicrosoftEdge").
    pub browser_name: String,
    /// Extra Chromium arguments, after `--headless=new` and `--window-size`.
    pub arguments: Vec<String>,
    /// How often the keep-alive command is sent. Keep it well under the Grid's session
    /// timeout (`--session-timeout`, 300 s by default).
    pub keepalive_period: Duration,
    /// How long session creation may take (a Grid holds the request while its queue waits
    /// for a free node, up to its `--session-request-timeout`, 300 s by default).
    pub create_timeout: Duration,
}

impl Default for SeleniumOptions {
    fn default() -> Self {
        Self {
            browser_name: "chrome".to_owned(),
            arguments: Vec::new(),
            keepalive_period: Duration::from_secs(60),
            create_timeout: Duration::from_secs(330),
        }
    }
}

/// A WebDriver session on a Grid; deleted at [`GridSession::end`] or on drop.
#[derive(Debug)]
pub(crate) struct GridSession {
    transport: Transport,
    hub: Endpoint,
    id: String,
    keepalive: Option<tokio::task::JoinHandle<()>>,
    deleted: bool,
}

/// Creates a session on `hub` and returns it with its CDP websocket URL (on the hub's address).
pub(crate) async fn create(
    transport: &Transport,
    hub: &Endpoint,
    options: &SeleniumOptions,
    width: u32,
    height: u32,
) -> Result<(GridSession, Url), StepError> {
    let what = "session creation (POST /session)";
    let mut arguments = vec![
        "--headless=new".to_owned(),
        format!("--window-size={width},{height}"),
    ];
    arguments.extend(options.arguments.iter().cloned());
    let body = json!({
        "capabilities": {
            "alwaysMatch": {
                "browserName": options.browser_name,
                "goog:chromeOptions": { "args": arguments },
            }
        }
    });
    let answer = transport
        .request(
            reqwest::Method::POST,
            &hub.join("/session"),
            Some(&body),
            Some(options.create_timeout),
            what,
        )
        .await?;
    let failed = |detail: String| {
        StepError::Failed(DriveError::Launch {
            backend: "chromium".to_owned(),
            detail: format!("{what} on {hub}: {detail}"),
        })
    };
    if matches!(answer.status, 401 | 403) {
        // A Grid with `--username`/`--password` answers an empty 401 to wrong credentials.
        return Err(failed(format!(
            "refused with HTTP {} (the hub wants other credentials: a user and password in \
             the endpoint URL, or an Authorization header){}",
            answer.status,
            excerpt(&answer.body)
        )));
    }
    let value: serde_json::Value = serde_json::from_str(&answer.body).map_err(|e| {
        failed(format!(
            "HTTP {}, not JSON ({e}){}",
            answer.status,
            excerpt(&answer.body)
        ))
    })?;
    let value = &value["value"];
    if !(200..300).contains(&answer.status) || value.get("error").is_some() {
        let message = value["message"].as_str().unwrap_or_default();
        let error = value["error"].as_str().unwrap_or("refused");
        return Err(failed(format!(
            "HTTP {}: {error}{}",
            answer.status,
            excerpt(message)
        )));
    }
    let Some(id) = value["sessionId"].as_str().filter(|id| !id.is_empty()) else {
        return Err(failed(format!(
            "the answer has no sessionId{}",
            excerpt(&answer.body)
        )));
    };
    let session = GridSession {
        transport: transport.clone(),
        hub: hub.clone(),
        id: id.to_owned(),
        keepalive: None,
        deleted: false,
    };
    tracing::debug!(session = id, "Grid session created");
    let Some(cdp) = value["capabilities"]["se:cdp"].as_str() else {
        session.end().await;
        return Err(failed(
            "the session has no `se:cdp` capability (CDP needs a Chromium-based browser on a \
             Grid 4 node)"
                .to_owned(),
        ));
    };
    match hub.rebase(cdp, false) {
        Ok(url) => Ok((session, url)),
        Err(error) => {
            session.end().await;
            Err(StepError::Failed(error))
        }
    }
}

impl GridSession {
    /// The WebDriver session id.
    pub(crate) fn id(&self) -> &str {
        &self.id
    }

    /// Starts sending the keep-alive command every `period`; when the Grid answers that the
    /// session is gone, marks `liveness` dead with its answer.
    pub(crate) fn keep_alive(&mut self, period: Duration, liveness: Arc<Liveness>) {
        let transport = self.transport.clone();
        let url = self.hub.join(&format!("/session/{}/url", self.id));
        let hub = self.hub.to_string();
        let id = self.id.clone();
        self.keepalive = Some(tokio::spawn(async move {
            let mut ticks = tokio::time::interval(period);
            ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            ticks.tick().await;
            loop {
                ticks.tick().await;
                let what = "the keep-alive command (GET /session/{id}/url)";
                match transport
                    .request(reqwest::Method::GET, &url, None, None, what)
                    .await
                {
                    Ok(answer)
                        if answer.status == 404 || answer.body.contains("invalid session id") =>
                    {
                        liveness.mark_dead(format!(
                            "the Grid at {hub} ended session {id} (HTTP {}{})",
                            answer.status,
                            excerpt(&answer.body)
                        ));
                        return;
                    }
                    Ok(_) => tracing::trace!(session = %id, "Grid keep-alive"),
                    Err(error) => tracing::debug!(?error, session = %id, "Grid keep-alive failed"),
                }
            }
        }));
    }

    /// Stops the keep-alive and deletes the session, waiting for the answer.
    pub(crate) async fn end(mut self) {
        if let Some(keepalive) = self.keepalive.take() {
            keepalive.abort();
        }
        self.deleted = true;
        delete(&self.transport, &self.hub, &self.id).await;
    }
}

impl Drop for GridSession {
    fn drop(&mut self) {
        if let Some(keepalive) = self.keepalive.take() {
            keepalive.abort();
        }
        if self.deleted {
            return;
        }
        // No await in Drop: delete from a thread with a runtime and an HTTP client of its own,
        // and wait for it (bounded), so the session is gone before its slot is freed.
        let (Ok(transport), hub, id) = (self.transport.fresh(), self.hub.clone(), self.id.clone())
        else {
            tracing::warn!(session = %self.id, "cannot delete the Grid session: no HTTP client");
            return;
        };
        let (done_tx, done_rx) = std::sync::mpsc::channel();
        let spawned = std::thread::Builder::new()
            .name("retrace-grid-delete".to_owned())
            .spawn(move || {
                if let Ok(runtime) = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                {
                    runtime.block_on(delete(&transport, &hub, &id));
                }
                let _ = done_tx.send(());
            });
        if spawned.is_ok() && done_rx.recv_timeout(DROP_DELETE_TIMEOUT).is_err() {
            tracing::warn!(session = %self.id, "the Grid session delete did not finish in time");
        }
    }
}

/// `DELETE /session/{id}`; failures are logged (the run's outcome does not depend on them).
async fn delete(transport: &Transport, hub: &Endpoint, id: &str) {
    let url = hub.join(&format!("/session/{id}"));
    let what = "session deletion (DELETE /session/{id})";
    match transport
        .request(reqwest::Method::DELETE, &url, None, None, what)
        .await
    {
        Ok(answer) if (200..300).contains(&answer.status) => {
            tracing::debug!(session = id, "Grid session deleted");
        }
        Ok(answer) => tracing::warn!(
            session = id,
            status = answer.status,
            "the Grid refused to delete the session{}",
            excerpt(&answer.body)
        ),
        Err(error) => tracing::warn!(?error, session = id, "cannot delete the Grid session"),
    }
}
