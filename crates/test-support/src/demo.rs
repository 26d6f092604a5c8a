//! The demo app (retrace-demo) on 127.0.0.1 with a random port, for end-to-end tests.
//!
//! Async tests call [`start_demo`] and keep the returned server alive for as long as they
//! need it (dropping it stops the app). Sync tests, such as ones that run the `retrace`
//! binary, call [`DemoThread::start`], which serves the app from its own thread and runtime.

use std::net::SocketAddr;

pub use retrace_demo::DemoConfig;
pub use retrace_demo::DemoServer;
pub use retrace_demo::Latency;
pub use retrace_demo::Layout;
pub use retrace_demo::Variant;

/// Loopback, any free port.
fn loopback() -> SocketAddr {
    SocketAddr::from(([127, 0, 0, 1], 0))
}

/// Starts the demo app with `config` on 127.0.0.1 and a free port; `server.url()` is its base
/// URL (`http://127.0.0.1:PORT/`). Panics if it cannot bind (test-only code).
pub async fn start_demo(config: DemoConfig) -> DemoServer {
    retrace_demo::start(config, loopback())
        .await
        .unwrap_or_else(|e| panic!("cannot start the demo app: {e}"))
}

/// [`start_demo`] with the default configuration: layout v1, no latency, `demo` /
/// `retrace-demo-pw`.
pub async fn start_default_demo() -> DemoServer {
    start_demo(DemoConfig::default()).await
}

/// [`start_demo`] serving the content site as `variant` (the baseline, the identical-markup
/// refactor, a seeded regression), everything else default.
pub async fn start_variant(variant: Variant) -> DemoServer {
    start_demo(DemoConfig {
        variant,
        ..DemoConfig::default()
    })
    .await
}

/// The demo app served from a thread of its own, for tests that are not async. Dropping it
/// stops the app and joins the thread.
#[derive(Debug)]
pub struct DemoThread {
    url: String,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl DemoThread {
    /// Starts the app with `config` on 127.0.0.1 and a free port, and returns once it accepts
    /// connections. Panics if it cannot start (test-only code).
    pub fn start(config: DemoConfig) -> DemoThread {
        let (ready_tx, ready_rx) = std::sync::mpsc::channel::<Result<String, String>>();
        let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::spawn(move || {
            let runtime = match tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
            {
                Ok(runtime) => runtime,
                Err(e) => {
                    let _ = ready_tx.send(Err(format!("cannot build a runtime: {e}")));
                    return;
                }
            };
            runtime.block_on(async move {
                match retrace_demo::start(config, loopback()).await {
                    Ok(server) => {
                        let _ = ready_tx.send(Ok(server.url()));
                        let _ = stop_rx.await;
                        let _ = server.shutdown().await;
                    }
                    Err(e) => {
                        let _ = ready_tx.send(Err(e.to_string()));
                    }
                }
            });
        });
        let url = match ready_rx.recv() {
            Ok(Ok(url)) => url,
            Ok(Err(e)) => panic!("cannot start the demo app: {e}"),
            Err(_) => panic!("the demo app thread ended before it started serving"),
        };
        DemoThread {
            url,
            stop: Some(stop_tx),
            thread: Some(thread),
        }
    }

    /// [`DemoThread::start`] serving the content site as `variant`, everything else default.
    pub fn variant(variant: Variant) -> DemoThread {
        DemoThread::start(DemoConfig {
            variant,
            ..DemoConfig::default()
        })
    }

    /// The app's base URL, `http://127.0.0.1:PORT/`.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The signed-in dashboard's HTML as the app serves it to the demo account (its session
    /// cookie), so a test can check the app's own state (a saved draft in the "Recently
    /// saved" card, with `recent_drafts` on).
    pub fn signed_in_dashboard(&self) -> String {
        use std::io::Read;
        use std::io::Write;
        let address = self.url.trim_start_matches("http://").trim_end_matches('/');
        let mut stream = std::net::TcpStream::connect(address)
            .unwrap_or_else(|e| panic!("cannot reach the demo app at {address}: {e}"));
        let request = format!(
            "GET /dashboard HTTP/1.1\r\nHost: {address}\r\nCookie: {}={}\r\nConnection: close\r\n\r\n",
            retrace_demo::SESSION_COOKIE,
            retrace_demo::DEMO_USERNAME
        );
        let mut response = String::new();
        stream
            .write_all(request.as_bytes())
            .and_then(|()| stream.read_to_string(&mut response))
            .unwrap_or_else(|e| panic!("cannot read the dashboard from {address}: {e}"));
        response
    }
}

impl Drop for DemoThread {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn async_helper_serves_the_login_page() {
        let server = start_default_demo().await;
        assert!(server.url().starts_with("http://127.0.0.1:"));
        let (status, body) = fetch(&server.url()).await;
        assert!(status.starts_with("HTTP/1.1 200"), "{status}");
        assert!(body.contains("id=\"sign-in\""));
    }

    #[test]
    fn thread_helper_serves_until_dropped() {
        let demo = DemoThread::start(DemoConfig {
            layout: Layout::V2,
            ..DemoConfig::default()
        });
        let url = demo.url().to_owned();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let (status, body) = runtime.block_on(fetch(&url));
        assert!(status.starts_with("HTTP/1.1 200"), "{status}");
        assert!(body.contains("layout-v2"));
        drop(demo);
        let addr = url
            .trim_start_matches("http://")
            .trim_end_matches('/')
            .to_owned();
        assert!(std::net::TcpStream::connect(addr).is_err());
    }

    /// A minimal HTTP/1.1 GET over a raw socket (this crate has no HTTP client).
    pub(super) async fn fetch(url: &str) -> (String, String) {
        use tokio::io::AsyncReadExt;
        use tokio::io::AsyncWriteExt;
        let addr = url.trim_start_matches("http://").trim_end_matches('/');
        let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
        let request = format!("GET / HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
        stream.write_all(request.as_bytes()).await.unwrap();
        let mut response = String::new();
        stream.read_to_string(&mut response).await.unwrap();
        let (head, body) = response.split_once("\r\n\r\n").unwrap();
        (head.lines().next().unwrap().to_owned(), body.to_owned())
    }
}
