//! Handshake checks (PROTOCOL.md §2): Origin before the upgrade, `ack` shape, the
//! version range, the token, a non-`hello` first message, the 10 s hello deadline,
//! and replacement by `clientId`.

use std::time::Duration;

use browser_bridge_protocol::{MAX_MESSAGE_BYTES, PROTOCOL_VERSION};
use serde_json::{Value, json};

use super::{ANSWER_WAIT, BackendTarget, OpenError, client_id, connect_extension, hello, open};
use crate::conformance::report::{Outcome, Report, ensure};
use crate::conformance::wire::{expect_error, is_uuid_v4, short, str_field, u64_field};

/// Runs the handshake checks.
pub(super) async fn run(target: &BackendTarget, report: &mut Report) {
    report.record(
        "origin: web origin refused with HTTP 403",
        origin_refused(target, Some("http://evil.example")).await,
    );
    report.record(
        "origin: missing origin refused with HTTP 403",
        origin_refused(target, None).await,
    );
    report.record("handshake: ack shape", ack_shape(target).await);
    let version = u64::from(PROTOCOL_VERSION);
    report.record(
        "handshake: version above range → reject protocol_mismatch + close",
        rejected(
            target,
            hello(version + 1, &client_id(), Some(&target.token)),
            "protocol_mismatch",
        )
        .await,
    );
    report.record(
        "handshake: version below range → reject protocol_mismatch + close",
        rejected(
            target,
            hello(1, &client_id(), Some(&target.token)),
            "protocol_mismatch",
        )
        .await,
    );
    report.record(
        "handshake: wrong token → reject unauthorized + close",
        rejected(
            target,
            hello(version, &client_id(), Some("not-the-token")),
            "unauthorized",
        )
        .await,
    );
    report.record(
        "handshake: missing token → reject unauthorized + close",
        rejected(target, hello(version, &client_id(), None), "unauthorized").await,
    );
    report.record(
        "handshake: non-hello first message → reject invalid_request + close",
        rejected(
            target,
            json!({"type": "ping", "nonce": 7}),
            "invalid_request",
        )
        .await,
    );
    report.record(
        "handshake: same clientId replaces the older connection",
        replacement(target).await,
    );
    report.record(
        "transport: a frame above 32 MiB is refused with close code 1009",
        oversized_frame(target).await,
    );
}

/// §1: frames above 32 MiB are refused (close code 1009).
async fn oversized_frame(target: &BackendTarget) -> Outcome {
    let (mut socket, _) = connect_extension(target, &client_id()).await?;
    let padding = "x".repeat(MAX_MESSAGE_BYTES + 1024);
    let frame = format!(
        r#"{{"type":"event","event":{{"event":"conformance_padding","data":"{padding}"}}}}"#
    );
    // The send itself may fail once the backend has closed: the close code decides.
    let _ = socket.send_text(frame).await;
    match socket.close_code(Duration::from_secs(10)).await? {
        Some(1009) => Ok(()),
        Some(code) => Err(format!("closed with code {code}, expected 1009")),
        None => Err("the connection dropped without a close frame (expected code 1009)".into()),
    }
}

async fn origin_refused(target: &BackendTarget, origin: Option<&str>) -> Outcome {
    match open(&target.ws_url, origin).await {
        Err(OpenError::Status(403)) => Ok(()),
        Err(other) => Err(format!("expected HTTP 403, got: {other}")),
        Ok(socket) => {
            socket.close().await;
            Err("the upgrade was accepted".into())
        }
    }
}

async fn ack_shape(target: &BackendTarget) -> Outcome {
    let (socket, ack) = connect_extension(target, &client_id()).await?;
    socket.close().await;
    let version = u64_field(&ack, "protocolVersion")?;
    ensure(version == u64::from(PROTOCOL_VERSION), || {
        format!("ack.protocolVersion is {version}, expected {PROTOCOL_VERSION}")
    })?;
    ensure(!str_field(&ack, "backendVersion")?.is_empty(), || {
        "ack.backendVersion is empty".into()
    })?;
    let connection = str_field(&ack, "connectionId")?;
    ensure(is_uuid_v4(connection), || {
        format!("ack.connectionId `{connection}` is not a UUIDv4")
    })
}

/// Sends `first` as the first frame; expects `reject` with `code`, then a close.
async fn rejected(target: &BackendTarget, first: Value, code: &str) -> Outcome {
    let mut socket = open(&target.ws_url, Some(&target.origin))
        .await
        .map_err(|e| e.to_string())?;
    socket.send(&first).await?;
    let answer = socket.recv_json(ANSWER_WAIT).await?;
    ensure(answer.get("type") == Some(&json!("reject")), || {
        format!("expected reject, got {}", short(&answer))
    })?;
    let error = answer
        .get("error")
        .ok_or_else(|| format!("reject without `error`: {}", short(&answer)))?;
    expect_error(error, code)?;
    socket.expect_close(ANSWER_WAIT).await
}

/// The backend closes a connection that sends no `hello` within 10 s (§2).
pub(super) async fn silent_connection_closed(target: BackendTarget) -> Outcome {
    let mut socket = open(&target.ws_url, Some(&target.origin))
        .await
        .map_err(|e| e.to_string())?;
    socket
        .expect_close(Duration::from_secs(10) + ANSWER_WAIT)
        .await
}

/// A second authenticated connection with the same clientId closes the first.
async fn replacement(target: &BackendTarget) -> Outcome {
    let shared = client_id();
    let (mut first, _) = connect_extension(target, &shared).await?;
    let (second, _) = connect_extension(target, &shared).await?;
    let closed = first.expect_close(ANSWER_WAIT).await;
    second.close().await;
    closed.map_err(|e| format!("the older connection stayed open: {e}"))
}
