//! Extension mode: the harness acts as a backend, waits for an extension that
//! proves it holds the pairing token, and runs the protocol's checks on it
//! (PROTOCOL.md §2, §3, §5, §7, §11).

mod answers;
mod checks;
mod conn;
mod devtools;
mod downloads;
mod handoff;
mod page_tools;
mod pointer;
mod windows;

use std::net::SocketAddr;
use std::time::Duration;

use browser_bridge_protocol::browser::check_browser_run_id;
use browser_bridge_protocol::{PROTOCOL_VERSION, auth};
use futures_util::StreamExt;
use futures_util::stream::FuturesUnordered;
use serde_json::{Value, json};
use tokio::net::{TcpListener, TcpStream};
use tokio_tungstenite::tungstenite::handshake::server::{Request, Response};

use self::conn::Conn;
use super::report::{Outcome, Report, ensure};
use super::wire::{JsonSocket, Received, short, str_field, u64_field};

/// A listening fake backend, bound before the extension under test is started so
/// that its URL can be given to the extension.
#[derive(Debug)]
pub struct ExtensionHarness {
    listener: TcpListener,
    token: String,
}

impl ExtensionHarness {
    /// Binds `listen` (use `127.0.0.1:0` for a free port); `token` is the pairing
    /// token the extension must prove it holds.
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

    /// The pairing token the extension must prove it holds.
    pub fn token(&self) -> &str {
        &self.token
    }

    /// Waits up to `wait` for an extension that proves our token, then runs every
    /// check on it. A connection that does not complete the proof (an extension
    /// paired with another token closes after our challenge) is dropped without
    /// `reject`, so the extension retries. Ends with the lifecycle checks (§2): after
    /// a plain close the extension says hello again; a peer that does not prove the
    /// token gets no `auth` and is obeyed in nothing; an unproven `reject` is not
    /// terminal; a `reject` after the proofs is (the extension is left fatal).
    pub async fn run(self, wait: Duration, report: &mut Report) {
        let (socket, origin, hello) = match self.accept_proven(wait).await {
            Ok(accepted) => accepted,
            Err(why) => {
                report.record(
                    "handshake: an extension connected and proved our token",
                    Err(why),
                );
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
        self.lifecycle(&client_id, report).await;
    }

    /// The reconnection checks, in order; each needs the one before it.
    async fn lifecycle(&self, client_id: &Value, report: &mut Report) {
        const NOT_RUN: &str = "not run: the extension did not reconnect";
        let mut next = self.reconnect(client_id).await;
        report.record(
            "lifecycle: after a plain close the extension says hello again, same clientId",
            next.as_ref().map(drop).map_err(Clone::clone),
        );
        let steps: [(&str, Impostor); 3] = [
            (
                "handshake: a wrong backend proof → the extension sends no auth and closes",
                Impostor::WrongProof,
            ),
            (
                "handshake: a bare ack without challenge → nothing obeyed, socket closed",
                Impostor::BareAck,
            ),
            (
                "handshake: a reject before the backend proved itself is not terminal",
                Impostor::UnprovenReject,
            ),
        ];
        for (name, impostor) in steps {
            let outcome = match next {
                Ok(socket) => impostor.play(socket).await,
                Err(_) => Err(NOT_RUN.into()),
            };
            let failed = outcome.is_err();
            report.record(name, outcome);
            // The extension keeps retrying after each refusal (backoff 2, 4, 8 s).
            next = if failed {
                Err(NOT_RUN.into())
            } else {
                self.reconnect(client_id).await
            };
            if failed {
                continue;
            }
            report.record(
                format!("lifecycle: the extension retries after {}", impostor.what()),
                next.as_ref().map(drop).map_err(Clone::clone),
            );
        }
        let terminal = match next {
            Ok(socket) => match self.prove_then_reject(socket).await {
                Ok(()) => self.stays_away().await,
                Err(why) => Err(why),
            },
            Err(_) => Err(NOT_RUN.into()),
        };
        report.record(
            "lifecycle: a reject after the proofs is terminal, no reconnection after it",
            terminal,
        );
    }

    /// The next hello (backoff starts at 1 s, doubling, with jitter); checks that
    /// the clientId is unchanged.
    async fn reconnect(&self, client_id: &Value) -> Result<(Socket, Value), String> {
        let (socket, _, hello) = self.accept_hello(RECONNECT_WAIT).await?;
        let again = hello.get("clientId").cloned().unwrap_or(Value::Null);
        if &again != client_id {
            socket.close().await;
            return Err(format!("clientId changed from {client_id} to {again}"));
        }
        Ok((socket, hello))
    }

    /// Completes the proofs on `socket`, then answers `reject` (`protocol_mismatch`).
    async fn prove_then_reject(&self, (mut socket, hello): (Socket, Value)) -> Outcome {
        challenge_and_verify(&mut socket, &hello, &self.token).await?;
        let reject = json!({"type": "reject", "error": {"code": "protocol_mismatch",
            "message": "conformance harness: this backend accepts v99..v99 only; update the extension"}});
        socket.send(&reject).await?;
        socket.close().await;
        Ok(())
    }

    /// No new hello arrives within [`TERMINAL_WAIT`] after a reject.
    async fn stays_away(&self) -> Outcome {
        match self.accept_hello(TERMINAL_WAIT).await {
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

    /// The next connection that proves our token within `wait`.
    async fn accept_proven(
        &self,
        wait: Duration,
    ) -> Result<(Socket, Option<String>, Value), String> {
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            let (mut socket, origin, hello) = self.accept_hello(left).await?;
            match challenge_and_verify(&mut socket, &hello, &self.token).await {
                Ok(()) => return Ok((socket, origin, hello)),
                Err(why) if left.is_zero() => return Err(why),
                Err(_) => socket.close().await,
            }
        }
    }

    /// The next connection that says hello, within `wait`. Connections are handled
    /// concurrently, so one that stays silent does not hold up the next.
    async fn accept_hello(
        &self,
        wait: Duration,
    ) -> Result<(Socket, Option<String>, Value), String> {
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
                    Ok(accepted) => return Ok(accepted),
                    Err(why) => last = why,
                },
                () = tokio::time::sleep_until(deadline) => {
                    return Err(format!("none within {} s ({last})", wait.as_secs()));
                }
            }
        }
    }
}

/// Sends a `challenge` proving `token` and checks the extension's `auth` (§2).
async fn challenge_and_verify(socket: &mut Socket, hello: &Value, token: &str) -> Outcome {
    let n_e = str_field(hello, "nonce")?;
    auth::check_nonce("hello.nonce", n_e).map_err(|e| e.message)?;
    let n_b = auth::encode_nonce(&rand::random());
    let proof = auth::backend_proof(token, n_e, &n_b);
    socket
        .send(&json!({"type": "challenge", "nonce": n_b, "proof": proof}))
        .await?;
    let answer = socket.recv_json(Duration::from_secs(10)).await?;
    ensure(answer.get("type") == Some(&json!("auth")), || {
        format!("expected auth after our challenge, got {}", short(&answer))
    })?;
    let p_e = str_field(&answer, "proof")?;
    ensure(auth::verify_extension_proof(token, n_e, &n_b, p_e), || {
        "the extension's proof does not match our token (paired with another token?)".into()
    })
}

/// A peer on the backend address that does not know the token.
#[derive(Debug, Clone, Copy)]
enum Impostor {
    /// Answers hello with a challenge whose proof is made from another token.
    WrongProof,
    /// Skips the challenge: `ack` at once, then a request.
    BareAck,
    /// Answers hello with `reject` (anyone can send one).
    UnprovenReject,
}

impl Impostor {
    fn what(self) -> &'static str {
        match self {
            Impostor::WrongProof => "a wrong backend proof",
            Impostor::BareAck => "a bare ack",
            Impostor::UnprovenReject => "an unproven reject",
        }
    }

    /// Plays the impostor on a fresh connection; the extension must send nothing
    /// more (no `auth`, no `response`) and close.
    async fn play(self, (mut socket, hello): (Socket, Value)) -> Outcome {
        let n_e = str_field(&hello, "nonce")?.to_owned();
        match self {
            Impostor::WrongProof => {
                let n_b = auth::encode_nonce(&rand::random());
                let proof = auth::backend_proof("not-the-pairing-token", &n_e, &n_b);
                socket
                    .send(&json!({"type": "challenge", "nonce": n_b, "proof": proof}))
                    .await?;
            }
            Impostor::BareAck => {
                socket
                    .send(&json!({"type": "ack", "protocolVersion": PROTOCOL_VERSION,
                                  "backendVersion": "0.0.0-impostor",
                                  "connectionId": uuid::Uuid::new_v4().to_string()}))
                    .await?;
                let _ = socket
                    .send(&json!({"type": "request", "id": uuid::Uuid::new_v4().to_string(),
                                  "timeoutMs": 5000,
                                  "action": {"action": "evaluate", "expression": "return document.cookie"}}))
                    .await;
            }
            Impostor::UnprovenReject => {
                socket
                    .send(&json!({"type": "reject", "error": {"code": "unauthorized",
                        "message": "conformance impostor: reject before any proof"}}))
                    .await?;
            }
        }
        closes_silently(&mut socket).await
    }
}

/// The extension closes the socket without sending another frame.
async fn closes_silently(socket: &mut Socket) -> Outcome {
    match socket.recv(Duration::from_secs(5)).await {
        Received::Closed(_) => Ok(()),
        Received::Json(frame) => Err(format!(
            "the extension sent {} to a peer that did not prove the token",
            short(&frame)
        )),
        Received::Garbage(text) => Err(format!("the extension sent a non-JSON frame: {text}")),
        Received::Silent => Err("the extension left the socket open for 5 s".into()),
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

/// How long the extension may take to come back after a close (its backoff starts
/// at 1 s and doubles at each refusal: the fourth wait is 8 s ± 25 %).
const RECONNECT_WAIT: Duration = Duration::from_secs(15);
/// How long the harness watches for a (forbidden) reconnection after a reject.
const TERMINAL_WAIT: Duration = Duration::from_secs(4);

fn origin_ok(origin: Option<&str>) -> Outcome {
    match origin {
        Some(o) if o.starts_with("chrome-extension://") => Ok(()),
        Some(o) => Err(format!("Origin is `{o}`")),
        None => Err("no Origin header".into()),
    }
}

fn hello_shape(hello: &Value) -> Outcome {
    ensure(hello.get("type") == Some(&json!("hello")), || {
        format!("first frame is not a hello: {}", short(hello))
    })?;
    ensure(hello.get("pairingToken").is_none(), || {
        "the hello carries pairingToken: the token must never cross the wire".into()
    })?;
    auth::check_nonce("hello.nonce", str_field(hello, "nonce")?).map_err(|e| e.message)?;
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
    }?;
    match hello.get("browserRunId") {
        None => Ok(()),
        Some(Value::String(run)) => check_browser_run_id(run).map_err(|e| e.message),
        Some(other) => Err(format!("browserRunId is not a string: {other}")),
    }
}
