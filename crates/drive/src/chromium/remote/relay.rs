//! [`Relay`]: hands a websocket we opened ourselves to chromiumoxide.
//!
//! chromiumoxide 0.9.1 opens its websocket only from a URL string
//! (`Connection::connect(&str)`): no request headers, and no TLS (its async-tungstenite is
//! built without a TLS feature, so `wss://` fails with `TlsFeatureNotEnabled`). Its
//! `Connection` holds a fixed plain-TCP stream type and the `Handler` that drives it is built
//! only inside `Browser::connect`, so no stream of ours can be handed in. Rather than carry a
//! patched copy of the crate, we open the remote websocket ourselves (headers, rustls, see
//! [`super::transport`]) and give chromiumoxide `ws://127.0.0.1:<port>/<secret>`, a one-client
//! relay that forwards every message both ways. The cost is one loopback hop per CDP message:
//! `benches/remote_relay.rs` measured a round trip at 1.12x the direct one's p50 (+0.3 ms, in
//! a debug build on a loaded machine) and no difference on screenshots. Plain `ws://`
//! endpoints without headers skip the relay and connect directly.
//!
//! The relay accepts one client, and only on its random path, so nothing else on the machine
//! can use the session. When the remote side closes or breaks, the relay records why in the
//! connection's liveness (so errors say so) and drops the local connection without a closing
//! handshake: chromiumoxide sees a broken connection at once (a clean close would leave its
//! pending commands waiting for their timeout).

use std::sync::Arc;

use async_tungstenite::tungstenite::Message;
use async_tungstenite::tungstenite::handshake::server::ErrorResponse;
use async_tungstenite::tungstenite::handshake::server::Request;
use async_tungstenite::tungstenite::handshake::server::Response;
use async_tungstenite::tungstenite::http::StatusCode;
use futures::StreamExt;

use super::transport::RemoteSocket;
use super::transport::unlimited;
use crate::chromium::connection::Liveness;
use crate::error::DriveError;

/// A running relay; dropping it stops it (closing both connections).
#[derive(Debug)]
pub(crate) struct Relay {
    local_url: String,
    task: tokio::task::JoinHandle<()>,
}

impl Relay {
    /// Starts relaying `remote` to the first local client that asks for our path. When the
    /// remote side ends, `liveness` is marked dead with the reason.
    pub(crate) async fn start(
        remote: RemoteSocket,
        liveness: Arc<Liveness>,
    ) -> Result<Self, DriveError> {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .map_err(|e| DriveError::Launch {
                backend: "chromium".to_owned(),
                detail: format!("cannot open the local relay for the remote browser: {e}"),
            })?;
        let port = listener
            .local_addr()
            .map_err(|e| DriveError::Launch {
                backend: "chromium".to_owned(),
                detail: format!("cannot open the local relay for the remote browser: {e}"),
            })?
            .port();
        let path = format!("/retrace-relay/{:032x}", rand::random::<u128>());
        let local_url = format!("ws://127.0.0.1:{port}{path}");
        let task = tokio::spawn(async move {
            let Some(client) = accept_client(listener, &path).await else {
                return;
            };
            pump(remote, client, &liveness).await;
        });
        Ok(Self { local_url, task })
    }

    /// The URL chromiumoxide connects to.
    pub(crate) fn local_url(&self) -> &str {
        &self.local_url
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        self.task.abort();
    }
}

type LocalSocket = async_tungstenite::WebSocketStream<
    async_tungstenite::tokio::TokioAdapter<tokio::net::TcpStream>,
>;

/// Accepts connections until one completes a websocket handshake on `path`.
async fn accept_client(listener: tokio::net::TcpListener, path: &str) -> Option<LocalSocket> {
    loop {
        let (tcp, peer) = match listener.accept().await {
            Ok(accepted) => accepted,
            Err(error) => {
                tracing::debug!(%error, "relay accept");
                continue;
            }
        };
        if let Err(error) = tcp.set_nodelay(true) {
            tracing::debug!(%error, "TCP_NODELAY on the relay's local side");
        }
        let expected = path.to_owned();
        // The callback's signature is tungstenite's; its error type is what it is.
        #[allow(clippy::result_large_err)]
        let check = move |request: &Request, response: Response| {
            if request.uri().path() == expected {
                Ok(response)
            } else {
                let mut refusal = ErrorResponse::new(None);
                *refusal.status_mut() = StatusCode::NOT_FOUND;
                Err(refusal)
            }
        };
        match async_tungstenite::tokio::accept_hdr_async_with_config(tcp, check, Some(unlimited()))
            .await
        {
            Ok(socket) => return Some(socket),
            Err(error) => tracing::debug!(%error, %peer, "relay refused a local connection"),
        }
    }
}

/// Forwards messages both ways until one side ends. When the remote side ends first, marks
/// `liveness` dead with the reason before the local side is dropped.
async fn pump(remote: RemoteSocket, client: LocalSocket, liveness: &Liveness) {
    let (mut remote_tx, mut remote_rx) = remote.split();
    let (mut client_tx, mut client_rx) = client.split();
    let outbound = async {
        while let Some(message) = client_rx.next().await {
            match message {
                Ok(message @ (Message::Text(_) | Message::Binary(_))) => {
                    if remote_tx.send(message).await.is_err() {
                        break;
                    }
                }
                Ok(Message::Close(_)) | Err(_) => break,
                Ok(_) => {}
            }
        }
        // Our side is done: close the remote politely.
        let _ = remote_tx.close(None).await;
    };
    let inbound = async {
        loop {
            match remote_rx.next().await {
                Some(Ok(message @ (Message::Text(_) | Message::Binary(_)))) => {
                    if client_tx.send(message).await.is_err() {
                        return None;
                    }
                }
                Some(Ok(Message::Close(frame))) => {
                    return Some(match frame {
                        Some(frame) => format!(
                            "the remote end closed the connection (code {}{})",
                            u16::from(frame.code),
                            if frame.reason.is_empty() {
                                String::new()
                            } else {
                                format!(": {}", frame.reason)
                            }
                        ),
                        None => "the remote end closed the connection".to_owned(),
                    });
                }
                Some(Ok(_)) => {}
                Some(Err(error)) => {
                    return Some(format!(
                        "the connection to the remote browser broke: {error}"
                    ));
                }
                None => return Some("the remote end closed the connection".to_owned()),
            }
        }
    };
    tokio::select! {
        () = outbound => {}
        reason = inbound => {
            if let Some(reason) = reason {
                tracing::debug!(%reason, "remote browser connection ended");
                liveness.mark_dead(reason);
            }
        }
    }
    // Both halves drop here; the local side goes without a closing handshake.
}
