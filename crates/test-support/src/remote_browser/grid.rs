//! [`GridStandIn`]: the parts of a Selenium Grid 4 hub retrace uses, in front of one local
//! Chromium.
//!
//! - `POST /session` creates a session and answers W3C capabilities whose `se:cdp` points at
//!   the session's CDP websocket on an internal node address (as a Grid reports it); a body
//!   whose Content-Type does not say `charset=utf-8` is refused, as a real Grid refuses it;
//! - `/session/{id}/se/cdp` proxies that websocket to the browser;
//! - `GET /session/{id}/url` is the keep-alive command, `DELETE /session/{id}` ends a session;
//! - with an idle limit, a session that gets no WebDriver command (CDP traffic does not count)
//!   for that long is killed: its CDP connection is dropped and later commands answer
//!   `invalid session id`, like a Grid's session timeout ([`GridStandIn::kill_session`] does
//!   the same on demand).
//!
//! Everything that happens is recorded for the test to check ([`GridReport`]).
//!
//! Only for what a real Grid ([`super::selenium_grid::SeleniumGrid`]) cannot be made to do on
//! demand: kill a session at a moment the test chooses or after a sub-second idle limit (a
//! real Grid's session timeout is whole seconds, swept on its own schedule), and count the
//! sessions alive at once exactly.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::MutexGuard;
use std::time::Duration;
use std::time::Instant;

use axum::Json;
use axum::extract::Path;
use axum::extract::State;
use axum::extract::ws::WebSocketUpgrade;
use axum::http::StatusCode;
use axum::response::IntoResponse;
use axum::response::Response;
use serde_json::Value;
use serde_json::json;
use tokio::sync::watch;

use super::ws_proxy::proxy;
use crate::router_thread::RouterThread;

/// The node address the Grid reports in `se:cdp` (resolvable nowhere).
pub const NODE_HOST: &str = "grid-node.internal:5555";

/// What a test learns from the stand-in.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GridReport {
    /// Session ids in creation order.
    pub created: Vec<String>,
    /// Sessions deleted while alive.
    pub deleted: Vec<String>,
    /// Sessions killed for being idle.
    pub expired: Vec<String>,
    /// Sessions alive now.
    pub live: usize,
    /// The most sessions alive at once.
    pub max_live: usize,
    /// Keep-alive commands answered.
    pub keepalives: usize,
    /// The bodies of `POST /session`.
    pub requests: Vec<Value>,
}

#[derive(Debug)]
struct Session {
    created: Instant,
    last_command: Instant,
    kill: watch::Sender<bool>,
}

#[derive(Debug, Default)]
struct Grid {
    /// `ws://127.0.0.1:PORT/devtools/browser/ID` of the browser.
    browser: String,
    idle_limit: Option<Duration>,
    next_id: u64,
    live: HashMap<String, Session>,
    report: GridReport,
}

type Shared = Arc<Mutex<Grid>>;

fn lock(grid: &Shared) -> MutexGuard<'_, Grid> {
    grid.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A running Grid stand-in; stops when dropped.
#[derive(Debug)]
pub struct GridStandIn {
    server: RouterThread,
    grid: Shared,
}

impl GridStandIn {
    /// A hub whose sessions all drive the browser at `browser_ws_url`; with `idle_limit`,
    /// sessions idle that long are killed.
    pub fn start(browser_ws_url: &str, idle_limit: Option<Duration>) -> Self {
        let grid = Arc::new(Mutex::new(Grid {
            browser: browser_ws_url.to_owned(),
            idle_limit,
            ..Grid::default()
        }));
        let router = axum::Router::new()
            .route("/session", axum::routing::post(create))
            .route("/session/{id}", axum::routing::delete(delete))
            .route("/session/{id}/url", axum::routing::get(current_url))
            .route("/session/{id}/se/cdp", axum::routing::get(cdp))
            .with_state(Arc::clone(&grid));
        let reaper = reap(Arc::clone(&grid));
        Self {
            server: RouterThread::serve_with(router, reaper),
            grid,
        }
    }

    /// `selenium+http://127.0.0.1:PORT`: the hub as a retrace endpoint.
    pub fn endpoint(&self) -> String {
        format!("selenium+http://{}", self.server.addr())
    }

    /// What happened so far.
    pub fn report(&self) -> GridReport {
        lock(&self.grid).report.clone()
    }

    /// Kills session `id` now, as the Grid does when its session timeout passes: the CDP
    /// connection drops and later commands answer `invalid session id`. Whether it was alive.
    pub fn kill_session(&self, id: &str) -> bool {
        let mut grid = lock(&self.grid);
        let Some(session) = grid.live.remove(id) else {
            return false;
        };
        session.kill.send_replace(true);
        grid.report.expired.push(id.to_owned());
        grid.report.live = grid.live.len();
        true
    }

    /// How long ago session `id` was created, while it is alive.
    pub fn session_age(&self, id: &str) -> Option<Duration> {
        lock(&self.grid).live.get(id).map(|s| s.created.elapsed())
    }
}

fn invalid_session(id: &str) -> Response {
    let body = json!({"value": {
        "error": "invalid session id",
        "message": format!("Unable to find session with ID: {id}"),
        "stacktrace": "",
    }});
    (StatusCode::NOT_FOUND, Json(body)).into_response()
}

async fn create(
    State(grid): State<Shared>,
    headers: axum::http::HeaderMap,
    Json(body): Json<Value>,
) -> Response {
    // As a real Grid 4 does: a body must say it is UTF-8.
    let content_type = headers
        .get(axum::http::header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .unwrap_or_default();
    if !content_type.to_ascii_lowercase().contains("charset=utf-8") {
        let message =
            format!("Content-Type header does not indicate utf-8 encoded json: {content_type}");
        let body =
            json!({"value": {"error": "unknown error", "message": message, "stacktrace": ""}});
        return (StatusCode::INTERNAL_SERVER_ERROR, Json(body)).into_response();
    }
    let mut grid = lock(&grid);
    grid.next_id += 1;
    let id = format!("stand-in-{:04}", grid.next_id);
    let now = Instant::now();
    grid.live.insert(
        id.clone(),
        Session {
            created: now,
            last_command: now,
            kill: watch::channel(false).0,
        },
    );
    let live = grid.live.len();
    grid.report.created.push(id.clone());
    grid.report.requests.push(body);
    grid.report.max_live = grid.report.max_live.max(live);
    grid.report.live = live;
    let capabilities = json!({
        "browserName": "chrome",
        "se:cdp": format!("ws://{NODE_HOST}/session/{id}/se/cdp"),
        "se:cdpVersion": "stand-in",
    });
    Json(json!({"value": {"sessionId": id, "capabilities": capabilities}})).into_response()
}

async fn current_url(State(grid): State<Shared>, Path(id): Path<String>) -> Response {
    let mut grid = lock(&grid);
    let Some(session) = grid.live.get_mut(&id) else {
        return invalid_session(&id);
    };
    session.last_command = Instant::now();
    grid.report.keepalives += 1;
    Json(json!({"value": "about:blank"})).into_response()
}

async fn delete(State(grid): State<Shared>, Path(id): Path<String>) -> Response {
    let mut grid = lock(&grid);
    let Some(session) = grid.live.remove(&id) else {
        return invalid_session(&id);
    };
    session.kill.send_replace(true);
    grid.report.deleted.push(id);
    grid.report.live = grid.live.len();
    Json(json!({"value": null})).into_response()
}

async fn cdp(
    State(grid): State<Shared>,
    Path(id): Path<String>,
    upgrade: WebSocketUpgrade,
) -> Response {
    let (target, kill) = {
        let grid = lock(&grid);
        let Some(session) = grid.live.get(&id) else {
            return invalid_session(&id);
        };
        (grid.browser.clone(), session.kill.subscribe())
    };
    upgrade
        .max_message_size(1 << 30)
        .max_frame_size(1 << 30)
        .on_upgrade(move |socket| proxy(socket, target, kill))
}

/// Kills sessions idle longer than the limit, checking every 20 ms.
async fn reap(grid: Shared) {
    let mut ticks = tokio::time::interval(Duration::from_millis(20));
    loop {
        ticks.tick().await;
        let mut grid = lock(&grid);
        grid.report.live = grid.live.len();
        let Some(limit) = grid.idle_limit else {
            continue;
        };
        let idle: Vec<String> = grid
            .live
            .iter()
            .filter(|(_, session)| session.last_command.elapsed() > limit)
            .map(|(id, _)| id.clone())
            .collect();
        for id in idle {
            if let Some(session) = grid.live.remove(&id) {
                session.kill.send_replace(true);
                grid.report.expired.push(id);
            }
        }
        grid.report.live = grid.live.len();
    }
}
