//! `browser-bridge mcp` with a `serve` already running: calls go through it.

use browser_bridge_protocol::Action;
use serde_json::json;

use super::scripted_extension::ScriptedExtension;
use super::support::{ConfigDir, call, expect_ok, spawn_mcp, spawn_serve, text_of};

#[tokio::test]
async fn stdio_mcp_forwards_to_a_running_serve() {
    let dir = ConfigDir::new();
    let serve = spawn_serve(&dir.path).await;
    // The extension is connected to `serve`, not to the `mcp` process.
    let mut ext = ScriptedExtension::connect(&serve.addr, &dir.token).await;
    let client = spawn_mcp(&serve.addr, &dir.path).await.client;

    let text = expect_ok(
        &call(
            &client,
            json!({"action": "navigate", "url": "http://forwarded.test/"}),
        )
        .await,
    );
    match ext.next_action().await {
        Action::Navigate(navigate) => assert_eq!(navigate.url, "http://forwarded.test/"),
        other => panic!("expected the navigate, got {other:?}"),
    }
    assert!(
        text.contains("\"url\":\"http://forwarded.test/\""),
        "{text}"
    );

    let text = expect_ok(&call(&client, json!({"action": "extract"})).await);
    assert!(matches!(ext.next_action().await, Action::Extract(_)));
    assert!(text.contains("e7 button \"Save\" disabled"), "{text}");

    client.cancel().await.expect("close the MCP session");
}

/// When the `serve` it forwards to goes (two MCP clients: the first one's `mcp`
/// hosted the socket and exited), `mcp` takes the address over: the call that
/// finds it gone says so, and once the extension reconnects, calls pass again.
#[tokio::test]
async fn stdio_mcp_takes_the_address_over_when_its_serve_goes() {
    let dir = ConfigDir::new();
    let mut serve = spawn_serve(&dir.path).await;
    let addr = serve.addr.clone();
    let mut ext = ScriptedExtension::connect(&addr, &dir.token).await;
    let client = spawn_mcp(&addr, &dir.path).await.client;
    let read = json!({"action": "extract", "tabId": 7});
    expect_ok(&call(&client, read.clone()).await);
    assert!(matches!(ext.next_action().await, Action::Extract(_)));

    serve.child.kill().await.expect("stop serve");
    let _ = serve.child.wait().await;
    drop(ext);
    let gone = call(&client, read.clone()).await;
    let text = text_of(&gone);
    assert_eq!(gone.is_error, Some(true), "{text}");
    assert!(
        text.starts_with("not_connected") && text.contains("now hosts the extension WebSocket"),
        "{text}"
    );

    let mut ext = ScriptedExtension::connect(&addr, &dir.token).await;
    expect_ok(&call(&client, read).await);
    assert!(matches!(ext.next_action().await, Action::Extract(_)));
    client.cancel().await.expect("close the MCP session");
}
