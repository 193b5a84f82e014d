//! `browser-bridge mcp` with a `serve` already running: calls go through it.

use browser_bridge_protocol::Action;
use serde_json::json;

use super::scripted_extension::ScriptedExtension;
use super::support::{ConfigDir, call, expect_ok, spawn_mcp, spawn_serve};

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
