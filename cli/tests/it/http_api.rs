//! `/v1/act` refusals in the API's JSON error shape (oversized body, non-JSON
//! `Content-Type`), shown as such by `RemoteBridge` (the CLI's `act`), and the
//! case-insensitive `Authorization` scheme (RFC 9110 §11.1).

use crate::common::*;
use browser_bridge_backend::{Bridge, RemoteBridge};
use browser_bridge_protocol::{Action, ErrorCode, MAX_MESSAGE_BYTES};
use serde_json::{Value, json};

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
