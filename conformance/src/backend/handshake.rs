//! Handshake checks (PROTOCOL.md §2): Origin before the upgrade, the mutual proofs
//! (`challenge` proves the backend, `auth` the extension; the token never on the
//! wire), `ack` shape, the version range, out-of-order and replayed messages, the
//! 10 s handshake deadline, and replacement by `clientId`.

use std::time::Duration;

use browser_bridge_protocol::{MAX_MESSAGE_BYTES, PROTOCOL_VERSION, auth};
use serde_json::{Value, json};

use super::{
    ANSWER_WAIT, BackendTarget, OpenError, client_id, connect_extension, hello, open, prove,
};
use crate::report::{Outcome, Report, ensure};
use crate::wire::{expect_error, is_uuid_v4, short, str_field, u64_field};

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
            hello(version + 1, &client_id()),
            "protocol_mismatch",
        )
        .await,
    );
    report.record(
        "handshake: a v4 hello (token in the clear, no nonce) → reject protocol_mismatch",
        rejected(
            target,
            json!({"type": "hello", "protocolVersion": 4, "extensionVersion": "0.1.0",
                   "clientId": client_id(), "pairingToken": target.token}),
            "protocol_mismatch",
        )
        .await,
    );
    let mut with_token = hello(version, &client_id());
    with_token["pairingToken"] = json!(target.token);
    report.record(
        "handshake: a hello carrying pairingToken → reject invalid_request",
        rejected(target, with_token, "invalid_request").await,
    );
    let mut no_nonce = hello(version, &client_id());
    no_nonce.as_object_mut().map(|o| o.remove("nonce"));
    report.record(
        "handshake: a hello without a nonce → reject invalid_request",
        rejected(target, no_nonce, "invalid_request").await,
    );
    report.record(
        "handshake: wrong extension proof → reject unauthorized + close",
        wrong_proof(target).await,
    );
    report.record(
        "handshake: auth replayed from an earlier connection → reject unauthorized",
        replayed_auth(target).await,
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
        "handshake: auth before hello → reject invalid_request + close",
        rejected(
            target,
            json!({"type": "auth", "proof": "A".repeat(auth::PROOF_CHARS)}),
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

/// `auth` with a proof made from another token → `reject unauthorized`, close.
async fn wrong_proof(target: &BackendTarget) -> Outcome {
    let mut socket = open(&target.ws_url, Some(&target.origin))
        .await
        .map_err(|e| e.to_string())?;
    let hello = hello(u64::from(PROTOCOL_VERSION), &client_id());
    let (_, answer) = prove(&mut socket, &hello, "not-the-token").await?;
    expect_reject(&mut socket, &answer, "unauthorized").await
}

/// An eavesdropper's replay: the `hello` and `auth` of an earlier, successful
/// connection, sent again. The backend's fresh nonce makes the old proof wrong.
async fn replayed_auth(target: &BackendTarget) -> Outcome {
    let hello = hello(u64::from(PROTOCOL_VERSION), &client_id());
    let mut first = open(&target.ws_url, Some(&target.origin))
        .await
        .map_err(|e| e.to_string())?;
    let (challenge, ack) = prove(&mut first, &hello, &target.token).await?;
    first.close().await;
    ensure(ack.get("type") == Some(&json!("ack")), || {
        format!("the genuine handshake was not acked: {}", short(&ack))
    })?;
    let recorded = auth::extension_proof(
        &target.token,
        hello["nonce"].as_str().unwrap_or_default(),
        challenge["nonce"].as_str().unwrap_or_default(),
    );
    let mut replay = open(&target.ws_url, Some(&target.origin))
        .await
        .map_err(|e| e.to_string())?;
    replay.send(&hello).await?;
    let second = replay.recv_json(ANSWER_WAIT).await?;
    ensure(second.get("type") == Some(&json!("challenge")), || {
        format!("expected challenge, got {}", short(&second))
    })?;
    ensure(second["nonce"] != challenge["nonce"], || {
        "the backend reused its nonce".into()
    })?;
    replay
        .send(&json!({"type": "auth", "proof": recorded}))
        .await?;
    let answer = replay.recv_json(ANSWER_WAIT).await?;
    expect_reject(&mut replay, &answer, "unauthorized").await
}

/// `answer` is a `reject` with `code`, then the socket closes.
async fn expect_reject(socket: &mut super::ClientSocket, answer: &Value, code: &str) -> Outcome {
    ensure(answer.get("type") == Some(&json!("reject")), || {
        format!("expected reject, got {}", short(answer))
    })?;
    let error = answer
        .get("error")
        .ok_or_else(|| format!("reject without `error`: {}", short(answer)))?;
    expect_error(error, code)?;
    socket.expect_close(ANSWER_WAIT).await
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
