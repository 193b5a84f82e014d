//! `/extension`: the WebSocket the extension dials into (PROTOCOL.md §1–§3).
//!
//! Origin check before the upgrade (403), a slot from [`crate::server::slots`]
//! (an unproven socket may be closed for a newer one), then the handshake state machine of
//! [`crate::server::handshake`], then the connection loop: requests out, responses and
//! events in, `ping` → `pong`, close after the idle timeout, 1009 for oversized
//! frames, binary frames a protocol error.
//!
//! A peer that stops reading cannot hold the connection open: every write is
//! bounded by the send timeout and by the idle deadline (nothing received for
//! 60 s), after which the socket is dropped without a close handshake (that
//! would block too) and its requests answer `not_connected`. What the hub may
//! queue for a connection is bounded in bytes ([`crate::hub::MAX_QUEUED_BYTES`]).
//! Large frames decode on the blocking pool, at most [`DECODE_PERMITS`] at once,
//! so the runtime's workers keep serving other connections meanwhile.

use std::sync::Arc;
use std::sync::LazyLock;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

use axum::extract::State;
use axum::extract::ws::{CloseFrame, Message as WsMessage, WebSocket, WebSocketUpgrade};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use browser_bridge_protocol::{
    Ack, MAX_MESSAGE_BYTES, Message, PROTOCOL_VERSION, Pong, Reject, Response as WireResponse, auth,
};
use tokio::sync::{Semaphore, mpsc};
use tokio::time::Instant;

use crate::events::now_ms;
use crate::hub::{Attachment, ExtensionHub, ExtensionInfo, Outbound};
use crate::server::handshake::{self, Input, Policy, State as Handshake};
use crate::server::slots::{Folded, MAX_ADMIT_WAIT_MS, MAX_EXTENSION_SOCKETS, Slot};
use crate::server::state::AppState;
use crate::timing::epoch_ms;

/// Close code for a frame above [`MAX_MESSAGE_BYTES`] (RFC 6455 "message too big").
pub const CLOSE_TOO_BIG: u16 = 1009;
/// Close code for a protocol error (binary frame).
pub const CLOSE_PROTOCOL_ERROR: u16 = 1002;
/// Close code after a `reject` or a handshake timeout (policy violation).
pub const CLOSE_POLICY: u16 = 1008;

/// Default time allowed to write one frame to the extension (ms); past it the
/// peer is taken as not reading and the connection is dropped.
pub const SEND_TIMEOUT_MS: u64 = 10_000;

/// Frames above this many bytes are decoded on the blocking pool, not on a
/// runtime worker (decoding is linear: ~1 ms per 100 KiB, see `benches/decode.rs`).
pub const OFFLOAD_DECODE_BYTES: usize = 256 * 1024;

/// Large frames decoded at once, over all connections; others wait their turn.
pub const DECODE_PERMITS: usize = 2;

static DECODE_SLOTS: LazyLock<Semaphore> = LazyLock::new(|| Semaphore::new(DECODE_PERMITS));

static NEXT_CONN: AtomicU64 = AtomicU64::new(1);

/// Close code for an unproven socket closed to admit a newer one (RFC 6455
/// "try again later"; PROTOCOL.md §2).
pub const CLOSE_TRY_AGAIN_LATER: u16 = 1013;

/// An evicted socket's close frame is given this long: the slot is free already,
/// and a peer that does not read must not keep the task.
const EVICTED_CLOSE_WITHIN: Duration = Duration::from_secs(1);

/// Log lines an unauthenticated peer can cause once per socket, each folded to
/// one a second (a flood of sockets must not flood the log).
static REFUSED_ORIGIN: Folded = Folded::new();
static REFUSED_FULL: Folded = Folded::new();
static EVICTED: Folded = Folded::new();
static HANDSHAKE_REJECTED: Folded = Folded::new();
static HANDSHAKE_ENDED: Folded = Folded::new();

/// Decodes one frame; a frame above [`OFFLOAD_DECODE_BYTES`] on the blocking pool
/// under a global limit of [`DECODE_PERMITS`] (the cost is linear, but a 32 MiB
/// frame still takes a fraction of a second of CPU).
///
/// # Errors
/// [`browser_bridge_protocol::DecodeError`], as [`Message::decode`].
pub async fn decode_frame(
    text: axum::extract::ws::Utf8Bytes,
) -> Result<Message, browser_bridge_protocol::DecodeError> {
    off_runtime(text, Message::decode).await
}

/// Runs `work` on `text` inline when the text is small, else on the blocking pool
/// under [`DECODE_PERMITS`].
async fn off_runtime<T: Send + 'static>(
    text: axum::extract::ws::Utf8Bytes,
    work: impl FnOnce(&str) -> T + Send + 'static,
) -> T {
    if text.len() <= OFFLOAD_DECODE_BYTES {
        return work(text.as_str());
    }
    let _permit = DECODE_SLOTS.acquire().await.expect("never closed");
    tokio::task::spawn_blocking(move || work(text.as_str()))
        .await
        .expect("decoding does not panic")
}

/// A decoded frame, and whether an undecodable one was a `response` whose id could
/// be read (so that its request can still be answered).
type Decoded = (Result<Message, browser_bridge_protocol::DecodeError>, bool);

fn decode_noting_response(text: &str) -> Decoded {
    let decoded = Message::decode(text);
    let answerable = matches!(&decoded, Err(e) if e.id.is_some()) && is_response(text);
    (decoded, answerable)
}

/// Axum handler for `GET /extension`. A missing or non-extension `Origin` (or the
/// wrong extension id when one is configured) is HTTP 403 before any upgrade.
pub async fn extension_socket(
    State(state): State<AppState>,
    headers: HeaderMap,
    upgrade: Result<WebSocketUpgrade, axum::extract::ws::rejection::WebSocketUpgradeRejection>,
) -> Response {
    let origin = headers.get(header::ORIGIN).and_then(|v| v.to_str().ok());
    if let Err(e) = handshake::check_extension_origin(origin, state.config.extension_id.as_deref())
    {
        if let Some(folded) = REFUSED_ORIGIN.due(Instant::now()) {
            tracing::warn!(error = %e, folded, "extension socket refused before upgrade");
        }
        return (StatusCode::FORBIDDEN, e.to_string()).into_response();
    }
    let upgrade = match upgrade {
        Ok(upgrade) => upgrade,
        Err(rejection) => return rejection.into_response(),
    };
    let Some((slot, evicted)) = state.extension_slots.wait_for_slot().await else {
        if let Some(folded) = REFUSED_FULL.due(Instant::now()) {
            tracing::warn!(
                folded,
                "extension socket refused: no slot within {MAX_ADMIT_WAIT_MS} ms"
            );
        }
        return (
            StatusCode::SERVICE_UNAVAILABLE,
            format!("too many extension sockets open (at most {MAX_EXTENSION_SOCKETS})"),
        )
            .into_response();
    };
    if evicted && let Some(folded) = EVICTED.due(Instant::now()) {
        tracing::warn!(
            folded,
            "unproven extension socket closed to admit a newer one (too many sockets without the token)"
        );
    }
    upgrade
        .max_message_size(MAX_MESSAGE_BYTES)
        .max_frame_size(MAX_MESSAGE_BYTES)
        .on_upgrade(move |socket| serve_socket(socket, state, slot))
}

async fn serve_socket(mut socket: WebSocket, state: AppState, mut slot: Slot) {
    let policy = Policy {
        token: state.token.to_string(),
        min_protocol_version: state.config.min_protocol_version,
    };
    let timeout = state.config.hello_timeout;
    let Some(hello) = await_hello(&mut socket, &policy, timeout, &mut slot).await else {
        return;
    };
    if !slot.prove() {
        close(
            &mut socket,
            CLOSE_TRY_AGAIN_LATER,
            "too many unproven sockets",
        )
        .await;
        return;
    }
    let conn = NEXT_CONN.fetch_add(1, Ordering::Relaxed);
    let connection_id = uuid::Uuid::new_v4().to_string();
    let ack = Message::Ack(Ack {
        protocol_version: PROTOCOL_VERSION,
        backend_version: env!("CARGO_PKG_VERSION").to_owned(),
        connection_id: connection_id.clone(),
    });
    if socket.send(WsMessage::text(ack.encode())).await.is_err() {
        return;
    }
    let (outbound, outbound_rx) = mpsc::unbounded_channel();
    let queued = Arc::new(AtomicUsize::new(0));
    let info = ExtensionInfo {
        // Made unique among the connected browsers by the hub.
        name: hello.browser_name.unwrap_or_default(),
        browser_version: hello.browser_version.map(|v| crate::events::cut(&v, 128)),
        browser_run_id: hello.browser_run_id,
        client_id: hello.client_id,
        extension_version: hello.extension_version,
        protocol_version: hello.protocol_version,
        user_agent: hello.user_agent,
        connection_id,
        connected_at: now_ms(),
    };
    let client_id = info.client_id.clone();
    state.hub.attach(Attachment {
        conn,
        info,
        outbound,
        queued: queued.clone(),
    });
    let end = run_connection(
        &mut socket,
        Peer {
            conn,
            client_id: &client_id,
            hub: &state.hub,
        },
        Outgoing {
            frames: outbound_rx,
            queued,
        },
        Timeouts {
            idle: state.config.idle_timeout,
            send: state.config.send_timeout,
        },
    )
    .await;
    tracing::info!(conn, client_id = %client_id, reason = end, "extension socket closed");
    state.hub.detach(conn);
}

/// Runs the handshake (§2: hello → challenge → auth → ack) within `timeout` as a
/// whole; `Some(hello)` once the extension proved the token, `None` after a
/// reject or close (already sent).
async fn await_hello(
    socket: &mut WebSocket,
    policy: &Policy,
    timeout: Duration,
    slot: &mut Slot,
) -> Option<browser_bridge_protocol::Hello> {
    let deadline = Instant::now() + timeout;
    let mut state = Handshake::start(auth::encode_nonce(&rand::random()));
    while state.is_pending() {
        let frame = tokio::select! {
            frame = tokio::time::timeout_at(deadline, socket.recv()) => frame,
            () = slot.evicted() => {
                close_within(socket, CLOSE_TRY_AGAIN_LATER, "too many unproven sockets", EVICTED_CLOSE_WITHIN).await;
                return None;
            }
        };
        let transition = match frame {
            Err(_) => handshake::step(state, Input::TimedOut, policy),
            Ok(None) => handshake::step(state, Input::Closed, policy),
            Ok(Some(Err(e))) => {
                if is_too_big(&e) {
                    close(socket, CLOSE_TOO_BIG, "frame above 32 MiB").await;
                    return None;
                }
                handshake::step(state, Input::Closed, policy)
            }
            Ok(Some(Ok(WsMessage::Text(text)))) => {
                handshake::step(state, Input::Text(text.as_str()), policy)
            }
            Ok(Some(Ok(WsMessage::Binary(_)))) => handshake::step(state, Input::Binary, policy),
            // Control frames: tungstenite answers pings itself; keep waiting.
            Ok(Some(Ok(WsMessage::Ping(_) | WsMessage::Pong(_)))) => state.into(),
            Ok(Some(Ok(WsMessage::Close(_)))) => handshake::step(state, Input::Closed, policy),
        };
        state = transition.state;
        if matches!(state, Handshake::AwaitingAuth { .. }) {
            slot.said_hello();
        }
        if let Some(message) = transition.send {
            let send = socket.send(WsMessage::text(message.encode()));
            if !matches!(tokio::time::timeout_at(deadline, send).await, Ok(Ok(()))) {
                return None;
            }
        }
    }
    match state {
        Handshake::Accepted(hello) => Some(*hello),
        Handshake::Rejected(error) => {
            if let Some(folded) = HANDSHAKE_REJECTED.due(Instant::now()) {
                tracing::warn!(code = %error.code, message = %error.message, folded, "handshake rejected");
            }
            let reject = Message::Reject(Reject { error });
            let _ = socket.send(WsMessage::text(reject.encode())).await;
            close(socket, CLOSE_POLICY, "handshake rejected").await;
            None
        }
        Handshake::Closed(why) => {
            if let Some(folded) = HANDSHAKE_ENDED.due(Instant::now()) {
                tracing::info!(reason = why, folded, "handshake ended");
            }
            close(socket, CLOSE_POLICY, why).await;
            None
        }
        Handshake::AwaitingHello { .. } | Handshake::AwaitingAuth { .. } => None,
    }
}

/// Who is at the other end of an accepted connection.
struct Peer<'a> {
    conn: u64,
    client_id: &'a str,
    hub: &'a ExtensionHub,
}

/// The hub's frames for this connection and their queued byte count.
struct Outgoing {
    frames: mpsc::UnboundedReceiver<Outbound>,
    queued: Arc<AtomicUsize>,
}

#[derive(Clone, Copy)]
struct Timeouts {
    /// Close when nothing arrived for this long.
    idle: Duration,
    /// Drop the connection when one frame cannot be written within this.
    send: Duration,
}

/// Why a bounded write did not complete.
enum SendFailure {
    Failed,
    TimedOut,
}

/// Writes one frame, giving up at the send timeout or the idle deadline, whichever
/// comes first: a peer that stops reading must not keep its connection alive.
async fn send_bounded(
    socket: &mut WebSocket,
    frame: WsMessage,
    idle_deadline: Instant,
    timeouts: Timeouts,
) -> Result<(), SendFailure> {
    let deadline = idle_deadline.min(Instant::now() + timeouts.send);
    match tokio::time::timeout_at(deadline, socket.send(frame)).await {
        Ok(Ok(())) => Ok(()),
        Ok(Err(_)) => Err(SendFailure::Failed),
        Err(_) => Err(SendFailure::TimedOut),
    }
}

/// The accepted connection's loop; returns why it ended.
async fn run_connection(
    socket: &mut WebSocket,
    peer: Peer<'_>,
    mut outgoing: Outgoing,
    timeouts: Timeouts,
) -> &'static str {
    let Peer {
        conn,
        client_id,
        hub,
    } = peer;
    let mut last_inbound = Instant::now();
    let ended = |failure: SendFailure| match failure {
        SendFailure::Failed => "send failed",
        SendFailure::TimedOut => "send timed out: the extension is not reading",
    };
    loop {
        let idle_deadline = last_inbound + timeouts.idle;
        tokio::select! {
            frame = socket.recv() => {
                let Some(frame) = frame else { return "peer went away" };
                let frame = match frame {
                    Ok(frame) => frame,
                    Err(e) if is_too_big(&e) => {
                        close_within(socket, CLOSE_TOO_BIG, "frame above 32 MiB", timeouts.send).await;
                        return "frame too big";
                    }
                    Err(_) => return "socket error",
                };
                last_inbound = Instant::now();
                match frame {
                    WsMessage::Text(text) => {
                        let read_at = epoch_ms();
                        let decoded = off_runtime(text, decode_noting_response).await;
                        if let Some(reply) = on_decoded(decoded, conn, client_id, hub, read_at)
                            && let Err(failure) = send_bounded(
                                socket,
                                WsMessage::text(reply.encode()),
                                last_inbound + timeouts.idle,
                                timeouts,
                            )
                            .await
                        {
                            return ended(failure);
                        }
                    }
                    WsMessage::Binary(_) => {
                        close_within(socket, CLOSE_PROTOCOL_ERROR, "binary frames are a protocol error", timeouts.send).await;
                        return "binary frame";
                    }
                    WsMessage::Ping(_) | WsMessage::Pong(_) => {}
                    WsMessage::Close(_) => return "peer closed",
                }
            }
            out = outgoing.frames.recv() => match out {
                Some(Outbound::Send(text, trace)) => {
                    trace.mark("ws_task");
                    let len = text.len();
                    let sent = send_bounded(socket, WsMessage::text(text), idle_deadline, timeouts).await;
                    trace.mark("ws_written");
                    outgoing.queued.fetch_sub(len, Ordering::AcqRel);
                    if let Err(failure) = sent {
                        return ended(failure);
                    }
                }
                Some(Outbound::Close(code, reason)) => {
                    close_within(socket, code, &reason, timeouts.send).await;
                    return "closed by the hub";
                }
                None => return "hub gone",
            },
            () = tokio::time::sleep_until(idle_deadline) => {
                close_within(socket, 1000, "nothing received for too long", timeouts.send).await;
                return "idle timeout";
            }
        }
    }
}

/// Handles one decoded text frame after `ack`; returns a frame to send back, if
/// any.
fn on_decoded(
    (decoded, is_response): Decoded,
    conn: u64,
    client_id: &str,
    hub: &ExtensionHub,
    read_at: f64,
) -> Option<Message> {
    match decoded {
        Ok(Message::Response(response)) => hub.respond(conn, response, read_at),
        Ok(Message::Event(event)) => hub.event(client_id, event.event),
        Ok(Message::Ping(ping)) => return Some(Message::Pong(Pong { nonce: ping.nonce })),
        Ok(Message::Pong(_)) => {}
        Ok(other) => {
            let kind = handshake::message_type(&other);
            tracing::warn!(conn, kind, "unexpected message from the extension ignored");
        }
        Err(e) => match e.id {
            // A malformed response still answers its request, so the caller is not
            // left waiting for the deadline.
            Some(id) if is_response => hub.respond(
                conn,
                WireResponse::err(
                    id,
                    browser_bridge_protocol::BridgeError::internal(format!(
                        "the extension sent an invalid response: {}",
                        e.error.message
                    )),
                ),
                read_at,
            ),
            _ => {
                tracing::warn!(conn, error = %e.error.message, "undecodable frame from the extension ignored")
            }
        },
    }
    None
}

/// True when the JSON object's `type` is `response`; reads only that field.
fn is_response(text: &str) -> bool {
    #[derive(serde::Deserialize)]
    struct Kind<'a> {
        #[serde(rename = "type", borrow)]
        kind: Option<std::borrow::Cow<'a, str>>,
    }
    serde_json::from_str::<Kind<'_>>(text).is_ok_and(|k| k.kind.as_deref() == Some("response"))
}

fn is_too_big(error: &axum::Error) -> bool {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(error);
    while let Some(e) = source {
        if let Some(tungstenite::Error::Capacity(_)) = e.downcast_ref::<tungstenite::Error>() {
            return true;
        }
        source = e.source();
    }
    false
}

/// Sends a close frame, giving up after `within` (a peer that stops reading would
/// block it forever; dropping the socket closes the TCP connection anyway).
async fn close_within(socket: &mut WebSocket, code: u16, reason: &str, within: Duration) {
    let frame = CloseFrame {
        code,
        reason: reason.into(),
    };
    let _ = tokio::time::timeout(within, socket.send(WsMessage::Close(Some(frame)))).await;
}

async fn close(socket: &mut WebSocket, code: u16, reason: &str) {
    close_within(socket, code, reason, Duration::from_millis(SEND_TIMEOUT_MS)).await;
}
