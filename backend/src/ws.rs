//! `/extension`: the WebSocket the extension dials into (PROTOCOL.md §1–§3).
//!
//! Origin check before the upgrade (403), then the handshake state machine of
//! [`crate::handshake`], then the connection loop: requests out, responses and
//! events in, `ping` → `pong`, close after the idle timeout, 1009 for oversized
//! frames, binary frames a protocol error.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use axum::extract::State;
use axum::extract::ws::{CloseFrame, Message as WsMessage, WebSocket, WebSocketUpgrade};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use browser_bridge_protocol::{
    Ack, MAX_MESSAGE_BYTES, Message, PROTOCOL_VERSION, Pong, Reject, Response as WireResponse, auth,
};
use tokio::sync::mpsc;
use tokio::time::Instant;

use crate::events::now_ms;
use crate::handshake::{self, Input, Policy, State as Handshake};
use crate::hub::{Attachment, ExtensionHub, ExtensionInfo, Outbound};
use crate::server::AppState;

/// Close code for a frame above [`MAX_MESSAGE_BYTES`] (RFC 6455 "message too big").
pub const CLOSE_TOO_BIG: u16 = 1009;
/// Close code for a protocol error (binary frame).
pub const CLOSE_PROTOCOL_ERROR: u16 = 1002;
/// Close code after a `reject` or a handshake timeout (policy violation).
pub const CLOSE_POLICY: u16 = 1008;

static NEXT_CONN: AtomicU64 = AtomicU64::new(1);

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
        tracing::warn!(error = %e, "extension socket refused before upgrade");
        return (StatusCode::FORBIDDEN, e.to_string()).into_response();
    }
    let upgrade = match upgrade {
        Ok(upgrade) => upgrade,
        Err(rejection) => return rejection.into_response(),
    };
    upgrade
        .max_message_size(MAX_MESSAGE_BYTES)
        .max_frame_size(MAX_MESSAGE_BYTES)
        .on_upgrade(move |socket| serve_socket(socket, state))
}

async fn serve_socket(mut socket: WebSocket, state: AppState) {
    let policy = Policy {
        token: state.token.to_string(),
        min_protocol_version: state.config.min_protocol_version,
    };
    let hello = match await_hello(&mut socket, &policy, state.config.hello_timeout).await {
        Some(hello) => hello,
        None => return,
    };
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
    let info = ExtensionInfo {
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
    });
    let end = run_connection(
        &mut socket,
        conn,
        &client_id,
        &state.hub,
        outbound_rx,
        state.config.idle_timeout,
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
) -> Option<browser_bridge_protocol::Hello> {
    let deadline = Instant::now() + timeout;
    let mut state = Handshake::start(auth::encode_nonce(&rand::random()));
    while state.is_pending() {
        let frame = tokio::time::timeout_at(deadline, socket.recv()).await;
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
            tracing::warn!(code = %error.code, message = %error.message, "handshake rejected");
            let reject = Message::Reject(Reject { error });
            let _ = socket.send(WsMessage::text(reject.encode())).await;
            close(socket, CLOSE_POLICY, "handshake rejected").await;
            None
        }
        Handshake::Closed(why) => {
            tracing::info!(reason = why, "handshake ended");
            close(socket, CLOSE_POLICY, why).await;
            None
        }
        Handshake::AwaitingHello { .. } | Handshake::AwaitingAuth { .. } => None,
    }
}

/// The accepted connection's loop; returns why it ended.
async fn run_connection(
    socket: &mut WebSocket,
    conn: u64,
    client_id: &str,
    hub: &ExtensionHub,
    mut outbound: mpsc::UnboundedReceiver<Outbound>,
    idle_timeout: Duration,
) -> &'static str {
    let mut last_inbound = Instant::now();
    loop {
        tokio::select! {
            frame = socket.recv() => {
                let Some(frame) = frame else { return "peer went away" };
                let frame = match frame {
                    Ok(frame) => frame,
                    Err(e) if is_too_big(&e) => {
                        close(socket, CLOSE_TOO_BIG, "frame above 32 MiB").await;
                        return "frame too big";
                    }
                    Err(_) => return "socket error",
                };
                last_inbound = Instant::now();
                match frame {
                    WsMessage::Text(text) => {
                        if let Some(reply) = on_text(text.as_str(), conn, client_id, hub)
                            && socket.send(WsMessage::text(reply.encode())).await.is_err()
                        {
                            return "send failed";
                        }
                    }
                    WsMessage::Binary(_) => {
                        close(socket, CLOSE_PROTOCOL_ERROR, "binary frames are a protocol error").await;
                        return "binary frame";
                    }
                    WsMessage::Ping(_) | WsMessage::Pong(_) => {}
                    WsMessage::Close(_) => return "peer closed",
                }
            }
            out = outbound.recv() => match out {
                Some(Outbound::Send(message)) => {
                    if socket.send(WsMessage::text(message.encode())).await.is_err() {
                        return "send failed";
                    }
                }
                Some(Outbound::Close(code, reason)) => {
                    close(socket, code, &reason).await;
                    return "closed by the hub";
                }
                None => return "hub gone",
            },
            () = tokio::time::sleep_until(last_inbound + idle_timeout) => {
                close(socket, 1000, "nothing received for too long").await;
                return "idle timeout";
            }
        }
    }
}

/// Handles one text frame after `ack`; returns a frame to send back, if any.
fn on_text(text: &str, conn: u64, client_id: &str, hub: &ExtensionHub) -> Option<Message> {
    match Message::decode(text) {
        Ok(Message::Response(response)) => hub.respond(conn, response),
        Ok(Message::Event(event)) => hub.events().record(client_id, event.event),
        Ok(Message::Ping(ping)) => return Some(Message::Pong(Pong { nonce: ping.nonce })),
        Ok(Message::Pong(_)) => {}
        Ok(other) => {
            let kind = handshake::message_type(&other);
            tracing::warn!(conn, kind, "unexpected message from the extension ignored");
        }
        Err(e) => match e.id {
            // A malformed response still answers its request, so the caller is not
            // left waiting for the deadline.
            Some(id) if is_response(text) => hub.respond(
                conn,
                WireResponse::err(
                    id,
                    browser_bridge_protocol::BridgeError::internal(format!(
                        "the extension sent an invalid response: {}",
                        e.error.message
                    )),
                ),
            ),
            _ => {
                tracing::warn!(conn, error = %e.error.message, "undecodable frame from the extension ignored")
            }
        },
    }
    None
}

fn is_response(text: &str) -> bool {
    serde_json::from_str::<serde_json::Value>(text)
        .is_ok_and(|v| v.get("type").and_then(serde_json::Value::as_str) == Some("response"))
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

async fn close(socket: &mut WebSocket, code: u16, reason: &str) {
    let frame = CloseFrame {
        code,
        reason: reason.into(),
    };
    let _ = socket.send(WsMessage::Close(Some(frame))).await;
}
