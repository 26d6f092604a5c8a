//! The HTTP side: routes, the session cookie, latency, and the running server's handle.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::Form;
use axum::Json;
use axum::Router;
use axum::extract::Query;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::http::HeaderName;
use axum::http::HeaderValue;
use axum::http::StatusCode;
use axum::http::header;
use axum::response::Html;
use axum::response::IntoResponse;
use axum::response::Response;
use axum::routing::get;
use serde::Deserialize;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use crate::config::DemoConfig;
use crate::config::Layout;
use crate::config::LayoutParseError;
use crate::dashboard_page;
use crate::invoices;
use crate::login_page;

/// The cookie that marks a signed-in browser; its value is the user name.
pub const SESSION_COOKIE: &str = "retrace_demo_session";

/// The response header carrying the latency (ms) the server applied to a slow request.
pub const LATENCY_HEADER: &str = "x-retrace-demo-latency-ms";

/// The demo app could not be started or stopped.
#[derive(Debug, thiserror::Error)]
pub enum DemoError {
    /// The listening socket could not be bound.
    #[error("cannot bind the demo app to {addr}: {source}")]
    Bind {
        /// The address asked for.
        addr: SocketAddr,
        /// The operating system's reason.
        source: std::io::Error,
    },
    /// The server stopped with an I/O error.
    #[error("the demo app at {addr} stopped with an error: {source}")]
    Serve {
        /// The address it was serving on.
        addr: SocketAddr,
        /// The cause.
        source: std::io::Error,
    },
    /// The server task panicked or was cancelled.
    #[error("the demo app task at {addr} ended abnormally: {detail}")]
    Task {
        /// The address it was serving on.
        addr: SocketAddr,
        /// What the runtime reported.
        detail: String,
    },
}

/// A running demo app. Dropping it (or calling [`DemoServer::shutdown`]) stops the server.
#[derive(Debug)]
pub struct DemoServer {
    addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<std::io::Result<()>>>,
}

impl DemoServer {
    /// The address the server is bound to (the real port when port 0 was asked for).
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The app's base URL with a trailing slash, e.g. `http://127.0.0.1:41234/`. An
    /// unspecified bind address (`0.0.0.0`, `::`) is reported as loopback, which is reachable.
    pub fn url(&self) -> String {
        let ip = match self.addr.ip() {
            ip if ip.is_unspecified() && ip.is_ipv4() => "127.0.0.1".to_owned(),
            ip if ip.is_unspecified() => "[::1]".to_owned(),
            ip if ip.is_ipv6() => format!("[{ip}]"),
            ip => ip.to_string(),
        };
        format!("http://{ip}:{}/", self.addr.port())
    }

    /// Stops accepting connections, lets in-flight requests finish, and waits for the server
    /// task to end.
    pub async fn shutdown(mut self) -> Result<(), DemoError> {
        if let Some(stop) = self.stop.take() {
            // The task may already be gone; then there is nothing to stop.
            let _ = stop.send(());
        }
        let Some(task) = self.task.take() else {
            return Ok(());
        };
        let addr = self.addr;
        match task.await {
            Ok(Ok(())) => Ok(()),
            Ok(Err(source)) => Err(DemoError::Serve { addr, source }),
            Err(error) => Err(DemoError::Task {
                addr,
                detail: error.to_string(),
            }),
        }
    }

    /// Waits until the server ends (it ends only on shutdown or an I/O error), e.g. for a
    /// command that serves until Ctrl-C races this against the signal.
    pub async fn wait(&mut self) -> Result<(), DemoError> {
        let Some(task) = self.task.as_mut() else {
            return Ok(());
        };
        let result = task.await;
        self.task = None;
        let addr = self.addr;
        match result {
            Ok(Ok(())) => Ok(()),
            Ok(Err(source)) => Err(DemoError::Serve { addr, source }),
            Err(error) => Err(DemoError::Task {
                addr,
                detail: error.to_string(),
            }),
        }
    }
}

impl Drop for DemoServer {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

/// Binds `addr` (port 0 picks a free port) and serves the demo app on the current tokio
/// runtime until the returned handle is shut down or dropped.
pub async fn start(config: DemoConfig, addr: SocketAddr) -> Result<DemoServer, DemoError> {
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|source| DemoError::Bind { addr, source })?;
    let bound = listener
        .local_addr()
        .map_err(|source| DemoError::Bind { addr, source })?;
    let (stop, stopped) = oneshot::channel::<()>();
    let app = router(config);
    let task = tokio::spawn(async move {
        axum::serve(listener, app)
            .with_graceful_shutdown(async move {
                // A dropped sender also means "stop".
                let _ = stopped.await;
            })
            .await
    });
    tracing::debug!(%bound, "demo app listening");
    Ok(DemoServer {
        addr: bound,
        stop: Some(stop),
        task: Some(task),
    })
}

/// The demo app's routes, for serving on a listener of the caller's choosing.
pub fn router(config: DemoConfig) -> Router {
    let state = AppState {
        config: Arc::new(config),
    };
    Router::new()
        .route("/", get(login_form))
        .route("/login", get(login_form).post(login_submit))
        .route("/dashboard", get(dashboard))
        .route("/api/report", get(report))
        .route("/logout", get(logout))
        .route("/healthz", get(|| async { "ok" }))
        .route("/favicon.ico", get(|| async { StatusCode::NO_CONTENT }))
        .fallback(|| async { (StatusCode::NOT_FOUND, "not found") })
        .with_state(state)
}

#[derive(Clone)]
struct AppState {
    config: Arc<DemoConfig>,
}

#[derive(Debug, Deserialize)]
struct LayoutQuery {
    layout: Option<String>,
}

/// The layout for this request and the query suffix that keeps it on the next page: a
/// `?layout=` parameter wins over the app-wide default.
fn resolve_layout(
    state: &AppState,
    query: &LayoutQuery,
) -> Result<(Layout, String), LayoutParseError> {
    match query.layout.as_deref() {
        None => Ok((state.config.layout, String::new())),
        Some(text) => {
            let layout = text.parse::<Layout>()?;
            Ok((layout, format!("?layout={}", layout.as_str())))
        }
    }
}

/// An unknown `?layout=` answers 400 with the parse error's message.
impl IntoResponse for LayoutParseError {
    fn into_response(self) -> Response {
        (StatusCode::BAD_REQUEST, self.to_string()).into_response()
    }
}

/// The signed-in user, when the request carries a session cookie for the demo account.
fn session_user(headers: &HeaderMap, state: &AppState) -> Option<String> {
    let expected = &state.config.credentials.username;
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(name, value)| *name == SESSION_COOKIE && value == expected)
        .map(|(_, value)| value.to_owned())
}

fn html_page(status: StatusCode, body: String) -> Response {
    (
        status,
        [(header::CACHE_CONTROL, HeaderValue::from_static("no-store"))],
        Html(body),
    )
        .into_response()
}

fn redirect(location: &str) -> Response {
    match HeaderValue::from_str(location) {
        Ok(value) => (StatusCode::SEE_OTHER, [(header::LOCATION, value)]).into_response(),
        Err(_) => (StatusCode::INTERNAL_SERVER_ERROR, "bad redirect target").into_response(),
    }
}

/// Waits the configured latency and returns how long that was, in milliseconds.
async fn apply_latency(state: &AppState) -> u64 {
    let ms = state.config.latency.sample_ms();
    if ms > 0 {
        // At info level, for benchmarks that set the app's own waits against a run's time.
        tracing::info!(latency_ms = ms, "applied app latency");
        tokio::time::sleep(Duration::from_millis(ms)).await;
    }
    ms
}

/// Adds the header that reports the applied latency.
fn with_latency(mut response: Response, ms: u64) -> Response {
    response.headers_mut().insert(
        HeaderName::from_static(LATENCY_HEADER),
        HeaderValue::from(ms),
    );
    response
}

async fn login_form(
    State(state): State<AppState>,
    Query(query): Query<LayoutQuery>,
) -> Result<Response, LayoutParseError> {
    let (layout, suffix) = resolve_layout(&state, &query)?;
    let body = login_page::render(layout, &suffix, &state.config.credentials, None, "");
    Ok(html_page(StatusCode::OK, body))
}

#[derive(Debug, Deserialize)]
struct LoginForm {
    #[serde(default)]
    username: String,
    #[serde(default)]
    password: String,
}

async fn login_submit(
    State(state): State<AppState>,
    Query(query): Query<LayoutQuery>,
    Form(form): Form<LoginForm>,
) -> Result<Response, LayoutParseError> {
    let (layout, suffix) = resolve_layout(&state, &query)?;
    let latency = apply_latency(&state).await;
    let credentials = &state.config.credentials;
    if form.username == credentials.username && form.password == credentials.password {
        let cookie = format!(
            "{SESSION_COOKIE}={}; Path=/; HttpOnly; SameSite=Lax",
            credentials.username
        );
        let Ok(cookie) = HeaderValue::from_str(&cookie) else {
            return Ok((
                StatusCode::INTERNAL_SERVER_ERROR,
                "user name unusable in a cookie",
            )
                .into_response());
        };
        let mut response = redirect(&format!("/dashboard{suffix}"));
        response.headers_mut().insert(header::SET_COOKIE, cookie);
        return Ok(with_latency(response, latency));
    }
    let body = login_page::render(
        layout,
        &suffix,
        credentials,
        Some("Wrong username or password."),
        &form.username,
    );
    Ok(with_latency(
        html_page(StatusCode::UNAUTHORIZED, body),
        latency,
    ))
}

async fn dashboard(
    State(state): State<AppState>,
    Query(query): Query<LayoutQuery>,
    headers: HeaderMap,
) -> Result<Response, LayoutParseError> {
    let (layout, suffix) = resolve_layout(&state, &query)?;
    Ok(match session_user(&headers, &state) {
        Some(user) => html_page(
            StatusCode::OK,
            dashboard_page::render(layout, &suffix, &user),
        ),
        None => redirect(&format!("/{suffix}")),
    })
}

async fn report(State(state): State<AppState>, headers: HeaderMap) -> Response {
    if session_user(&headers, &state).is_none() {
        return (
            StatusCode::UNAUTHORIZED,
            Json(serde_json::json!({ "error": "not signed in" })),
        )
            .into_response();
    }
    let latency = apply_latency(&state).await;
    let body = serde_json::json!({
        "invoices": invoices::INVOICES.len(),
        "total_cents": invoices::total_cents(),
        "total": invoices::format_money(invoices::total_cents()),
        "latency_ms": latency,
    });
    with_latency(Json(body).into_response(), latency)
}

async fn logout(
    Query(query): Query<LayoutQuery>,
    State(state): State<AppState>,
) -> Result<Response, LayoutParseError> {
    let (_, suffix) = resolve_layout(&state, &query)?;
    let mut response = redirect(&format!("/{suffix}"));
    response.headers_mut().insert(
        header::SET_COOKIE,
        HeaderValue::from_static(
            "retrace_demo_session=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax",
        ),
    );
    Ok(response)
}
