//! A tiny HTTP server on 127.0.0.1 serving fixed HTML pages, for browser tests that need a
//! page but not the demo app. It runs on its own thread and runtime, so it answers whatever
//! the test's runtime is doing, and stops when dropped.
//!
//! [`serve_html_holding`] adds one response the test holds back until it calls
//! [`HeldResponse::release`]: a late script, a slow page, a request in flight for exactly as
//! long as the test wants, with no timing assumed. [`serve_html_slow`] adds one the server
//! answers a fixed time late, as a slow backend does, for a test run as a whole by a child
//! process that nothing can release in between.

use std::net::SocketAddr;

use crate::router_thread::RouterThread;

/// A running page server; stops when dropped.
#[derive(Debug)]
pub struct HtmlServer {
    server: RouterThread,
}

impl HtmlServer {
    /// `http://127.0.0.1:PORT` followed by `path` (which starts with `/`).
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.server.addr())
    }

    /// The bound address.
    pub fn addr(&self) -> SocketAddr {
        self.server.addr()
    }
}

/// Serves each `(path, html)` pair at its path (`text/html`) on a random port of 127.0.0.1;
/// other paths answer 404. Panics if the server cannot start (test-only code).
pub fn serve_html(pages: &[(&str, &str)]) -> HtmlServer {
    serve_router(pages_router(pages))
}

fn pages_router(pages: &[(&str, &str)]) -> axum::Router {
    let mut router = axum::Router::new();
    for (path, html) in pages {
        let html = (*html).to_owned();
        router = router.route(
            path,
            axum::routing::get(move || {
                let html = html.clone();
                async move { axum::response::Html(html) }
            }),
        );
    }
    router
}

fn serve_router(router: axum::Router) -> HtmlServer {
    HtmlServer {
        server: RouterThread::serve(router),
    }
}

/// A response the server holds back until the test releases it.
#[derive(Debug, Clone)]
pub struct HeldResponse {
    requests: std::sync::Arc<std::sync::atomic::AtomicUsize>,
    waiting: std::sync::Arc<std::sync::atomic::AtomicUsize>,
    release: std::sync::Arc<tokio::sync::watch::Sender<bool>>,
}

impl HeldResponse {
    /// How many requests for the held path have arrived (answered or not).
    pub fn requests(&self) -> usize {
        self.requests.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// How many are held now: arrived, not answered, and their client still connected (a
    /// browser that closes the page loading it closes the connection, which ends the wait).
    pub fn waiting(&self) -> usize {
        self.waiting.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// Lets every waiting and future request for the held path be answered.
    pub fn release(&self) {
        self.release.send_replace(true);
    }
}

/// Serves `pages` like [`serve_html`], plus `held_path`, answered with `body` as
/// `content_type` only once [`HeldResponse::release`] is called.
pub fn serve_html_holding(
    pages: &[(&str, &str)],
    held_path: &str,
    content_type: &'static str,
    body: &str,
) -> (HtmlServer, HeldResponse) {
    let (release, _) = tokio::sync::watch::channel(false);
    let held = HeldResponse {
        requests: std::sync::Arc::default(),
        waiting: std::sync::Arc::default(),
        release: std::sync::Arc::new(release),
    };
    let handler_state = held.clone();
    let body = body.to_owned();
    let router = pages_router(pages).route(
        held_path,
        axum::routing::get(move || {
            let held = handler_state.clone();
            let body = body.clone();
            async move {
                held.requests
                    .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                // Counted while this future lives: the server drops it when the client goes.
                let _waiting = Waiting::new(&held.waiting);
                let mut released = held.release.subscribe();
                // An error means the server is shutting down: answer anyway.
                let _ = released.wait_for(|released| *released).await;
                ([(axum::http::header::CONTENT_TYPE, content_type)], body)
            }
        }),
    );
    (serve_router(router), held)
}

/// One held request, counted in `waiting` until it is answered or dropped.
struct Waiting(std::sync::Arc<std::sync::atomic::AtomicUsize>);

impl Waiting {
    fn new(count: &std::sync::Arc<std::sync::atomic::AtomicUsize>) -> Self {
        count.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        Self(std::sync::Arc::clone(count))
    }
}

impl Drop for Waiting {
    fn drop(&mut self) {
        self.0.fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
    }
}

/// Serves `pages` like [`serve_html`], plus `slow_path`, answered with `body` as
/// `content_type` `delay` after each request arrives: a slow server.
pub fn serve_html_slow(
    pages: &[(&str, &str)],
    slow_path: &str,
    delay: std::time::Duration,
    content_type: &'static str,
    body: &str,
) -> HtmlServer {
    let body = body.to_owned();
    let router = pages_router(pages).route(
        slow_path,
        axum::routing::get(move || {
            let body = body.clone();
            async move {
                tokio::time::sleep(delay).await;
                ([(axum::http::header::CONTENT_TYPE, content_type)], body)
            }
        }),
    );
    serve_router(router)
}
