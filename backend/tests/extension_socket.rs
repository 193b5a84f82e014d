//! `/extension` against a fake extension over real sockets: Origin check, the
//! handshake (PROTOCOL.md §2), keep-alive and frame rules (§1, §3), events (§11).

mod common;

use std::time::Duration;

use browser_bridge_protocol::{MAX_MESSAGE_BYTES, PROTOCOL_VERSION};
use common::*;
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
async fn good_hello_is_acked_and_shows_in_status() {
    let server = start(options()).await;
    let mut ws = connect_raw(&server, Some(EXT_ORIGIN)).await.unwrap();
    send(
        &mut ws,
        &hello(PROTOCOL_VERSION, "client-a", Some(&server.token)),
    )
    .await;
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
async fn version_above_the_range_is_rejected() {
    let server = start(options()).await;
    let mut ws = connect_raw(&server, Some(EXT_ORIGIN)).await.unwrap();
    send(
        &mut ws,
        &hello(PROTOCOL_VERSION + 1, "c", Some(&server.token)),
    )
    .await;
    let message = expect_reject(&mut ws, "protocol_mismatch").await;
    assert!(message.contains("update the backend"), "{message}");
    assert!(server.hub.status().await.extension.is_none());
}

#[tokio::test]
async fn version_below_the_range_is_rejected_unless_allowed() {
    let server = start(options()).await;
    let mut ws = connect_raw(&server, Some(EXT_ORIGIN)).await.unwrap();
    send(
        &mut ws,
        &hello(PROTOCOL_VERSION - 1, "c", Some(&server.token)),
    )
    .await;
    let message = expect_reject(&mut ws, "protocol_mismatch").await;
    assert!(message.contains("update the extension"), "{message}");

    let lenient = start(browser_bridge::ServeOptions {
        min_protocol_version: PROTOCOL_VERSION - 1,
        ..options()
    })
    .await;
    let mut ws = connect_raw(&lenient, Some(EXT_ORIGIN)).await.unwrap();
    send(
        &mut ws,
        &hello(PROTOCOL_VERSION - 1, "old", Some(&lenient.token)),
    )
    .await;
    assert_eq!(recv(&mut ws).await.unwrap()["type"], "ack");
}

#[tokio::test]
async fn wrong_and_missing_tokens_are_unauthorized() {
    let server = start(options()).await;
    let mut wrong = server.token.clone();
    wrong.replace_range(0..1, if wrong.starts_with('A') { "B" } else { "A" });
    for token in [Some(wrong.as_str()), None, Some("")] {
        let mut ws = connect_raw(&server, Some(EXT_ORIGIN)).await.unwrap();
        send(&mut ws, &hello(PROTOCOL_VERSION, "c", token)).await;
        let message = expect_reject(&mut ws, "unauthorized").await;
        assert!(message.contains("browser-bridge pair"), "{message}");
        assert!(
            !message.contains(&server.token),
            "the token never appears in errors"
        );
    }
}

#[tokio::test]
async fn a_first_message_other_than_hello_is_invalid_request() {
    let server = start(options()).await;
    for first in [
        json!({"type":"ping","nonce":1}),
        json!({"type":"response","id":"x","result":{"action":"list_tabs","tabs":[]}}),
        json!({"hello":"no type"}),
    ] {
        let mut ws = connect_raw(&server, Some(EXT_ORIGIN)).await.unwrap();
        send(&mut ws, &first).await;
        expect_reject(&mut ws, "invalid_request").await;
    }
    let mut ws = connect_raw(&server, Some(EXT_ORIGIN)).await.unwrap();
    ws.send(WsMessage::binary(vec![1, 2, 3])).await.unwrap();
    expect_reject(&mut ws, "invalid_request").await;
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
    let pinned = start(browser_bridge::ServeOptions {
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
    let server = start(browser_bridge::ServeOptions {
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
