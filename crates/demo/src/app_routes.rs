//! The invoicing app's routes: the login form and its submit, the dashboard, the report API,
//! sign-out, and the late scripts (`/assets/login.js`, `/assets/dashboard.js`).

use axum::Form;
use axum::Json;
use axum::Router;
use axum::extract::Path;
use axum::extract::Query;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::http::HeaderValue;
use axum::http::StatusCode;
use axum::http::header;
use axum::response::IntoResponse;
use axum::response::Response;
use axum::routing::get;
use serde::Deserialize;

use crate::app_state::AppState;
use crate::app_state::SESSION_COOKIE;
use crate::dashboard_page;
use crate::dashboard_script;
use crate::invoices;
use crate::login_page;
use crate::page_options;
use crate::page_options::AppQuery;
use crate::page_options::PageOptions;
use crate::page_options::QueryError;
use crate::recent_drafts::Draft;
use crate::responses::delay;
use crate::responses::html_page;
use crate::responses::redirect;
use crate::responses::with_latency;
use crate::scripts;

/// The app's routes (state attached by the caller).
pub(crate) fn routes() -> Router<AppState> {
    Router::new()
        .route("/", get(login_form))
        .route("/login", get(login_form).post(login_submit))
        .route("/dashboard", get(dashboard))
        .route("/api/report", get(report))
        .route("/api/drafts", axum::routing::post(save_draft))
        .route("/logout", get(logout))
        .route("/assets/{file}", get(late_script))
}

fn options(state: &AppState, query: &AppQuery) -> Result<PageOptions, QueryError> {
    page_options::resolve(&state.config, query)
}

/// The signed-in user, when the request carries a session cookie for the demo account.
pub(crate) fn session_user(headers: &HeaderMap, state: &AppState) -> Option<String> {
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

/// `POST /api/drafts` `{customer, amount, currency}`: stores a draft; 401 when not signed in.
async fn save_draft(
    State(state): State<AppState>,
    headers: HeaderMap,
    Json(draft): Json<Draft>,
) -> Response {
    if session_user(&headers, &state).is_none() {
        return (StatusCode::UNAUTHORIZED, "not signed in").into_response();
    }
    let count = state.drafts.push(draft);
    Json(serde_json::json!({ "saved": count })).into_response()
}

/// Waits the configured latency and returns how long that was, in milliseconds.
async fn apply_latency(state: &AppState) -> u64 {
    let ms = state.config.latency.sample_ms();
    delay(ms, "applied app latency").await;
    ms
}

async fn login_form(
    State(state): State<AppState>,
    Query(query): Query<AppQuery>,
) -> Result<Response, QueryError> {
    let options = options(&state, &query)?;
    let body = login_page::render(&options, &state.config.credentials, None, "");
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
    Query(query): Query<AppQuery>,
    Form(form): Form<LoginForm>,
) -> Result<Response, QueryError> {
    let options = options(&state, &query)?;
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
        let mut response = redirect(&format!("/dashboard{}", options.carry));
        response.headers_mut().insert(header::SET_COOKIE, cookie);
        return Ok(with_latency(response, latency));
    }
    let body = login_page::render(
        &options,
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
    Query(query): Query<AppQuery>,
    headers: HeaderMap,
) -> Result<Response, QueryError> {
    let options = options(&state, &query)?;
    Ok(match session_user(&headers, &state) {
        Some(user) => {
            let recent = match options.recent_drafts {
                true => state.drafts.card(),
                false => String::new(),
            };
            html_page(
                StatusCode::OK,
                dashboard_page::render(&options, &user, &recent),
            )
        }
        None => redirect(&format!("/{}", options.carry)),
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
    Query(query): Query<AppQuery>,
    State(state): State<AppState>,
) -> Result<Response, QueryError> {
    let options = options(&state, &query)?;
    let mut response = redirect(&format!("/{}", options.carry));
    response.headers_mut().insert(
        header::SET_COOKIE,
        HeaderValue::from_static(
            "retrace_demo_session=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax",
        ),
    );
    Ok(response)
}

/// A page's late script, answered after the request's script delay (reported in the latency
/// header). It needs no session: it is the same for everyone.
async fn late_script(
    State(state): State<AppState>,
    Path(file): Path<String>,
    Query(query): Query<AppQuery>,
) -> Result<Response, QueryError> {
    let options = options(&state, &query)?;
    let body = match file.as_str() {
        scripts::LOGIN_FILE => login_page::script(),
        scripts::DASHBOARD_FILE => dashboard_script::script(&options.faults, options.recent_drafts),
        _ => return Ok((StatusCode::NOT_FOUND, "not found").into_response()),
    };
    let ms = options.script_delay_ms.unwrap_or(0);
    delay(ms, "delayed a late script").await;
    let response = (
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/javascript; charset=utf-8"),
            ),
            (header::CACHE_CONTROL, HeaderValue::from_static("no-store")),
        ],
        body,
    )
        .into_response();
    Ok(with_latency(response, ms))
}
