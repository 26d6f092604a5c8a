//! [`RouterThread`]: an axum router served on 127.0.0.1 from a thread and runtime of its own,
//! so it answers whatever the test's runtime is doing (even while the test blocks), and stops
//! when dropped. The page server and the remote-browser stand-ins are built on it.

use std::future::IntoFuture;
use std::net::SocketAddr;
use std::time::Duration;

/// How long a stopping server waits for its open connections to finish.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(2);

/// A running server; stops (and joins its thread) when dropped.
#[derive(Debug)]
pub struct RouterThread {
    addr: SocketAddr,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl RouterThread {
    /// Serves `router` on a random port of 127.0.0.1. Panics if the server cannot start
    /// (test-only code).
    pub fn serve(router: axum::Router) -> Self {
        Self::serve_with(router, std::future::pending())
    }

    /// Serves `router` and runs `background` (a reaper, a ticker) beside it on the same
    /// runtime, until dropped.
    pub fn serve_with(
        router: axum::Router,
        background: impl Future<Output = ()> + Send + 'static,
    ) -> Self {
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
                .unwrap_or_else(|e| panic!("tokio runtime for a test server: {e}"));
            runtime.spawn(background);
            runtime.block_on(async move {
                let listener = tokio::net::TcpListener::from_std(listener)
                    .unwrap_or_else(|e| panic!("tokio listener: {e}"));
                let stopping = std::sync::Arc::new(tokio::sync::Notify::new());
                let stop_asked = std::sync::Arc::clone(&stopping);
                let serve = axum::serve(listener, router).with_graceful_shutdown(async move {
                    let _ = stop_rx.await;
                    stop_asked.notify_one();
                });
                // A response still held when the server stops (a test that failed before it
                // released one) would keep a graceful shutdown waiting for ever: it gets
                // `SHUTDOWN_GRACE`, then the runtime is dropped with its connections.
                tokio::select! {
                    served = serve.into_future() => {
                        served.unwrap_or_else(|e| panic!("test server: {e}"));
                    }
                    () = async {
                        stopping.notified().await;
                        tokio::time::sleep(SHUTDOWN_GRACE).await;
                    } => {}
                }
            });
        });
        Self {
            addr,
            stop: Some(stop_tx),
            thread: Some(thread),
        }
    }

    /// The bound address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }
}

impl Drop for RouterThread {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
