//! `/v1/act` refusals in the API's JSON error shape (oversized body, a body
//! that never finishes, non-JSON `Content-Type`, another method), shown as such
//! by `RemoteBridge` (the CLI's `act`), and the case-insensitive
//! `Authorization` scheme (RFC 9110 §11.1).

use crate::common::*;
use browser_bridge_backend::server::ServerHandle;
use browser_bridge_backend::{Bridge, RemoteBridge};
use browser_bridge_protocol::{Action, ErrorCode, MAX_MESSAGE_BYTES};
use serde_json::{Value, json};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

#[tokio::test]
async fn an_oversized_body_is_413_with_the_json_error_and_act_shows_it() {
    let server = start(options()).await;
    let big = format!(
        r#"{{"action":"evaluate","expression":"return '{}'"}}"#,
        "x".repeat(MAX_MESSAGE_BYTES)
    );
    let (status, body) = post_act(&http(), &server, &big).await;
    assert_eq!(status, 413);
    assert_eq!(body["error"]["code"], "invalid_request", "{body}");
    let message = body["error"]["message"].as_str().unwrap();
    assert!(message.contains("over 32 MiB"), "{message}");

    // The CLI's client reports that error, not internal_error.
    let action = Action::from_value(json!({
        "action": "evaluate",
        "expression": format!("return '{}'", "x".repeat(MAX_MESSAGE_BYTES)),
    }))
    .expect("no local size limit on expressions");
    let remote = RemoteBridge::new(server.addr, server.token.clone());
    let error = remote.act(action).await.unwrap_err();
    assert_eq!(error.code, ErrorCode::InvalidRequest, "{error:?}");
    assert!(error.message.contains("over 32 MiB"), "{error:?}");
}

#[tokio::test]
async fn a_non_json_content_type_is_415_with_the_json_error() {
    let server = start(options()).await;
    let response = http()
        .post(format!("{}/v1/act", server.base_url()))
        .bearer_auth(&server.token)
        .header("content-type", "application/x-www-form-urlencoded")
        .body(r#"{"action":"list_tabs"}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 415);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["error"]["code"], "invalid_request", "{body}");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("application/json"),
        "{body}"
    );
}

/// Sends `path` a head with the token and `Content-Length: 100`, then part of
/// the body, and never the rest; (the whole answer, how long it took).
async fn never_finished(server: &ServerHandle, path: &str) -> (String, Duration) {
    let mut socket = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    let head = format!(
        "POST {path} HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer {}\r\n\
         Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n\
         Content-Length: 100\r\n\r\n{{\"action\":",
        server.addr, server.token
    );
    socket.write_all(head.as_bytes()).await.unwrap();
    let started = Instant::now();
    let mut answer = Vec::new();
    let read_all = socket.read_to_end(&mut answer);
    tokio::time::timeout(Duration::from_secs(20), read_all)
        .await
        .unwrap_or_else(|_| panic!("{path}: answered and closed within 20 s"))
        .unwrap();
    (
        String::from_utf8_lossy(&answer).into_owned(),
        started.elapsed(),
    )
}

#[tokio::test]
async fn a_body_that_never_finishes_is_408_and_its_connection_closed() {
    let server = start(options()).await;
    let (act, mcp) = tokio::join!(
        never_finished(&server, "/v1/act"),
        never_finished(&server, "/mcp")
    );
    for (path, (text, took)) in [("/v1/act", act), ("/mcp", mcp)] {
        assert!(text.starts_with("HTTP/1.1 408"), "{path}: {text}");
        assert!(text.contains("\"invalid_request\""), "{path}: {text}");
        assert!(
            took >= Duration::from_secs(9) && took < Duration::from_secs(15),
            "{path}: {took:?}"
        );
    }
    // Serve still answers.
    let (status, _) = post_act(&http(), &server, r#"{"action":"list_tabs"}"#).await;
    assert_eq!(status, 503, "no extension: not_connected");
}

#[tokio::test]
async fn another_method_is_405_with_the_json_error_and_allow() {
    let server = start(options()).await;
    for (method, path, allow) in [
        (reqwest::Method::GET, "/v1/act", "POST"),
        (reqwest::Method::PUT, "/v1/act", "POST"),
        (reqwest::Method::POST, "/v1/status", "GET, HEAD"),
    ] {
        let response = http()
            .request(method.clone(), format!("{}{path}", server.base_url()))
            .bearer_auth(&server.token)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status().as_u16(), 405, "{method} {path}");
        assert_eq!(response.headers()["allow"], allow, "{method} {path}");
        let body: Value = response.json().await.unwrap();
        assert_eq!(body["error"]["code"], "invalid_request", "{body}");
        let message = body["error"]["message"].as_str().unwrap();
        assert!(message.contains(allow), "{message}");
    }
}

#[tokio::test]
async fn the_authorization_scheme_is_case_insensitive() {
    let server = start(options()).await;
    for scheme in ["Bearer", "bearer", "BEARER"] {
        let response = http()
            .get(format!("{}/v1/status", server.base_url()))
            .header("authorization", format!("{scheme} {}", server.token))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status().as_u16(), 200, "{scheme}");
    }
    let response = http()
        .get(format!("{}/v1/status", server.base_url()))
        .header("authorization", format!("Basic {}", server.token))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 401);
}

/// POSTs `body` with `Browser-Bridge-Timing` when `timed`; (status, the
/// `Server-Timing` value).
async fn act_timing(
    server: &ServerHandle,
    body: &'static str,
    timed: bool,
) -> (u16, Option<String>) {
    let mut request = http()
        .post(format!("{}/v1/act", server.base_url()))
        .bearer_auth(&server.token)
        .body(body);
    if timed {
        request = request.header("Browser-Bridge-Timing", "1");
    }
    let response = request.send().await.unwrap();
    let timing = response
        .headers()
        .get("server-timing")
        .map(|v| v.to_str().unwrap().to_owned());
    (response.status().as_u16(), timing)
}

/// The labels of a `Server-Timing` value after `t0`, checking each `dur` is not
/// before the previous one and `t0` is this machine's epoch ms.
fn timing_labels(value: &str) -> Vec<String> {
    let mut parts = value.split(", ");
    let t0: f64 = parts
        .next()
        .and_then(|p| p.strip_prefix("t0;desc=\""))
        .and_then(|p| p.strip_suffix('"'))
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("no t0 in {value}"));
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs_f64()
        * 1000.0;
    assert!((now - 10_000.0..=now).contains(&t0), "t0 {t0} vs now {now}");
    let mut last = 0.0;
    parts
        .map(|p| {
            let (label, dur) = p.split_once(";dur=").unwrap_or_else(|| panic!("{p}"));
            let dur: f64 = dur.parse().unwrap();
            assert!(dur >= last, "{label} at {dur} before {last} in {value}");
            last = dur;
            label.to_owned()
        })
        .collect()
}

#[tokio::test]
async fn the_timing_header_answers_the_backend_marks_in_order() {
    let server = start(options()).await;
    const EVAL: &str = r#"{"action":"evaluate","expression":"return 3"}"#;
    // Not connected: the marks up to the hub and back, no socket's.
    let (status, timing) = act_timing(&server, EVAL, true).await;
    assert_eq!(status, 503);
    assert_eq!(
        timing_labels(&timing.expect("Server-Timing on an error too")),
        ["handler", "decoded", "owner", "reply", "encoded_resp"]
    );
    let ws = connect_extension(&server, "timed").await;
    wait_connected(&server, "timed").await;
    let _ext = serve_requests(ws, echo_evaluate);
    let (status, timing) = act_timing(&server, EVAL, true).await;
    assert_eq!(status, 200);
    assert_eq!(
        timing_labels(&timing.expect("Server-Timing")),
        [
            "handler",
            "decoded",
            "owner",
            "encoded",
            "ws_task",
            "ws_written",
            "ws_read",
            "owner_resp",
            "reply",
            "encoded_resp"
        ]
    );
    // Not asked for: no header, on success or on a refused body.
    assert_eq!(act_timing(&server, EVAL, false).await, (200, None));
    assert_eq!(act_timing(&server, "{", false).await.1, None);
}
