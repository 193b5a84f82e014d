//! Extension mode: the harness acts as a backend, waits for any extension to
//! connect with its pairing token, and runs the protocol's checks on it
//! (PROTOCOL.md §2, §3, §5, §7, §11).

mod checks;
mod conn;

use std::net::SocketAddr;
use std::time::Duration;

use browser_bridge_protocol::PROTOCOL_VERSION;
use futures_util::StreamExt;
use futures_util::stream::FuturesUnordered;
use serde_json::{Value, json};
use tokio::net::{TcpListener, TcpStream};
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
    /// closed without `reject`, so the extension retries. Ends with the lifecycle
    /// checks (§2): after a plain close the extension says hello again; after a
    /// `reject` it stays away (the extension is left in its fatal state).
    pub async fn run(self, wait: Duration, report: &mut Report) {
        let (socket, origin, hello) = match self.accept(wait).await {
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
        let client_id = hello.get("clientId").cloned().unwrap_or(Value::Null);
        let ack = json!({"type": "ack", "protocolVersion": PROTOCOL_VERSION,
                         "backendVersion": "0.0.0-conformance",
                         "connectionId": uuid::Uuid::new_v4().to_string()});
        let mut socket = socket;
        if let Err(why) = socket.send(&ack).await {
            report.record(
                "handshake: ack accepted (the extension answers our ping)",
                Err(why),
            );
            return;
        }
        checks::run(Conn::new(socket), report).await;
        let reconnected = self.reconnect_then_reject(&client_id).await;
        let rejected = reconnected.is_ok();
        report.record(
            "lifecycle: after a plain close the extension says hello again, same clientId",
            reconnected,
        );
        let terminal = if rejected {
            self.stays_away().await
        } else {
            Err("not run: the extension did not reconnect".into())
        };
        report.record(
            "lifecycle: reject is terminal, no reconnection after it",
            terminal,
        );
    }

    /// Waits for the reconnection that follows our close (backoff starts at 1 s)
    /// and answers it with `reject` (`protocol_mismatch`).
    async fn reconnect_then_reject(&self, client_id: &Value) -> Outcome {
        let (mut socket, _, hello) = self.accept(RECONNECT_WAIT).await?;
        let again = hello.get("clientId").cloned().unwrap_or(Value::Null);
        let reject = json!({"type": "reject", "error": {"code": "protocol_mismatch",
            "message": "conformance harness: this backend accepts v99..v99 only; update the extension"}});
        socket.send(&reject).await?;
        socket.close().await;
        ensure(&again == client_id, || {
            format!("clientId changed from {client_id} to {again}")
        })
    }

    /// No new hello arrives within [`TERMINAL_WAIT`] after a reject.
    async fn stays_away(&self) -> Outcome {
        match self.accept(TERMINAL_WAIT).await {
            Ok((socket, _, _)) => {
                socket.close().await;
                Err(format!(
                    "the extension said hello again within {} s of a reject",
                    TERMINAL_WAIT.as_secs()
                ))
            }
            Err(_) => Ok(()),
        }
    }

    /// The next connection that says hello with our token, within `wait`.
    /// Connections are handled concurrently, so one that stays silent (an
    /// extension not configured yet) does not hold up the next.
    async fn accept(&self, wait: Duration) -> Result<(Socket, Option<String>, Value), String> {
        let deadline = tokio::time::Instant::now() + wait;
        let mut last = String::from("no extension connected");
        let mut handshakes = FuturesUnordered::new();
        loop {
            tokio::select! {
                accepted = self.listener.accept() => {
                    if let Ok((stream, _)) = accepted {
                        handshakes.push(first_hello(stream));
                    }
                }
                Some(result) = handshakes.next(), if !handshakes.is_empty() => match result {
                    Ok((socket, origin, hello)) => {
                        if hello.get("pairingToken").and_then(Value::as_str) == Some(self.token.as_str()) {
                            return Ok((socket, origin, hello));
                        }
                        last = format!("a hello without our token: {}", redacted(&hello));
                        socket.close().await;
                    }
                    Err(why) => last = why,
                },
                () = tokio::time::sleep_until(deadline) => {
                    return Err(format!("none within {} s ({last})", wait.as_secs()));
                }
            }
        }
    }
}

/// Upgrades `stream` (keeping its `Origin`) and reads its first frame (10 s, §2).
async fn first_hello(stream: TcpStream) -> Result<(Socket, Option<String>, Value), String> {
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
    let ws = tokio_tungstenite::accept_hdr_async(stream, callback)
        .await
        .map_err(|e| format!("a connection that was not a WebSocket upgrade: {e}"))?;
    let mut socket = JsonSocket::new(ws);
    let hello = socket
        .recv_json(Duration::from_secs(10))
        .await
        .map_err(|why| format!("a connection sent no hello: {why}"))?;
    Ok((socket, origin, hello))
}

/// An accepted extension socket.
type Socket = JsonSocket<TcpStream>;

/// How long the extension may take to come back after a plain close (its backoff
/// starts at 1 s, with jitter).
const RECONNECT_WAIT: Duration = Duration::from_secs(10);
/// How long the harness watches for a (forbidden) reconnection after a reject.
const TERMINAL_WAIT: Duration = Duration::from_secs(4);

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
