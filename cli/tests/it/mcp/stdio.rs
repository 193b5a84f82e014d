//! `browser-bridge mcp` over stdio, hosting the extension WebSocket itself.

use super::contract;
use super::scripted_extension::ScriptedExtension;
use super::support::{ConfigDir, spawn_mcp};

#[tokio::test]
async fn stdio_mcp_hosts_the_extension_socket() {
    let dir = ConfigDir::new();
    let mut mcp = spawn_mcp("127.0.0.1:0", &dir.path).await;
    let listen = mcp.hosted_addr().await;
    let client = mcp.client;

    contract::lists_the_browser_tool(&client).await;
    contract::not_connected_without_extension(&client).await;

    let mut ext = ScriptedExtension::connect(&listen, &dir.token).await;
    contract::calls_pass_through(&client, &mut ext).await;

    client.cancel().await.expect("close the MCP session");
}

/// When the MCP client closes stdin, `mcp` exits (releasing the port) even while
/// an extension is connected to its in-process server.
#[tokio::test]
async fn stdio_mcp_exits_when_the_client_closes_stdin() {
    use std::process::Stdio;

    use browser_bridge_conformance::child::echo_stderr;
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

    let dir = ConfigDir::new();
    let mut child = tokio::process::Command::new(super::support::BIN)
        .args(["mcp", "--listen", "127.0.0.1:0", "--config-dir"])
        .arg(&dir.path)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("spawn browser-bridge mcp");
    let mut listening = echo_stderr(child.stderr.take().expect("stderr"), "mcp");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout")).lines();
    stdin
        .write_all(
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\
              \"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"raw\",\"version\":\"0\"}}}\n",
        )
        .await
        .expect("write initialize");
    let line = stdout
        .next_line()
        .await
        .expect("read")
        .expect("an initialize answer");
    let answer: serde_json::Value =
        serde_json::from_str(&line).expect("stdout holds only JSON-RPC");
    assert_eq!(answer["result"]["serverInfo"]["name"], "browser-bridge");

    let listen = tokio::time::timeout(std::time::Duration::from_secs(30), &mut listening)
        .await
        .expect("mcp prints its address within 30 s")
        .expect("mcp listening");
    let _ext = ScriptedExtension::connect(&listen, &dir.token).await;
    drop(stdin);
    let status = tokio::time::timeout(std::time::Duration::from_secs(20), child.wait())
        .await
        .expect("mcp exits within 20 s of stdin closing")
        .expect("wait");
    assert!(status.success(), "exit status {status}");
}
