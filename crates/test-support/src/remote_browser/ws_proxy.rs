//! Forwards an accepted websocket (axum) to a browser's DevTools websocket, message by
//! message, the way a farm or a Grid hub proxies CDP. A kill signal drops both sides without
//! a closing handshake, as when a Grid kills an idle session's browser.

use async_tungstenite::tungstenite::Message as Upstream;
use axum::extract::ws::Message as Downstream;
use axum::extract::ws::WebSocket;
use futures::StreamExt;
use tokio::sync::watch;

/// Relays `client` to `target` (`ws://127.0.0.1:PORT/devtools/...`) until either side ends or
/// `kill` turns true.
pub(crate) async fn proxy(client: WebSocket, target: String, mut kill: watch::Receiver<bool>) {
    let Ok((browser, _)) = async_tungstenite::tokio::connect_async(target.as_str()).await else {
        return;
    };
    let (mut browser_tx, mut browser_rx) = browser.split();
    let (mut client_tx, mut client_rx) = client.split();
    let outbound = async {
        while let Some(Ok(message)) = client_rx.next().await {
            let message = match message {
                Downstream::Text(text) => Upstream::text(text.as_str()),
                Downstream::Binary(bytes) => Upstream::binary(bytes.to_vec()),
                Downstream::Close(_) => break,
                Downstream::Ping(_) | Downstream::Pong(_) => continue,
            };
            if browser_tx.send(message).await.is_err() {
                break;
            }
        }
    };
    let inbound = async {
        use futures::SinkExt;
        while let Some(Ok(message)) = browser_rx.next().await {
            let message = match message {
                Upstream::Text(text) => Downstream::text(text.as_str()),
                Upstream::Binary(bytes) => Downstream::binary(bytes.to_vec()),
                Upstream::Close(_) => break,
                _ => continue,
            };
            if client_tx.send(message).await.is_err() {
                break;
            }
        }
    };
    let killed = async {
        if kill.wait_for(|killed| *killed).await.is_err() {
            // Nobody can kill this session any more: proxy until a side ends.
            std::future::pending::<()>().await;
        }
    };
    tokio::select! {
        () = outbound => {}
        () = inbound => {}
        () = killed => {}
    }
}
