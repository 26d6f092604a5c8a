//! [`FarmStandIn`]: a browser farm in front of one local Chromium, the way browserless or a
//! cloud farm sits in front of its browsers. `GET /json/version` reports the browser's
//! websocket on an internal host name only the farm could reach (so a client that does not
//! move it onto the farm's address fails), and `/devtools/browser/{id}` proxies the websocket
//! to the browser. The first `busy_discoveries` discovery requests are answered 429, as a farm
//! at capacity does.
//!
//! Only for that: a real farm ([`super::browserless::Browserless`]) cannot be made to answer
//! busy a set number of times.

use std::sync::Arc;
use std::sync::atomic::AtomicU32;
use std::sync::atomic::Ordering;

use axum::extract::Path;
use axum::extract::State;
use axum::extract::ws::WebSocketUpgrade;
use axum::http::StatusCode;
use axum::response::IntoResponse;
use axum::response::Response;
use tokio::sync::watch;

use super::ws_proxy::proxy;
use crate::router_thread::RouterThread;

/// The host the farm reports its browsers on (resolvable nowhere).
pub const INTERNAL_HOST: &str = "browser.farm.internal:9222";

#[derive(Debug)]
struct FarmState {
    /// `ws://127.0.0.1:PORT` of the browser.
    browser: String,
    busy_left: AtomicU32,
    discoveries: AtomicU32,
    busy_answers: AtomicU32,
    upgrades: AtomicU32,
    /// Never fired: farm sessions end when a side closes.
    kill: watch::Sender<bool>,
}

/// A running farm stand-in; stops when dropped.
#[derive(Debug)]
pub struct FarmStandIn {
    server: RouterThread,
    state: Arc<FarmState>,
}

impl FarmStandIn {
    /// A farm in front of the browser whose DevTools websocket is `browser_ws_url`
    /// (`ws://127.0.0.1:PORT/devtools/browser/ID`), busy for the first `busy_discoveries`
    /// discovery requests.
    pub fn start(browser_ws_url: &str, busy_discoveries: u32) -> Self {
        let authority = browser_ws_url
            .strip_prefix("ws://")
            .and_then(|rest| rest.split('/').next())
            .unwrap_or_else(|| panic!("not a ws:// URL: {browser_ws_url}"));
        let state = Arc::new(FarmState {
            browser: format!("ws://{authority}"),
            busy_left: AtomicU32::new(busy_discoveries),
            discoveries: AtomicU32::new(0),
            busy_answers: AtomicU32::new(0),
            upgrades: AtomicU32::new(0),
            kill: watch::channel(false).0,
        });
        let browser_path = browser_ws_url
            .strip_prefix(&format!("ws://{authority}"))
            .unwrap_or_default()
            .to_owned();
        let router = axum::Router::new()
            .route(
                "/json/version",
                axum::routing::get(move |state: State<Arc<FarmState>>| {
                    version(state, browser_path.clone())
                }),
            )
            .route("/devtools/browser/{id}", axum::routing::get(websocket))
            .with_state(Arc::clone(&state));
        Self {
            server: RouterThread::serve(router),
            state,
        }
    }

    /// `http://127.0.0.1:PORT`: the farm's DevTools HTTP endpoint.
    pub fn url(&self) -> String {
        format!("http://{}", self.server.addr())
    }

    /// How many discovery requests came (busy ones included).
    pub fn discoveries(&self) -> u32 {
        self.state.discoveries.load(Ordering::SeqCst)
    }

    /// How many were answered 429.
    pub fn busy_answers(&self) -> u32 {
        self.state.busy_answers.load(Ordering::SeqCst)
    }

    /// How many websocket sessions were proxied.
    pub fn websocket_sessions(&self) -> u32 {
        self.state.upgrades.load(Ordering::SeqCst)
    }
}

async fn version(State(state): State<Arc<FarmState>>, browser_path: String) -> Response {
    state.discoveries.fetch_add(1, Ordering::SeqCst);
    let busy = state
        .busy_left
        .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |left| {
            left.checked_sub(1)
        })
        .is_ok();
    if busy {
        state.busy_answers.fetch_add(1, Ordering::SeqCst);
        return (StatusCode::TOO_MANY_REQUESTS, "all browsers are busy").into_response();
    }
    axum::Json(serde_json::json!({
        "Browser": "Chrome/stand-in",
        "Protocol-Version": "1.3",
        "webSocketDebuggerUrl": format!("ws://{INTERNAL_HOST}{browser_path}"),
    }))
    .into_response()
}

async fn websocket(
    State(state): State<Arc<FarmState>>,
    Path(id): Path<String>,
    upgrade: WebSocketUpgrade,
) -> Response {
    state.upgrades.fetch_add(1, Ordering::SeqCst);
    let target = format!("{}/devtools/browser/{id}", state.browser);
    let kill = state.kill.subscribe();
    upgrade
        .max_message_size(1 << 30)
        .max_frame_size(1 << 30)
        .on_upgrade(move |socket| proxy(socket, target, kill))
}
