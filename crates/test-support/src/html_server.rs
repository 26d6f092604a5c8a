//! A tiny HTTP server on 127.0.0.1 serving fixed HTML pages, for browser tests that need a
//! page but not the demo app. It runs on its own thread and runtime, so it answers whatever
//! the test's runtime is doing, and stops when dropped.

use std::net::SocketAddr;

/// A running page server; stops when dropped.
#[derive(Debug)]
pub struct HtmlServer {
    addr: SocketAddr,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl HtmlServer {
    /// `http://127.0.0.1:PORT` followed by `path` (which starts with `/`).
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// The bound address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }
}

impl Drop for HtmlServer {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
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
    let listener = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap_or_else(|e| panic!("bind 127.0.0.1:0: {e}"));
    listener
        .set_nonblocking(true)
        .unwrap_or_else(|e| panic!("non-blocking listener: {e}"));
    let addr = listener
        .local_addr()
        .unwrap_or_else(|e| panic!("local address: {e}"));
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let thread = std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap_or_else(|e| panic!("tokio runtime for the page server: {e}"));
        runtime.block_on(async move {
            let listener = tokio::net::TcpListener::from_std(listener)
                .unwrap_or_else(|e| panic!("tokio listener: {e}"));
            axum::serve(listener, router)
                .with_graceful_shutdown(async move {
                    let _ = stop_rx.await;
                })
                .await
                .unwrap_or_else(|e| panic!("page server: {e}"));
        });
    });
    HtmlServer {
        addr,
        stop: Some(stop_tx),
        thread: Some(thread),
    }
}
