//! A tiny HTTP server on 127.0.0.1 serving fixed HTML pages, for browser tests that need a
//! page but not the demo app. It runs on its own thread and runtime, so it answers whatever
//! the test's runtime is doing, and stops when dropped.

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
    HtmlServer {
        server: RouterThread::serve(router),
    }
}
