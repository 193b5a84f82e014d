//! HTTP clients prove the server before they send the token (PROTOCOL.md §2.1):
//! `GET /v1/hello` on the real serve, and a squatter — a plain TCP listener that
//! records every byte it is sent — on the address `act`, `status`, `mcp` and `run`
//! are pointed at. Each must refuse, exit non-zero naming the
//! address, and never send the token.

mod squatter;

use crate::common::*;
use browser_bridge_backend::client::hello::fresh_nonce;
use browser_bridge_backend::{Bridge, Probe, RemoteBridge};
use browser_bridge_protocol::auth::{server_proof, verify_server_proof};
use browser_bridge_protocol::{Action, ErrorCode, PROTOCOL_VERSION};
use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_browser-bridge");

// ---------------------------------------------------------------- the real serve

async fn get_hello(server: &browser_bridge_backend::ServerHandle, query: &str) -> (u16, Value) {
    let response = http()
        .get(format!("{}/v1/hello{query}", server.base_url()))
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

#[tokio::test]
async fn serve_proves_it_knows_the_token_without_being_sent_it() {
    let server = start(options()).await;
    let nonce = fresh_nonce();
    let response = http()
        .get(format!("{}/v1/hello?nonce={nonce}", server.base_url()))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 200);
    assert_eq!(response.headers()["cache-control"], "no-store");
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["protocolVersion"], PROTOCOL_VERSION);
    let proof = body["proof"].as_str().unwrap();
    let at = server.addr.to_string();
    assert_eq!(proof, server_proof(&server.token, &nonce, &at));
    assert!(verify_server_proof(&server.token, &nonce, &at, proof));
    assert!(!verify_server_proof("another-token", &nonce, &at, proof));
    // A fresh nonce gets another proof: an answer cannot be replayed.
    let (_, again) = get_hello(&server, &format!("?nonce={}", fresh_nonce())).await;
    assert_ne!(again["proof"], body["proof"]);
    // The shortest and longest nonces are taken.
    for n in [16, 128] {
        let (status, body) = get_hello(&server, &format!("?nonce={}", "a".repeat(n))).await;
        assert_eq!(status, 200, "{n}: {body}");
    }
}

#[tokio::test]
async fn bad_nonces_are_400_invalid_request_naming_nonce() {
    let server = start(options()).await;
    for query in [
        String::new(),
        "?nonce=".into(),
        format!("?nonce={}", "a".repeat(15)),
        format!("?nonce={}", "a".repeat(129)),
        format!("?nonce={}%2B", "a".repeat(20)), // '+' is not base64url
        format!("?nonce={}.", "a".repeat(20)),
        format!("?nonce={}=", "a".repeat(42)), // no padding
        "?nonce=%ZZ".into(),
        format!("?other={}", fresh_nonce()),
    ] {
        let (status, body) = get_hello(&server, &query).await;
        assert_eq!(status, 400, "{query}: {body}");
        assert_eq!(body["error"]["code"], "invalid_request", "{query}: {body}");
        let message = body["error"]["message"].as_str().unwrap();
        assert!(message.starts_with("nonce: "), "{query}: {message}");
    }
}

#[tokio::test]
async fn web_origins_and_foreign_hosts_are_refused_like_the_other_routes() {
    let server = start(options()).await;
    let nonce = fresh_nonce();
    for (name, value) in [
        ("origin", "https://evil.test"),
        ("origin", "null"),
        ("host", "rebind.evil.test:9333"),
    ] {
        let mut answers = Vec::new();
        for path in [format!("/v1/hello?nonce={nonce}"), "/v1/status".into()] {
            let response = http()
                .get(format!("{}{path}", server.base_url()))
                .header(name, value)
                .send()
                .await
                .unwrap();
            let status = response.status().as_u16();
            answers.push((status, response.json::<Value>().await.unwrap()));
        }
        assert_eq!(answers[0].0, 403, "{name}: {value}");
        assert_eq!(answers[0], answers[1], "{name}: {value}");
    }
    // An extension origin may ask, as it may call the other routes.
    let response = http()
        .get(format!("{}/v1/hello?nonce={nonce}", server.base_url()))
        .header("origin", EXT_ORIGIN)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 200);
}

#[tokio::test]
async fn remote_bridge_proves_the_real_serve_then_acts() {
    let server = start(options()).await;
    let ws = connect_extension(&server, "c").await;
    wait_connected(&server, "c").await;
    let _ext = serve_requests(ws, echo_evaluate);
    let remote = RemoteBridge::new(server.addr, server.token.clone());
    remote.prove().await.unwrap();
    let result = remote
        .act(Action::from_json(r#"{"action":"evaluate","expression":"return 7"}"#).unwrap())
        .await
        .unwrap();
    assert_eq!(result.action_name(), "evaluate");
    assert_eq!(remote.status().await.unwrap()["connected"], true);
    assert!(matches!(
        browser_bridge_backend::probe(server.addr, &server.token, None).await,
        Probe::Proven(_)
    ));
    // The serve's proof is for its own token: a client holding another refuses
    // before it sends that token, naming the address.
    let stranger = RemoteBridge::new(server.addr, "another-token");
    let error = stranger.prove().await.unwrap_err();
    assert_eq!(error.code, ErrorCode::Unauthorized);
    assert!(
        error.message.contains(&server.base_url()),
        "{}",
        error.message
    );
    assert!(
        error.message.contains("its proof does not match"),
        "{}",
        error.message
    );
}
