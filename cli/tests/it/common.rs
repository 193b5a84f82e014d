//! Shared helpers for the socket tests: an in-process `serve` on 127.0.0.1:0, the
//! workspace's fake extension (`browser_bridge_conformance::fake`) for a
//! well-behaved extension, and raw frame helpers for the ill-behaved ones.
#![allow(dead_code, unreachable_pub)]

use std::time::Duration;

use browser_bridge_backend::server::{ServeOptions, ServerHandle, start_server};
pub use browser_bridge_conformance::fake::echo_evaluate;
use browser_bridge_conformance::fake::{ExtensionSocket, FakeExtension, answer_requests};
use browser_bridge_protocol::{Message, auth};
use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::HeaderValue;
use tokio_tungstenite::tungstenite::protocol::CloseFrame;
use tokio_tungstenite::tungstenite::{self, Message as WsMessage};

pub type Ws = ExtensionSocket;

pub const EXT_ORIGIN: &str = "chrome-extension://fakeextensionid";

/// A fresh temporary config directory.
pub fn temp_config_dir() -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "bb-test-{}-{}",
        std::process::id(),
        browser_bridge_backend::config::generate_token()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Test defaults: port 0, temp config dir, short hello timeout.
pub fn options() -> ServeOptions {
    ServeOptions {
        listen: "127.0.0.1:0".parse().unwrap(),
        config_dir: Some(temp_config_dir()),
        hello_timeout: Duration::from_millis(300),
        connect_wait: Duration::from_millis(500),
        ..ServeOptions::default()
    }
}

pub async fn start(opts: ServeOptions) -> ServerHandle {
    start_server(opts).await.expect("server starts")
}

/// Opens the WebSocket with `origin` (None: no Origin header).
pub async fn connect_raw(
    server: &ServerHandle,
    origin: Option<&str>,
) -> Result<Ws, tungstenite::Error> {
    let mut request = server.extension_url().into_client_request().unwrap();
    if let Some(origin) = origin {
        request
            .headers_mut()
            .insert("Origin", HeaderValue::from_str(origin).unwrap());
    }
    tokio_tungstenite::connect_async(request)
        .await
        .map(|(ws, _)| ws)
}

/// A v5 `hello` (§2) with a fresh nonce `N_E`: the token is never on the wire.
pub fn hello(version: u32, client_id: &str) -> Value {
    json!({
        "type": "hello",
        "protocolVersion": version,
        "extensionVersion": "0.1.0-test",
        "clientId": client_id,
        "userAgent": "fake-extension",
        "nonce": auth::encode_nonce(&rand::random()),
    })
}

/// Plays the extension's side of the handshake with `hello` and `token`: sends the
/// hello, and on a `challenge` checks nothing (tests of a wrong token need the
/// backend's answer) and answers `auth` with `P_E` made from `token`. Returns the
/// backend's last frame: `ack` or `reject` (or `None` when it closed).
pub async fn handshake_with(ws: &mut Ws, hello: &Value, token: &str) -> Option<Value> {
    send(ws, hello).await;
    let reply = recv(ws).await?;
    if reply["type"] != "challenge" {
        return Some(reply);
    }
    let n_e = hello["nonce"].as_str().unwrap_or_default();
    let n_b = reply["nonce"].as_str().expect("challenge.nonce");
    let proof = auth::extension_proof(token, n_e, n_b);
    send(ws, &json!({"type": "auth", "proof": proof})).await;
    recv(ws).await
}

/// [`handshake_with`] a fresh v`version` hello.
pub async fn handshake(ws: &mut Ws, version: u32, client_id: &str, token: &str) -> Option<Value> {
    handshake_with(ws, &hello(version, client_id), token).await
}

pub async fn send(ws: &mut Ws, value: &Value) {
    ws.send(WsMessage::text(value.to_string())).await.unwrap();
}

/// Next text frame as JSON; `None` when the socket closed (or a close frame came).
pub async fn recv(ws: &mut Ws) -> Option<Value> {
    loop {
        let frame = tokio::time::timeout(Duration::from_secs(10), ws.next())
            .await
            .expect("a frame within 10 s");
        match frame {
            Some(Ok(WsMessage::Text(text))) => return Some(serde_json::from_str(&text).unwrap()),
            Some(Ok(WsMessage::Ping(_) | WsMessage::Pong(_))) => continue,
            _ => return None,
        }
    }
}

/// Waits for the close frame; returns its code (None when the socket just ended).
pub async fn close_code(ws: &mut Ws) -> Option<u16> {
    loop {
        let frame = tokio::time::timeout(Duration::from_secs(10), ws.next())
            .await
            .expect("close within 10 s");
        match frame {
            Some(Ok(WsMessage::Close(Some(CloseFrame { code, .. })))) => return Some(code.into()),
            Some(Ok(WsMessage::Close(None))) | None | Some(Err(_)) => return None,
            Some(Ok(_)) => continue,
        }
    }
}

/// Connects and completes the handshake; panics unless `ack` comes back.
pub async fn connect_extension(server: &ServerHandle, client_id: &str) -> Ws {
    connect_extension_at(&server.extension_url(), &server.token, client_id).await
}

/// [`connect_extension`] to any backend: its `ws://…/extension` URL and token
/// (a `serve` child process, say).
pub async fn connect_extension_at(url: &str, token: &str, client_id: &str) -> Ws {
    FakeExtension::new(url, token)
        .client_id(client_id)
        .origin(EXT_ORIGIN)
        .connect()
        .await
        .unwrap_or_else(|e| panic!("the fake extension connects as {client_id}: {e}"))
        .0
}

/// Waits until the hub reports an extension (the ack is sent just before the hub
/// registers the connection).
pub async fn wait_connected(server: &ServerHandle, client_id: &str) {
    for _ in 0..500 {
        if let Some(ext) = server.hub.status().await.extension
            && ext.client_id == client_id
        {
            return;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    panic!("extension {client_id} never registered");
}

/// Answers each request with `answer(request)` (None: no answer) until the socket
/// ends (the shared fake extension's loop).
pub fn serve_requests(
    ws: Ws,
    answer: impl Fn(&Value) -> Option<Value> + Send + 'static,
) -> tokio::task::JoinHandle<Ws> {
    answer_requests(ws, answer)
}

pub fn http() -> reqwest::Client {
    reqwest::Client::builder().no_proxy().build().unwrap()
}

/// POSTs `body` to /v1/act with the token; returns (status, JSON body).
pub async fn post_act(client: &reqwest::Client, server: &ServerHandle, body: &str) -> (u16, Value) {
    post_act_to(client, &server.base_url(), &server.token, body).await
}

/// [`post_act`] on a task of its own, for tests that act as the extension meanwhile.
pub fn spawn_act(
    client: &reqwest::Client,
    server: &ServerHandle,
    body: &'static str,
) -> tokio::task::JoinHandle<(u16, Value)> {
    let (client, base, token) = (client.clone(), server.base_url(), server.token.clone());
    tokio::spawn(async move { post_act_to(&client, &base, &token, body).await })
}

async fn post_act_to(
    client: &reqwest::Client,
    base: &str,
    token: &str,
    body: &str,
) -> (u16, Value) {
    let response = client
        .post(format!("{base}/v1/act"))
        .bearer_auth(token)
        .header("content-type", "application/json")
        .body(body.to_owned())
        .send()
        .await
        .expect("HTTP round trip");
    let status = response.status().as_u16();
    let body = response.bytes().await.unwrap();
    (status, serde_json::from_slice(&body).unwrap_or(Value::Null))
}

pub fn decode(value: &Value) -> Message {
    Message::decode(&value.to_string()).expect("valid message")
}
