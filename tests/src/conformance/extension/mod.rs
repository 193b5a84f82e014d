//! Extension mode: the harness acts as a backend, waits for any extension to
//! connect with its pairing token, and runs the protocol's checks on it
//! (PROTOCOL.md §2, §3, §5, §7, §11).

mod checks;
mod conn;

use std::net::SocketAddr;
use std::time::Duration;

use browser_bridge_protocol::PROTOCOL_VERSION;
use serde_json::{Value, json};
use tokio::net::TcpListener;
use tokio_tungstenite::tungstenite::handshake::server::{Request, Response};

use self::conn::Conn;
use super::report::{Outcome, Report, ensure};
use super::wire::{JsonSocket, short, str_field, u64_field};

/// A listening fake backend, bound before the extension under test is started so
/// that its URL can be given to the extension.
#[derive(Debug)]
pub struct ExtensionHarness {
    listener: TcpListener,
    token: String,
}

impl ExtensionHarness {
    /// Binds `listen` (use `127.0.0.1:0` for a free port); `token` is the pairing
    /// token the extension must present.
    ///
    /// # Errors
    /// The address cannot be bound.
    pub async fn bind(listen: SocketAddr, token: &str) -> std::io::Result<Self> {
        Ok(ExtensionHarness {
            listener: TcpListener::bind(listen).await?,
            token: token.to_owned(),
        })
    }

    /// The bound address.
    pub fn local_addr(&self) -> SocketAddr {
        self.listener
            .local_addr()
            .expect("a bound listener has an address")
    }

    /// The URL to give the extension, `ws://<addr>/extension`.
    pub fn ws_url(&self) -> String {
        format!("ws://{}/extension", self.local_addr())
    }

    /// The pairing token the extension must present.
    pub fn token(&self) -> &str {
        &self.token
    }

    /// Waits up to `wait` for an extension that presents our token, then runs every
    /// check on it. Connections with another token (an extension not paired yet) are
    /// closed without `reject`, so the extension retries.
    pub async fn run(self, wait: Duration, report: &mut Report) {
        let (conn, origin, hello) = match self.accept(wait).await {
            Ok(accepted) => accepted,
            Err(why) => {
                report.record("handshake: an extension connected with our token", Err(why));
                return;
            }
        };
        report.record(
            "handshake: upgrade Origin is chrome-extension://",
            origin_ok(origin.as_deref()),
        );
        report.record("handshake: hello shape", hello_shape(&hello));
        checks::run(conn, report).await;
    }

    async fn accept(&self, wait: Duration) -> Result<(Conn, Option<String>, Value), String> {
        let deadline = tokio::time::Instant::now() + wait;
        let mut last = String::from("no extension connected");
        loop {
            let accepted = tokio::time::timeout_at(deadline, self.listener.accept()).await;
            let Ok(accepted) = accepted else {
                return Err(format!("none within {} s ({last})", wait.as_secs()));
            };
            let Ok((stream, _)) = accepted else { continue };
            let mut origin = None;
            // The callback's error type is tungstenite's, not ours to shrink.
            #[allow(clippy::result_large_err)]
            let callback = |request: &Request, response: Response| {
                origin = request
                    .headers()
                    .get("origin")
                    .and_then(|v| v.to_str().ok())
                    .map(str::to_owned);
                Ok(response)
            };
            let Ok(ws) = tokio_tungstenite::accept_hdr_async(stream, callback).await else {
                last = "a connection that was not a WebSocket upgrade".into();
                continue;
            };
            let mut socket = JsonSocket::new(ws);
            let hello = match socket.recv_json(Duration::from_secs(10)).await {
                Ok(hello) => hello,
                Err(why) => {
                    last = format!("a connection sent no hello: {why}");
                    continue;
                }
            };
            if hello.get("pairingToken").and_then(Value::as_str) != Some(self.token.as_str()) {
                last = format!("a hello without our token: {}", redacted(&hello));
                socket.close().await;
                continue;
            }
            let ack = json!({"type": "ack", "protocolVersion": PROTOCOL_VERSION,
                             "backendVersion": "0.0.0-conformance",
                             "connectionId": uuid::Uuid::new_v4().to_string()});
            socket.send(&ack).await?;
            return Ok((Conn::new(socket), origin, hello));
        }
    }
}

/// The hello without its token, for messages.
fn redacted(hello: &Value) -> String {
    let mut hello = hello.clone();
    if let Some(token) = hello.get_mut("pairingToken") {
        *token = json!("<redacted>");
    }
    short(&hello)
}

fn origin_ok(origin: Option<&str>) -> Outcome {
    match origin {
        Some(o) if o.starts_with("chrome-extension://") => Ok(()),
        Some(o) => Err(format!("Origin is `{o}`")),
        None => Err("no Origin header".into()),
    }
}

fn hello_shape(hello: &Value) -> Outcome {
    ensure(hello.get("type") == Some(&json!("hello")), || {
        format!("first frame is not a hello: {}", redacted(hello))
    })?;
    let version = u64_field(hello, "protocolVersion")?;
    ensure(version == u64::from(PROTOCOL_VERSION), || {
        format!("protocolVersion {version}, expected {PROTOCOL_VERSION}")
    })?;
    ensure(!str_field(hello, "clientId")?.trim().is_empty(), || {
        "clientId is empty".into()
    })?;
    ensure(
        !str_field(hello, "extensionVersion")?.trim().is_empty(),
        || "extensionVersion is empty".into(),
    )?;
    match hello.get("userAgent") {
        None | Some(Value::String(_)) => Ok(()),
        Some(other) => Err(format!("userAgent is not a string: {other}")),
    }
}
