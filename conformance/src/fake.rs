//! A fake extension, wire only: it dials a backend's `/extension` WebSocket with a
//! `chrome-extension://` Origin, plays the extension's side of the v5 handshake
//! (PROTOCOL.md §2: `hello` with a fresh nonce, `challenge` whose proof it checks,
//! `auth`, `ack`) and then answers every `request` with a closure over the raw
//! JSON. The backend's socket tests, the MCP tests, the `/v1/act` bench and the
//! backend-mode checks all connect through it.
//!
//! ```no_run
//! # async fn demo() -> Result<(), browser_bridge_conformance::fake::FakeError> {
//! use browser_bridge_conformance::fake::{FakeExtension, answer_requests, echo_evaluate};
//! let socket = FakeExtension::new("ws://127.0.0.1:9333/extension", "TOKEN")
//!     .client_id("c-1")
//!     .connect()
//!     .await?
//!     .0;
//! let task = answer_requests(socket, echo_evaluate); // `return 5` → 5
//! # drop(task); Ok(()) }
//! ```

use std::time::Duration;

use browser_bridge_protocol::{PROTOCOL_VERSION, auth};
use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio::net::TcpStream;
use tokio::task::JoinHandle;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::HeaderValue;
use tokio_tungstenite::tungstenite::{self, Message as Frame};
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

/// The `Origin` the fake sends unless told otherwise, like an unpacked extension.
pub const FAKE_ORIGIN: &str = "chrome-extension://bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";

/// The extension's WebSocket to a backend, after the handshake.
pub type ExtensionSocket = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// Why [`FakeExtension::connect`] gave no connected socket.
#[derive(Debug)]
pub enum FakeError {
    /// The server answered the upgrade with this HTTP status (a refused Origin,
    /// a wrong path).
    Status(u16),
    /// No socket: a bad URL or Origin, a refused connection, no upgrade answer
    /// within the wait.
    Connect(String),
    /// The socket opened but the handshake did not end in `ack`: the reason,
    /// with the offending frame.
    Handshake(String),
}

impl std::fmt::Display for FakeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FakeError::Status(code) => write!(f, "upgrade answered HTTP {code}"),
            FakeError::Connect(why) | FakeError::Handshake(why) => f.write_str(why),
        }
    }
}

impl std::error::Error for FakeError {}

/// Where and how the fake extension connects; build with [`FakeExtension::new`]
/// and the setters, then [`FakeExtension::connect`].
#[derive(Debug, Clone)]
pub struct FakeExtension {
    ws_url: String,
    token: String,
    client_id: String,
    browser_name: Option<String>,
    browser_run_id: Option<String>,
    origin: String,
    retry_for: Duration,
    answer_wait: Duration,
}

impl FakeExtension {
    /// A fake for the backend at `ws_url` (`ws://host:port/extension`) paired with
    /// `token`; a fresh random client id, [`FAKE_ORIGIN`], no retries, 10 s for
    /// each frame of the handshake.
    pub fn new(ws_url: impl Into<String>, token: impl Into<String>) -> Self {
        FakeExtension {
            ws_url: ws_url.into(),
            token: token.into(),
            client_id: uuid::Uuid::new_v4().to_string(),
            browser_name: None,
            browser_run_id: None,
            origin: FAKE_ORIGIN.to_owned(),
            retry_for: Duration::ZERO,
            answer_wait: Duration::from_secs(10),
        }
    }

    /// The `clientId` of the `hello` (the backend reports it in `/v1/status`).
    pub fn client_id(mut self, client_id: impl Into<String>) -> Self {
        self.client_id = client_id.into();
        self
    }

    /// The `browserName` of the `hello` (PROTOCOL.md §5 "Browsers"); none by
    /// default.
    pub fn browser_name(mut self, name: impl Into<String>) -> Self {
        self.browser_name = Some(name.into());
        self
    }

    /// The `browserRunId` of the `hello` (PROTOCOL.md §2: one per browser
    /// process); none by default.
    pub fn browser_run_id(mut self, run: impl Into<String>) -> Self {
        self.browser_run_id = Some(run.into());
        self
    }

    /// The `Origin` header of the upgrade.
    pub fn origin(mut self, origin: impl Into<String>) -> Self {
        self.origin = origin.into();
        self
    }

    /// Keep dialling for up to this long while the connection is refused (a
    /// backend child process still starting), every 100 ms.
    pub fn retry_for(mut self, retry_for: Duration) -> Self {
        self.retry_for = retry_for;
        self
    }

    /// How long the upgrade and each handshake frame may take.
    pub fn answer_wait(mut self, answer_wait: Duration) -> Self {
        self.answer_wait = answer_wait;
        self
    }

    /// Opens the socket and completes the handshake: sends `hello` (protocol
    /// version [`PROTOCOL_VERSION`], a fresh nonce `N_E`), checks the
    /// `challenge`'s proof against the token (a backend that cannot prove it is
    /// refused), answers `auth`, and expects `ack`.
    ///
    /// # Errors
    /// [`FakeError::Status`] when the upgrade is refused, [`FakeError::Connect`]
    /// when there is no socket within the retry time, and
    /// [`FakeError::Handshake`] for any answer but a proven `challenge` then
    /// `ack`.
    pub async fn connect(&self) -> Result<(ExtensionSocket, Value), FakeError> {
        let started = tokio::time::Instant::now();
        let mut ws = loop {
            match self.open().await {
                Err(FakeError::Connect(_)) if started.elapsed() < self.retry_for => {
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
                other => break other?,
            }
        };
        let ack = self.handshake(&mut ws).await?;
        Ok((ws, ack))
    }

    async fn open(&self) -> Result<ExtensionSocket, FakeError> {
        let url = &self.ws_url;
        let mut request = url
            .as_str()
            .into_client_request()
            .map_err(|e| FakeError::Connect(format!("bad URL {url}: {e}")))?;
        let origin = HeaderValue::from_str(&self.origin)
            .map_err(|e| FakeError::Connect(format!("bad origin {}: {e}", self.origin)))?;
        request.headers_mut().insert("Origin", origin);
        match tokio::time::timeout(self.answer_wait, tokio_tungstenite::connect_async(request))
            .await
        {
            Err(_) => Err(FakeError::Connect(format!("no upgrade answer from {url}"))),
            Ok(Ok((ws, _))) => Ok(ws),
            Ok(Err(tungstenite::Error::Http(response))) => {
                Err(FakeError::Status(response.status().as_u16()))
            }
            Ok(Err(e)) => Err(FakeError::Connect(format!("connecting to {url}: {e}"))),
        }
    }

    async fn handshake(&self, ws: &mut ExtensionSocket) -> Result<Value, FakeError> {
        let n_e = auth::encode_nonce(&rand::random());
        let mut hello = json!({
            "type": "hello",
            "protocolVersion": PROTOCOL_VERSION,
            "extensionVersion": "0.0.0-fake",
            "clientId": self.client_id,
            "userAgent": "browser-bridge-fake-extension",
            "nonce": n_e,
        });
        if let Some(name) = &self.browser_name {
            hello["browserName"] = name.as_str().into();
        }
        if let Some(run) = &self.browser_run_id {
            hello["browserRunId"] = run.as_str().into();
        }
        send(ws, &hello).await.map_err(FakeError::Handshake)?;
        let challenge = self.next_json(ws).await?;
        if challenge["type"] != "challenge" {
            return Err(FakeError::Handshake(format!(
                "expected challenge, got {challenge}"
            )));
        }
        let n_b = challenge["nonce"].as_str().unwrap_or_default();
        let proven = auth::verify_backend_proof(
            &self.token,
            &n_e,
            n_b,
            challenge["proof"].as_str().unwrap_or_default(),
        );
        if !proven {
            return Err(FakeError::Handshake(format!(
                "the challenge's proof does not match our token: {challenge}"
            )));
        }
        let proof = auth::extension_proof(&self.token, &n_e, n_b);
        send(ws, &json!({"type": "auth", "proof": proof}))
            .await
            .map_err(FakeError::Handshake)?;
        let ack = self.next_json(ws).await?;
        if ack["type"] != "ack" {
            return Err(FakeError::Handshake(format!("expected ack, got {ack}")));
        }
        Ok(ack)
    }

    /// The next text frame as JSON, within the answer wait.
    async fn next_json(&self, ws: &mut ExtensionSocket) -> Result<Value, FakeError> {
        loop {
            let frame = tokio::time::timeout(self.answer_wait, ws.next())
                .await
                .map_err(|_| FakeError::Handshake("no answer within the wait".into()))?;
            match frame {
                Some(Ok(Frame::Text(text))) => {
                    return serde_json::from_str(text.as_str())
                        .map_err(|e| FakeError::Handshake(format!("not JSON ({e}): {text}")));
                }
                Some(Ok(Frame::Close(close))) => {
                    return Err(FakeError::Handshake(format!(
                        "closed during the handshake: {close:?}"
                    )));
                }
                Some(Ok(_)) => continue,
                None | Some(Err(_)) => {
                    return Err(FakeError::Handshake(
                        "socket ended during the handshake".into(),
                    ));
                }
            }
        }
    }
}

async fn send(ws: &mut ExtensionSocket, value: &Value) -> Result<(), String> {
    ws.send(Frame::text(value.to_string()))
        .await
        .map_err(|e| format!("send failed: {e}"))
}

/// Answers each `request` frame with `answer(request)` (the whole frame as JSON;
/// `None`: leave it unanswered) and each `ping` with its `pong`, until the socket
/// ends or a send fails; the task then returns the socket. Abort the task to stop
/// answering.
pub fn answer_requests(
    mut ws: ExtensionSocket,
    mut answer: impl FnMut(&Value) -> Option<Value> + Send + 'static,
) -> JoinHandle<ExtensionSocket> {
    tokio::spawn(async move {
        while let Some(frame) = ws.next().await {
            let text = match frame {
                Ok(Frame::Text(text)) => text,
                Ok(Frame::Close(_)) | Err(_) => break,
                Ok(_) => continue,
            };
            let Ok(message) = serde_json::from_str::<Value>(text.as_str()) else {
                continue;
            };
            let reply = match message["type"].as_str() {
                Some("request") => answer(&message),
                Some("ping") => Some(json!({"type": "pong", "nonce": message["nonce"]})),
                _ => None,
            };
            if let Some(reply) = reply
                && send(&mut ws, &reply).await.is_err()
            {
                break;
            }
        }
        ws
    })
}

/// An answer for [`answer_requests`]: an `evaluate` of `"return N"` (N an
/// integer) answers the number N on tab 1; any other request goes unanswered.
pub fn echo_evaluate(request: &Value) -> Option<Value> {
    let expression = request["action"]["expression"].as_str()?;
    let n: i64 = expression.strip_prefix("return ")?.parse().ok()?;
    Some(json!({
        "type": "response",
        "id": request["id"],
        "result": {"action": "evaluate", "tabId": 1, "type": "number", "value": n},
    }))
}
