//! Backend mode: the harness acts as an extension against any backend
//! (PROTOCOL.md §2–§4, §11) and drives actions through the backend's HTTP API.
//!
//! Each check opens its own connections; the request checks keep exactly one
//! authenticated fake extension connected at a time, so the backend has one place
//! to send each action.

mod browsers;
mod calls;
mod clients;
mod handshake;
mod http;
mod requests;
mod runs;

use std::time::Duration;

use browser_bridge_protocol::auth;
use serde_json::{Value, json};
use tokio::net::TcpStream;
use tokio_tungstenite::MaybeTlsStream;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::HeaderValue;

pub use http::{HttpAnswer, HttpApi};

use super::fake::FakeExtension;
use super::report::Report;
use super::wire::JsonSocket;

/// The `Origin` the harness sends by default, like an unpacked extension would.
pub const DEFAULT_ORIGIN: &str = "chrome-extension://bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";

/// How long a well-behaved peer may take to answer one frame.
pub(crate) const ANSWER_WAIT: Duration = Duration::from_secs(5);

/// The backend under test.
#[derive(Debug, Clone)]
pub struct BackendTarget {
    /// The extension endpoint, e.g. `ws://127.0.0.1:9333/extension`.
    pub ws_url: String,
    /// The pairing token the backend expects.
    pub token: String,
    /// The HTTP API base, e.g. `http://127.0.0.1:9333`.
    pub http_base: String,
    /// The `Origin` header sent with the upgrade (a `chrome-extension://` origin).
    pub origin: String,
}

impl BackendTarget {
    /// A target whose HTTP API lives on the same host and port as `ws_url`.
    pub fn new(ws_url: &str, token: &str) -> Self {
        BackendTarget {
            ws_url: ws_url.to_owned(),
            token: token.to_owned(),
            http_base: http_base_of(ws_url),
            origin: DEFAULT_ORIGIN.to_owned(),
        }
    }
}

/// `ws://host:port/anything` → `http://host:port`.
pub fn http_base_of(ws_url: &str) -> String {
    let (scheme, rest) = match ws_url.split_once("://") {
        Some(("wss", rest)) => ("https", rest),
        Some((_, rest)) => ("http", rest),
        None => ("http", ws_url),
    };
    let authority = rest.split('/').next().unwrap_or(rest);
    format!("{scheme}://{authority}")
}

/// Runs every backend-mode check against `target`, recording into `report`.
pub async fn run(target: &BackendTarget, report: &mut Report) {
    // The 10 s no-hello close runs alongside the other checks to save wall time.
    let silent = tokio::spawn(handshake::silent_connection_closed(target.clone()));
    handshake::run(target, report).await;
    requests::run(target, report).await;
    browsers::run(target, report).await;
    runs::run(target, report).await;
    let outcome = silent
        .await
        .unwrap_or_else(|e| Err(format!("check panicked: {e}")));
    report.record("handshake: no hello within 10 s → closed", outcome);
}

/// A client WebSocket to the backend.
pub(crate) type ClientSocket = JsonSocket<MaybeTlsStream<TcpStream>>;

/// Why an upgrade did not give a socket.
#[derive(Debug)]
pub(crate) enum OpenError {
    /// The server answered the upgrade with this HTTP status.
    Status(u16),
    /// Anything else (refused connection, bad URL).
    Other(String),
}

impl std::fmt::Display for OpenError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OpenError::Status(code) => write!(f, "upgrade answered HTTP {code}"),
            OpenError::Other(why) => f.write_str(why),
        }
    }
}

/// Opens a WebSocket to `url` with `origin` as the `Origin` header (none when `None`).
pub(crate) async fn open(url: &str, origin: Option<&str>) -> Result<ClientSocket, OpenError> {
    let mut request = url
        .into_client_request()
        .map_err(|e| OpenError::Other(format!("bad URL {url}: {e}")))?;
    if let Some(origin) = origin {
        let value = HeaderValue::from_str(origin)
            .map_err(|e| OpenError::Other(format!("bad origin {origin}: {e}")))?;
        request.headers_mut().insert("origin", value);
    }
    let connect = tokio_tungstenite::connect_async(request);
    match tokio::time::timeout(ANSWER_WAIT, connect).await {
        Err(_) => Err(OpenError::Other(format!("no upgrade answer from {url}"))),
        Ok(Ok((ws, _))) => Ok(JsonSocket::new(ws)),
        Ok(Err(tokio_tungstenite::tungstenite::Error::Http(response))) => {
            Err(OpenError::Status(response.status().as_u16()))
        }
        Ok(Err(e)) => Err(OpenError::Other(format!("connecting to {url}: {e}"))),
    }
}

/// A v5 `hello` frame as an extension sends it, with a fresh nonce `N_E`.
pub(crate) fn hello(version: u64, client_id: &str) -> Value {
    json!({
        "type": "hello",
        "protocolVersion": version,
        "extensionVersion": "0.0.0-conformance",
        "clientId": client_id,
        "userAgent": "browser-bridge-conformance",
        "nonce": auth::encode_nonce(&rand::random()),
    })
}

/// Sends `hello`, expects `challenge`, and answers `auth` with `P_E` made from
/// `token`; returns the challenge and the backend's next frame. `Err` when the
/// backend answered the hello with anything but a challenge.
pub(crate) async fn prove(
    socket: &mut ClientSocket,
    hello: &Value,
    token: &str,
) -> Result<(Value, Value), String> {
    socket.send(hello).await?;
    let challenge = socket.recv_json(ANSWER_WAIT).await?;
    if challenge.get("type") != Some(&json!("challenge")) {
        return Err(format!(
            "expected challenge, got {}",
            super::wire::short(&challenge)
        ));
    }
    let n_e = hello["nonce"].as_str().unwrap_or_default();
    let n_b = challenge["nonce"].as_str().unwrap_or_default();
    let proof = auth::extension_proof(token, n_e, n_b);
    socket
        .send(&json!({"type": "auth", "proof": proof}))
        .await?;
    let answer = socket.recv_json(ANSWER_WAIT).await?;
    Ok((challenge, answer))
}

/// Connects and completes the handshake as a well-behaved extension (the shared
/// [`FakeExtension`], which checks the backend's proof first, §2); returns the
/// socket and the `ack` frame.
pub(crate) async fn connect_extension(
    target: &BackendTarget,
    client_id: &str,
) -> Result<(ClientSocket, Value), String> {
    connect_with(
        target,
        FakeExtension::new(&target.ws_url, &target.token).client_id(client_id),
    )
    .await
}

/// [`connect_extension`] for a fake built by the caller (a `browserName`).
pub(crate) async fn connect_with(
    target: &BackendTarget,
    fake: FakeExtension,
) -> Result<(ClientSocket, Value), String> {
    let (ws, ack) = fake
        .origin(&target.origin)
        .answer_wait(ANSWER_WAIT)
        .connect()
        .await
        .map_err(|e| e.to_string())?;
    Ok((JsonSocket::new(ws), ack))
}

/// A fresh client id for one connection.
pub(crate) fn client_id() -> String {
    uuid::Uuid::new_v4().to_string()
}
