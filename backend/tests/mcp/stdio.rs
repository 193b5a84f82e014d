//! `browser-bridge mcp` over stdio, hosting the extension WebSocket itself.

use crate::contract;
use crate::fake_extension::FakeExtension;
use crate::support::{ConfigDir, free_port, spawn_mcp};

#[tokio::test]
async fn stdio_mcp_hosts_the_extension_socket() {
    let dir = ConfigDir::new();
    let listen = format!("127.0.0.1:{}", free_port());
    let client = spawn_mcp(&listen, &dir.path).await;

    contract::lists_the_browser_tool(&client).await;
    contract::not_connected_without_extension(&client).await;

    let mut ext = FakeExtension::connect(&listen, &dir.token).await;
    contract::calls_pass_through(&client, &mut ext).await;

    client.cancel().await.expect("close the MCP session");
}
