//! MCP over streamable HTTP at `/mcp` on `serve`, behind the bearer token.

use rmcp::ServiceExt;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::json;

use browser_bridge_protocol::{Action, TabId};

use super::contract;
use super::scripted_extension::ScriptedExtension;
use super::support::{ConfigDir, call, expect_error, expect_ok, spawn_serve};

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}"#;

#[tokio::test]
async fn http_mcp_on_serve() {
    let dir = ConfigDir::new();
    let serve = spawn_serve(&dir.path).await;
    let url = format!("http://{}/mcp", serve.addr);

    let http = reqwest::Client::builder()
        .no_proxy()
        .build()
        .expect("client");
    let post = |token: Option<&str>| {
        let mut request = http
            .post(&url)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .body(INITIALIZE);
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        request.send()
    };
    assert_eq!(
        post(None).await.expect("POST /mcp").status(),
        401,
        "no token"
    );
    assert_eq!(
        post(Some("wrong")).await.expect("POST /mcp").status(),
        401,
        "wrong token"
    );
    let web_page = http
        .post(&url)
        .bearer_auth(&dir.token)
        .header("Origin", "https://evil.example")
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .body(INITIALIZE)
        .send()
        .await
        .expect("POST /mcp");
    assert_eq!(web_page.status(), 403, "a web Origin is refused");
    let rebinding = http
        .post(&url)
        .bearer_auth(&dir.token)
        .header("Host", "attacker.example")
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .body(INITIALIZE)
        .send()
        .await
        .expect("POST /mcp");
    assert_eq!(
        rebinding.status(),
        403,
        "a non-loopback Host is refused (DNS rebinding)"
    );
    let ok = post(Some(&dir.token)).await.expect("POST /mcp");
    assert_eq!(ok.status(), 200);
    // Each initialize gets its own session id: the session is a client.
    let session = |r: &reqwest::Response| {
        r.headers()
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned()
    };
    let again = post(Some(&dir.token)).await.expect("POST /mcp");
    assert!(session(&ok).starts_with("mcp-"), "{:?}", ok.headers());
    assert_ne!(session(&ok), session(&again));
    let body: serde_json::Value = ok.json().await.expect("JSON initialize result");
    assert_eq!(
        body["result"]["serverInfo"]["name"],
        json!("browser-bridge")
    );

    let transport = StreamableHttpClientTransport::from_config(
        StreamableHttpClientTransportConfig::with_uri(url.as_str()).auth_header(dir.token.clone()),
    );
    let client = ().serve(transport).await.expect("MCP initialize over HTTP");

    contract::lists_the_browser_tool(&client).await;
    contract::not_connected_without_extension(&client).await;

    let mut ext = ScriptedExtension::connect(&serve.addr, &dir.token).await;
    contract::calls_pass_through(&client, &mut ext).await;

    client.cancel().await.expect("close the MCP session");
}

/// Two MCP sessions over `/mcp` are two clients: a call without `tabId` goes to
/// the tab its own session last acted on, and a session that acted on none
/// never gets the other's tab.
#[tokio::test]
async fn each_mcp_session_has_its_own_current_tab() {
    let dir = ConfigDir::new();
    let serve = spawn_serve(&dir.path).await;
    let url = format!("http://{}/mcp", serve.addr);
    let session = || {
        let transport = StreamableHttpClientTransport::from_config(
            StreamableHttpClientTransportConfig::with_uri(url.as_str())
                .auth_header(dir.token.clone()),
        );
        ().serve(transport)
    };
    let a = session().await.expect("session a");
    let b = session().await.expect("session b");
    let mut ext = ScriptedExtension::connect(&serve.addr, &dir.token).await;

    expect_ok(&call(&a, json!({"action": "extract", "tabId": 7})).await);
    assert!(matches!(ext.next_action().await, Action::Extract(_)));
    expect_ok(
        &call(
            &a,
            json!({"action": "click", "uid": "e1", "observe": false}),
        )
        .await,
    );
    let Action::Click(click) = ext.next_action().await else {
        panic!("a click")
    };
    assert_eq!(click.tab_id, Some(TabId(7)), "a's current tab filled in");
    // b has no current tab, and the only tab known is a's (the backend never saw
    // its session start): refused, nothing reaches the extension.
    let refused = expect_error(
        &call(
            &b,
            json!({"action": "click", "uid": "e1", "observe": false}),
        )
        .await,
        "session_not_found",
    );
    assert!(refused.contains("navigate or open_tab first"), "{refused}");

    // Two sessions that name one client with `Browser-Bridge-Client` share it.
    let named = || {
        let headers = [(
            reqwest::header::HeaderName::from_static("browser-bridge-client"),
            reqwest::header::HeaderValue::from_static("team"),
        )];
        let transport = StreamableHttpClientTransport::from_config(
            StreamableHttpClientTransportConfig::with_uri(url.as_str())
                .auth_header(dir.token.clone())
                .custom_headers(headers.into_iter().collect()),
        );
        ().serve(transport)
    };
    let (c, d) = (
        named().await.expect("session c"),
        named().await.expect("session d"),
    );
    expect_ok(&call(&c, json!({"action": "extract", "tabId": 7})).await);
    assert!(matches!(ext.next_action().await, Action::Extract(_)));
    expect_ok(
        &call(
            &d,
            json!({"action": "click", "uid": "e1", "observe": false}),
        )
        .await,
    );
    let Action::Click(click) = ext.next_action().await else {
        panic!("a click")
    };
    assert_eq!(
        click.tab_id,
        Some(TabId(7)),
        "d acts for the client c named"
    );

    for session in [a, b, c, d] {
        session.cancel().await.expect("close the session");
    }
}
