//! The content site under `/site/` (signed-out pages, no cookie): the "refactor" playground for
//! visual regression checks. It comes in variants (a baseline and candidates, see
//! [`Variant`]), chosen app-wide with `DemoConfig::variant` and per request with `?variant=`
//! (carried into the navigation links), so two servers on two ports can play "production" and
//! "refactored" and a checker can compare them path by path.
//!
//! Layout: `index` (the page list), `variant` (the variants and their seeded changes),
//! `blocks` + `content` (the content pages as data), `baseline_markup` and `alternate_markup`
//! (two ways to turn them into HTML that look the same), `unsteady` (pages that are hard to
//! screenshot), `stateful` (a page that never holds still, one that remembers a first visit
//! in a cookie), `catalog` (50 generated pages), `assets` (font, images), `animated_gif` (a
//! looping GIF, encoded here), `never_loads` (a response that never completes).

mod alternate_markup;
mod animated_gif;
mod assets;
mod baseline_markup;
mod blocks;
mod catalog;
mod content;
mod index;
mod never_loads;
mod stateful;
mod unsteady;
mod variant;

use axum::Json;
use axum::Router;
use axum::extract::Path;
use axum::extract::Query;
use axum::extract::State;
use axum::http::HeaderValue;
use axum::http::StatusCode;
use axum::http::header;
use axum::response::IntoResponse;
use axum::response::Response;
use axum::routing::get;
use serde::Deserialize;

pub use animated_gif::BAR_COLOUR as ANIMATED_GIF_BAR;
pub use animated_gif::FIRST_FRAME_BAR as ANIMATED_GIF_FIRST_FRAME_BAR;
pub use assets::LAZY_IMAGES;
pub use assets::WEB_FONT_DELAY_MS;
pub use catalog::CATALOG_PAGES;
pub use index::PageKind;
pub use index::SitePage;
pub use index::site_pages;
pub use stateful::FIRST_VISIT_COOKIE;
pub use stateful::FIRST_VISIT_PATH;
pub use stateful::TICKER_PATH;
pub use variant::COLOUR_CHANGE;
pub use variant::Rect;
pub use variant::SeededChange;
pub use variant::Variant;
pub use variant::VariantParseError;
pub use variant::seeded_change;
pub use variant::seeded_change_box;

use crate::app_state::AppState;
use crate::page_options::QueryError;
use crate::responses::delay;
use crate::responses::html_page;
use crate::responses::redirect;
use crate::responses::with_latency;

/// The site's routes (state attached by the caller).
pub(crate) fn routes() -> Router<AppState> {
    Router::new()
        .route("/site", get(site_root))
        .route("/site/", get(home))
        .route("/site/{name}", get(named_page))
        .route("/site/catalog/{number}", get(catalog_page))
        .route("/site/assets/{file}", get(asset))
}

#[derive(Debug, Default, Deserialize)]
struct SiteQuery {
    variant: Option<String>,
}

/// The variant for this request, and `""` or `?variant=NAME` to carry on.
fn resolve(state: &AppState, query: &SiteQuery) -> Result<(Variant, String), QueryError> {
    match query.variant.as_deref() {
        None => Ok((state.config.variant, String::new())),
        Some(text) => {
            let variant = text.parse::<Variant>().map_err(|error| QueryError {
                parameter: "variant",
                message: error.to_string(),
            })?;
            Ok((variant, format!("?variant={}", variant.as_str())))
        }
    }
}

async fn site_root(Query(query): Query<SiteQuery>) -> Response {
    match query.variant {
        Some(variant) => redirect(&format!("/site/?variant={variant}")),
        None => redirect("/site/"),
    }
}

async fn home(
    State(state): State<AppState>,
    Query(query): Query<SiteQuery>,
) -> Result<Response, QueryError> {
    content_page(&state, &query, "/site/")
}

async fn named_page(
    State(state): State<AppState>,
    Path(name): Path<String>,
    Query(query): Query<SiteQuery>,
) -> Result<Response, QueryError> {
    let (_, carry) = resolve(&state, &query)?;
    let path = format!("/site/{name}");
    if content::PATHS.contains(&path.as_str()) {
        return content_page(&state, &query, &path);
    }
    if let Some(html) = unsteady::render(&path, &carry).or_else(|| stateful::render(&path, &carry))
    {
        return Ok(html_page(StatusCode::OK, html));
    }
    Ok(match name.as_str() {
        "pages.json" => Json(index::pages_json()).into_response(),
        "pages.txt" => index::pages_text().into_response(),
        _ => not_found(&path),
    })
}

/// A content page as the request's variant serves it.
fn content_page(state: &AppState, query: &SiteQuery, path: &str) -> Result<Response, QueryError> {
    let (variant, carry) = resolve(state, query)?;
    let Some(page) = content::page(path, variant) else {
        return Ok(not_found(path));
    };
    if variant == Variant::IdenticalMarkup {
        return Ok(html_page(
            StatusCode::OK,
            alternate_markup::render(&page, &carry),
        ));
    }
    let html = baseline_markup::render(&page, &carry);
    let never_loads = seeded_change(variant)
        .is_some_and(|change| variant == Variant::NeverLoads && change.path == path);
    if never_loads {
        return Ok(never_loads::response(html, state.stopping.clone()));
    }
    Ok(html_page(StatusCode::OK, html))
}

async fn catalog_page(
    State(state): State<AppState>,
    Path(number): Path<String>,
    Query(query): Query<SiteQuery>,
) -> Result<Response, QueryError> {
    let (_, carry) = resolve(&state, &query)?;
    let page = number
        .parse::<u32>()
        .ok()
        .and_then(|n| catalog::render(n, &carry));
    Ok(match page {
        Some(html) => html_page(StatusCode::OK, html),
        None => not_found(&format!("/site/catalog/{number}")),
    })
}

async fn asset(Path(file): Path<String>) -> Response {
    let no_store = (header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    if file == assets::WEB_FONT_FILE {
        delay(WEB_FONT_DELAY_MS, "delayed the web font").await;
        let font_type = (header::CONTENT_TYPE, HeaderValue::from_static("font/ttf"));
        let response = ([font_type, no_store], assets::WEB_FONT).into_response();
        return with_latency(response, WEB_FONT_DELAY_MS);
    }
    if file == animated_gif::FILE {
        let gif_type = (header::CONTENT_TYPE, HeaderValue::from_static("image/gif"));
        return ([gif_type, no_store], animated_gif::progress_gif()).into_response();
    }
    match assets::tile_svg(&file) {
        Some(svg) => {
            let svg_type = (
                header::CONTENT_TYPE,
                HeaderValue::from_static("image/svg+xml"),
            );
            ([svg_type, no_store], svg).into_response()
        }
        None => not_found(&format!("/site/assets/{file}")),
    }
}

fn not_found(path: &str) -> Response {
    (
        StatusCode::NOT_FOUND,
        format!("no site page {path}; /site/pages.txt lists every page"),
    )
        .into_response()
}
