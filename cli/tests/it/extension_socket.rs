//! `/extension` against a fake extension over real sockets: Origin check, the
//! handshake (PROTOCOL.md §2), keep-alive and frame rules (§1, §3), events (§11).

use std::time::Duration;

use crate::common::*;
use browser_bridge_protocol::{MAX_MESSAGE_BYTES, PROTOCOL_VERSION, auth};
use futures_util::SinkExt;
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::{self, Message as WsMessage};

async fn expect_reject(ws: &mut Ws, code: &str) -> String {
    let reply = recv(ws).await.expect("a reject");
    assert_eq!(reply["type"], "reject", "{reply}");
    assert_eq!(reply["error"]["code"], code, "{reply}");
    assert_eq!(close_code(ws).await, Some(1008));
    reply["error"]["message"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn good_handshake_is_acked_and_shows_in_status() {
    let server = start(options()).await;
    let mut ws = connect_raw(&server, Some(EXT_ORIGIN)).await.unwrap();
    let hello = hello(PROTOCOL_VERSION, "client-a");
    send(&mut ws, &hello).await;
    let challenge = recv(&mut ws).await.unwrap();
    assert_eq!(challenge["type"], "challenge", "{challenge}");
    let (n_e, n_b) = (
        hello["nonce"].as_str().unwrap(),
        challenge["nonce"].as_str().unwrap(),
    );
    assert_eq!(n_b.len(), auth::NONCE_CHARS);
    assert!(
        auth::verify_backend_proof(
            &server.token,
            n_e,
            n_b,
            challenge["proof"].as_str().unwrap()
        ),
        "the backend proves it knows the token: {challenge}"
    );
    assert!(!challenge.to_string().contains(&server.token));
    let proof = auth::extension_proof(&server.token, n_e, n_b);
    send(&mut ws, &json!({"type":"auth","proof":proof})).await;
    let ack = recv(&mut ws).await.unwrap();
    assert_eq!(ack["type"], "ack");
    assert_eq!(ack["protocolVersion"], PROTOCOL_VERSION);
    assert_eq!(ack["backendVersion"], env!("CARGO_PKG_VERSION"));
    let connection_id = ack["connectionId"].as_str().unwrap();
    assert_eq!(
        uuid::Uuid::parse_str(connection_id)
            .unwrap()
            .get_version_num(),
        4
    );
    wait_connected(&server, "client-a").await;
    let ext = server.hub.status().await.extension.unwrap();
    assert_eq!(ext.extension_version, "0.1.0-test");
    assert_eq!(ext.connection_id, connection_id);
    assert_eq!(ext.user_agent.as_deref(), Some("fake-extension"));
    tokio::time::timeout(Duration::from_secs(5), server.shutdown())
        .await
        .expect("shutdown does not hang on an open extension socket")
        .unwrap();
    assert_eq!(
        close_code(&mut ws).await,
        Some(1001),
        "going away: reconnect later"
    );
}

#[tokio::test]
async fn backend_nonces_are_fresh_per_connection() {
    let server = start(options()).await;
    let mut seen = std::collections::HashSet::new();
    for _ in 0..5 {
        let mut ws = connect_raw(&server, Some(EXT_ORIGIN)).await.unwrap();
        send(&mut ws, &hello(PROTOCOL_VERSION, "c")).await;
        let challenge = recv(&mut ws).await.unwrap();
        assert!(seen.insert(challenge["nonce"].as_str().unwrap().to_owned()));
    }
}

#[tokio::test]
async fn version_above_the_range_is_rejected() {
    let server = start(options()).await;
    let mut ws = connect_raw(&server, Some(EXT_ORIGIN)).await.unwrap();
    send(&mut ws, &hello(PROTOCOL_VERSION + 1, "c")).await;
    let message = expect_reject(&mut ws, "protocol_mismatch").await;
    assert!(message.contains("update the backend"), "{message}");
    assert!(server.hub.status().await.extension.is_none());
}

#[tokio::test]
async fn a_v4_hello_gets_the_version_reason_even_with_a_lenient_minimum() {
    // A v4 hello, as a v4 extension sent it: the token in the clear, no nonce.
    let server = start(options()).await;
    let v4 = json!({"type":"hello","protocolVersion":4,"extensionVersion":"0.1.0",
                    "clientId":"old","pairingToken":server.token});
    let mut ws = connect_raw(&server, Some(EXT_ORIGIN)).await.unwrap();
    send(&mut ws, &v4).await;
    let message = expect_reject(&mut ws, "protocol_mismatch").await;
    assert!(message.contains("update the extension"), "{message}");
    assert!(!message.contains(&server.token));

    // v5 is the oldest version spoken: a lower configured minimum is raised to it.
    let lenient = start(browser_bridge_backend::ServeOptions {
        min_protocol_version: 4,
        ..options()
    })
    .await;
    let mut ws = connect_raw(&lenient, Some(EXT_ORIGIN)).await.unwrap();
    send(&mut ws, &v4).await;
    expect_reject(&mut ws, "protocol_mismatch").await;
}

#[tokio::test]
async fn a_hello_carrying_the_token_is_refused() {
    let server = start(options()).await;
    let mut with_token = hello(PROTOCOL_VERSION, "c");
    with_token["pairingToken"] = json!(server.token);
    let mut ws = connect_raw(&server, Some(EXT_ORIGIN)).await.unwrap();
    send(&mut ws, &with_token).await;
    let message = expect_reject(&mut ws, "invalid_request").await;
    assert!(message.contains("pairingToken"), "{message}");
    assert!(!message.contains(&server.token));
}

#[tokio::test]
async fn a_wrong_extension_proof_is_unauthorized() {
    let server = start(options()).await;
    let mut wrong = server.token.clone();
    wrong.replace_range(0..1, if wrong.starts_with('A') { "B" } else { "A" });
    for token in [wrong.as_str(), ""] {
        let mut ws = connect_raw(&server, Some(EXT_ORIGIN)).await.unwrap();
        let reply = handshake(&mut ws, PROTOCOL_VERSION, "c", token)
            .await
            .unwrap();
        assert_eq!(reply["type"], "reject", "{reply}");
        assert_eq!(reply["error"]["code"], "unauthorized", "{reply}");
        let message = reply["error"]["message"].as_str().unwrap();
        assert!(message.contains("browser-bridge pair"), "{message}");
        assert!(
            !message.contains(&server.token),
            "the token never appears in errors"
        );
        assert_eq!(close_code(&mut ws).await, Some(1008));
    }
    assert!(server.hub.status().await.extension.is_none());
}

#[tokio::test]
async fn an_auth_replayed_from_an_earlier_connection_is_refused() {
    let server = start(options()).await;
    // A genuine extension's connection, recorded by an eavesdropper.
    let hello = hello(PROTOCOL_VERSION, "victim");
    let mut ws = connect_raw(&server, Some(EXT_ORIGIN)).await.unwrap();
    let ack = handshake_with(&mut ws, &hello, &server.token)
        .await
        .unwrap();
    assert_eq!(ack["type"], "ack");
    drop(ws);
    let mut first = connect_raw(&server, Some(EXT_ORIGIN)).await.unwrap();
    send(&mut first, &hello).await;
    let challenge = recv(&mut first).await.unwrap();
    let recorded = auth::extension_proof(
        &server.token,
        hello["nonce"].as_str().unwrap(),
        challenge["nonce"].as_str().unwrap(),
    );
    drop(first);
    // The attacker replays the same hello (same N_E) and the recorded auth.
    let mut ws = connect_raw(&server, Some(EXT_ORIGIN)).await.unwrap();
    send(&mut ws, &hello).await;
    let challenge = recv(&mut ws).await.unwrap();
    assert_eq!(challenge["type"], "challenge");
    send(&mut ws, &json!({"type":"auth","proof":recorded})).await;
    expect_reject(&mut ws, "unauthorized").await;
}

#[tokio::test]
async fn out_of_order_and_malformed_handshakes_are_invalid_requests() {
    let server = start(options()).await;
    let mut short_nonce = hello(PROTOCOL_VERSION, "c");
    short_nonce["nonce"] = json!("abc");
    let mut no_nonce = hello(PROTOCOL_VERSION, "c");
    no_nonce.as_object_mut().unwrap().remove("nonce");
    for first in [
        json!({"type":"ping","nonce":1}),
        json!({"type":"auth","proof":"x".repeat(43)}),
        json!({"type":"response","id":"x","result":{"action":"list_tabs","tabs":[]}}),
        json!({"hello":"no type"}),
        short_nonce,
        no_nonce,
    ] {
        let mut ws = connect_raw(&server, Some(EXT_ORIGIN)).await.unwrap();
        send(&mut ws, &first).await;
        expect_reject(&mut ws, "invalid_request").await;
    }
    let mut ws = connect_raw(&server, Some(EXT_ORIGIN)).await.unwrap();
    ws.send(WsMessage::binary(vec![1, 2, 3])).await.unwrap();
    expect_reject(&mut ws, "invalid_request").await;
    // After the challenge: a second hello, a malformed proof, a request-like frame.
    for second in [
        hello(PROTOCOL_VERSION, "c"),
        json!({"type":"auth","proof":"short"}),
        json!({"type":"auth"}),
        json!({"type":"ping","nonce":1}),
    ] {
        let mut ws = connect_raw(&server, Some(EXT_ORIGIN)).await.unwrap();
        send(&mut ws, &hello(PROTOCOL_VERSION, "c")).await;
        assert_eq!(recv(&mut ws).await.unwrap()["type"], "challenge");
        send(&mut ws, &second).await;
        expect_reject(&mut ws, "invalid_request").await;
    }
}

#[tokio::test]
async fn a_handshake_stalled_after_the_challenge_closes_without_ack() {
    let server = start(options()).await; // handshake timeout 300 ms
    let mut ws = connect_raw(&server, Some(EXT_ORIGIN)).await.unwrap();
    send(&mut ws, &hello(PROTOCOL_VERSION, "c")).await;
    assert_eq!(recv(&mut ws).await.unwrap()["type"], "challenge");
    assert_eq!(close_code(&mut ws).await, Some(1008));
    assert!(server.hub.status().await.extension.is_none());
}

#[tokio::test]
async fn no_hello_in_time_closes_without_reply() {
    let server = start(options()).await; // hello timeout 300 ms
    let mut ws = connect_raw(&server, Some(EXT_ORIGIN)).await.unwrap();
    assert_eq!(close_code(&mut ws).await, Some(1008));
}

fn http_status(result: Result<Ws, tungstenite::Error>) -> u16 {
    match result {
        Err(tungstenite::Error::Http(response)) => response.status().as_u16(),
        Err(other) => panic!("expected an HTTP refusal, got {other}"),
        Ok(_) => panic!("expected an HTTP refusal, got an upgrade"),
    }
}

#[tokio::test]
async fn web_and_missing_origins_get_403_before_the_upgrade() {
    let server = start(options()).await;
    for origin in [
        Some("https://evil.test"),
        Some("http://127.0.0.1:9333"),
        Some("null"),
        None,
    ] {
        assert_eq!(
            http_status(connect_raw(&server, origin).await),
            403,
            "{origin:?}"
        );
    }
    let pinned = start(browser_bridge_backend::ServeOptions {
        extension_id: Some("theonlyid".into()),
        ..options()
    })
    .await;
    assert_eq!(
        http_status(connect_raw(&pinned, Some(EXT_ORIGIN)).await),
        403
    );
    assert!(
        connect_raw(&pinned, Some("chrome-extension://theonlyid"))
            .await
            .is_ok()
    );
}

#[tokio::test]
async fn ping_is_answered_with_pong() {
    let server = start(options()).await;
    let mut ws = connect_extension(&server, "c").await;
    send(&mut ws, &json!({"type":"ping","nonce":424242})).await;
    assert_eq!(
        recv(&mut ws).await.unwrap(),
        json!({"type":"pong","nonce":424242})
    );
}

#[tokio::test]
async fn a_silent_connection_is_closed_after_the_idle_timeout() {
    let server = start(browser_bridge_backend::ServeOptions {
        idle_timeout: Duration::from_millis(400),
        ..options()
    })
    .await;
    let mut ws = connect_extension(&server, "quiet").await;
    assert_eq!(close_code(&mut ws).await, Some(1000));
}

#[tokio::test]
async fn binary_frames_after_ack_are_a_protocol_error() {
    let server = start(options()).await;
    let mut ws = connect_extension(&server, "c").await;
    ws.send(WsMessage::binary(vec![0u8; 16])).await.unwrap();
    assert_eq!(close_code(&mut ws).await, Some(1002));
}

#[tokio::test]
async fn frames_above_32_mib_are_refused_with_1009() {
    let server = start(options()).await;
    let mut ws = connect_extension(&server, "c").await;
    let big = "x".repeat(MAX_MESSAGE_BYTES + 1);
    // The server may close before the whole frame is written; that is the point.
    let _ = ws.send(WsMessage::text(big)).await;
    assert_eq!(close_code(&mut ws).await, Some(1009));
}

#[tokio::test]
async fn events_are_kept_for_status_and_appended_to_the_audit_log() {
    let server = start(options()).await;
    let mut ws = connect_extension(&server, "evented").await;
    let started = json!({"type":"event","event":{"event":"session_started","tabId":7,"url":"https://example.test/","agentWindow":true,"startedAt":1700000000000u64}});
    send(&mut ws, &started).await;
    send(
        &mut ws,
        &json!({"type":"event","event":{"event":"from_the_future","x":1}}),
    )
    .await;
    // A ping after the events: its pong proves both were processed in order.
    send(&mut ws, &json!({"type":"ping","nonce":1})).await;
    assert_eq!(recv(&mut ws).await.unwrap()["type"], "pong");

    let status: Value = http()
        .get(format!("{}/v1/status", server.base_url()))
        .bearer_auth(&server.token)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(status["connected"], true);
    assert_eq!(status["extension"]["clientId"], "evented");
    assert_eq!(status["sessions"][0]["tabId"], 7);
    let events = status["events"].as_array().unwrap();
    assert_eq!(events.len(), 1, "unknown events are ignored: {events:?}");
    assert_eq!(events[0]["event"]["event"], "session_started");
    assert_eq!(events[0]["clientId"], "evented");

    let audit = server.config_dir.join("audit.jsonl");
    let mut text = String::new();
    for _ in 0..200 {
        text = std::fs::read_to_string(&audit).unwrap_or_default();
        if !text.is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let line: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(line["event"]["tabId"], 7);
}
