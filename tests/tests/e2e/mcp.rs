//! End-to-end MCP: rmcp's client on the stdio of `browser-bridge mcp`, which
//! forwards to the running `serve` of the e2e stack, the real wasm extension in
//! headless Chromium, real fixture pages. What a model would receive, byte for byte.

use browser_bridge_conformance::child::spawn_mcp;
use browser_bridge_tests::harness::{Stack, ensure_built};
use rmcp::RoleClient;
use rmcp::model::CallToolRequestParams;
use rmcp::service::RunningService;
use serde_json::{Value, json};

/// `browser-bridge mcp` forwarding to `stack`'s `serve`, behind rmcp's client.
async fn spawn(stack: &Stack) -> RunningService<RoleClient, ()> {
    let built = ensure_built().expect("built");
    let listen = stack.base_url.trim_start_matches("http://").to_owned();
    let mut command = tokio::process::Command::new(&built.backend_bin);
    command
        .args(["mcp", "--listen", &listen, "--config-dir"])
        .arg(stack.config_dir.path());
    let client = spawn_mcp(command).await.client;
    let server = client.peer_info().expect("the server introduced itself");
    assert_eq!(
        server.server_info.as_ref().map(|info| info.name.as_str()),
        Some("browser-bridge")
    );
    client
}

/// Calls the `browser` tool; returns (isError, text content, whole result as JSON).
async fn browser(
    client: &RunningService<RoleClient, ()>,
    arguments: Value,
) -> (bool, String, Value) {
    let Value::Object(arguments) = arguments else {
        panic!("arguments must be an object")
    };
    let result = client
        .call_tool(CallToolRequestParams::new("browser").with_arguments(arguments))
        .await
        .expect("tools/call answered");
    let text = result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.as_str()))
        .collect::<Vec<_>>()
        .join("\n");
    let whole = serde_json::to_value(&result).expect("a tool result is JSON");
    (result.is_error == Some(true), text, whole)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_drives_the_real_extension() {
    let stack = Stack::start().await.expect("stack");
    let mcp = spawn(&stack).await;

    let url = stack.fixtures.url("basic.html");
    let (error, text, _) = browser(&mcp, json!({"action": "navigate", "url": url})).await;
    assert!(!error, "{text}");
    let nav: Value = serde_json::from_str(&text).expect("navigate renders as compact JSON");
    assert_eq!(nav["title"], "Basic fixture");
    let tab = nav["tabId"].as_i64().expect("tabId");

    let (error, text, _) = browser(&mcp, json!({"action": "extract", "tabId": tab})).await;
    assert!(!error, "{text}");
    assert!(
        text.starts_with(&format!("tab {tab} · {url} · Basic fixture\n")),
        "{text}"
    );
    assert!(text.contains("Hello from the fixture server."), "{text}");
    assert!(!text.contains("\ntext ("), "text only on request: {text}");
    let link = text
        .lines()
        .find(|l| l.ends_with(" link \"Second page\""))
        .unwrap_or_else(|| panic!("an element line for the link: {text}"));
    let uid = link.split(' ').next().expect("uid").to_owned();

    let (error, text, _) = browser(
        &mcp,
        json!({"action": "extract", "tabId": tab, "includeText": true}),
    )
    .await;
    assert!(!error, "{text}");
    assert!(text.contains("\ntext (the page's own words"), "{text}");
    assert!(
        text.contains(&format!("{uid} link \"Second page\"")),
        "uids are stable: {text}"
    );

    let (error, text, _) =
        browser(&mcp, json!({"action": "click", "uid": uid, "tabId": tab})).await;
    assert!(!error, "{text}");
    // The MCP tool observes by default: the JSON line, then what changed.
    let (json_line, changes) = text.split_once('\n').expect("JSON, then the changes");
    let click: Value = serde_json::from_str(json_line).expect("click JSON");
    assert_eq!(click["navigated"], true, "{text}");
    assert!(
        click["url"]
            .as_str()
            .is_some_and(|u| u.ends_with("second.html")),
        "{text}"
    );
    // The URL is on the JSON line: the navigation line does not repeat it.
    assert!(
        changes.starts_with("navigated: a new page is loaded; earlier uids are stale"),
        "{text}"
    );

    // The navigation replaced the document: the old uid is stale.
    let (error, text, _) =
        browser(&mcp, json!({"action": "click", "uid": uid, "tabId": tab})).await;
    assert!(error, "{text}");
    assert!(text.starts_with("element_stale: "), "{text}");

    let (error, text, _) = browser(&mcp, json!({"action": "click", "tabId": tab})).await;
    assert!(error && text.starts_with("invalid_request: "), "{text}");

    let (error, text, result) = browser(&mcp, json!({"action": "screenshot", "tabId": tab})).await;
    assert!(!error, "{text}");
    let image = &result["content"][0];
    assert_eq!(image["type"], "image");
    assert_eq!(image["mimeType"], "image/png");
    assert!(
        image["data"].as_str().is_some_and(|d| d.len() > 100),
        "{image}"
    );
}
