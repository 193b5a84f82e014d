//! End-to-end MCP: a JSON-RPC client on the stdio of `browser-bridge mcp`, which
//! forwards to the running `serve` of the e2e stack, the real wasm extension in
//! headless Chromium, real fixture pages. What a model would receive, byte for byte.

use std::process::Stdio;
use std::time::Duration;

use browser_bridge_tests::harness::{Stack, ensure_built};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout};

/// A bare MCP client over a child's stdio: one JSON-RPC message per line.
struct McpStdio {
    stdin: ChildStdin,
    stdout: Lines<BufReader<ChildStdout>>,
    next_id: u64,
    _child: Child,
}

impl McpStdio {
    async fn spawn(stack: &Stack) -> McpStdio {
        let built = ensure_built().expect("built");
        let listen = stack.base_url.trim_start_matches("http://").to_owned();
        let mut child = tokio::process::Command::new(&built.backend_bin)
            .args(["mcp", "--listen", &listen, "--config-dir"])
            .arg(stack.config_dir.path())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn()
            .expect("spawn browser-bridge mcp");
        let mut client = McpStdio {
            stdin: child.stdin.take().expect("stdin"),
            stdout: BufReader::new(child.stdout.take().expect("stdout")).lines(),
            next_id: 1,
            _child: child,
        };
        let init = client
            .request(
                "initialize",
                json!({"protocolVersion": "2025-06-18", "capabilities": {},
                       "clientInfo": {"name": "e2e", "version": "0"}}),
            )
            .await;
        assert_eq!(init["serverInfo"]["name"], "browser-bridge");
        client
            .send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        client
    }

    async fn send(&mut self, message: Value) {
        let mut line = message.to_string();
        line.push('\n');
        self.stdin
            .write_all(line.as_bytes())
            .await
            .expect("write to mcp");
    }

    /// Sends a request and returns its `result` (every stdout line must be JSON-RPC).
    async fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        loop {
            let line = tokio::time::timeout(Duration::from_secs(60), self.stdout.next_line())
                .await
                .expect("an answer within 60 s")
                .expect("read stdout")
                .expect("mcp closed stdout");
            let message: Value = serde_json::from_str(&line).expect("stdout holds only JSON-RPC");
            if message["id"] == id {
                assert!(message.get("error").is_none(), "JSON-RPC error: {message}");
                return message["result"].clone();
            }
        }
    }

    /// Calls the `browser` tool; returns (isError, text content, whole result).
    async fn browser(&mut self, arguments: Value) -> (bool, String, Value) {
        let result = self
            .request(
                "tools/call",
                json!({"name": "browser", "arguments": arguments}),
            )
            .await;
        let text = result["content"]
            .as_array()
            .expect("content")
            .iter()
            .filter_map(|c| c["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n");
        (result["isError"] == true, text, result)
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_drives_the_real_extension() {
    let stack = Stack::start().await.expect("stack");
    let mut mcp = McpStdio::spawn(&stack).await;

    let url = stack.fixtures.url("basic.html");
    let (error, text, _) = mcp.browser(json!({"action": "navigate", "url": url})).await;
    assert!(!error, "{text}");
    let nav: Value = serde_json::from_str(&text).expect("navigate renders as compact JSON");
    assert_eq!(nav["title"], "Basic fixture");
    let tab = nav["tabId"].as_i64().expect("tabId");

    let (error, text, _) = mcp
        .browser(json!({"action": "extract", "tabId": tab}))
        .await;
    assert!(!error, "{text}");
    assert!(
        text.starts_with(&format!("tab {tab} · {url} · Basic fixture\n")),
        "{text}"
    );
    assert!(text.contains("Hello from the fixture server."), "{text}");
    assert!(!text.contains("\ntext:\n"), "text only on request: {text}");
    let link = text
        .lines()
        .find(|l| l.ends_with(" link \"Second page\""))
        .unwrap_or_else(|| panic!("an element line for the link: {text}"));
    let uid = link.split(' ').next().expect("uid").to_owned();

    let (error, text, _) = mcp
        .browser(json!({"action": "extract", "tabId": tab, "includeText": true}))
        .await;
    assert!(!error, "{text}");
    assert!(text.contains("\ntext:\n"), "{text}");
    assert!(
        text.contains(&format!("{uid} link \"Second page\"")),
        "uids are stable: {text}"
    );

    let (error, text, _) = mcp
        .browser(json!({"action": "click", "uid": uid, "tabId": tab}))
        .await;
    assert!(!error, "{text}");
    let click: Value = serde_json::from_str(&text).expect("click JSON");
    assert_eq!(click["navigated"], true, "{text}");

    // The navigation replaced the document: the old uid is stale.
    let (error, text, _) = mcp
        .browser(json!({"action": "click", "uid": uid, "tabId": tab}))
        .await;
    assert!(error, "{text}");
    assert!(text.starts_with("element_stale: "), "{text}");

    let (error, text, _) = mcp.browser(json!({"action": "click", "tabId": tab})).await;
    assert!(error && text.starts_with("invalid_request: "), "{text}");

    let (error, text, result) = mcp
        .browser(json!({"action": "screenshot", "tabId": tab}))
        .await;
    assert!(!error, "{text}");
    let image = &result["content"][0];
    assert_eq!(image["type"], "image");
    assert_eq!(image["mimeType"], "image/png");
    assert!(
        image["data"].as_str().is_some_and(|d| d.len() > 100),
        "{image}"
    );
}
