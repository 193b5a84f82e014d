//! Several browsers on one backend (PROTOCOL.md §5 "Browsers"), over real
//! sockets with two fake extensions named in their `hello`: the `browser` field
//! reaches the hub from every caller — `RemoteBridge` (the CLI's and `mcp`'s
//! client of a `serve`), the MCP tool's arguments — and picks the browser that
//! answers; clashing names are made unique; `list_tabs` of both marks each tab.

use std::time::Duration;

use crate::common::*;
use browser_bridge_backend::mcp::BrowserServer;
use browser_bridge_backend::{Bridge, RemoteBridge};
use browser_bridge_conformance::fake::FakeExtension;
use browser_bridge_protocol::{Action, ActionResult, ErrorCode};
use serde_json::{Value, json};

/// A fake extension named `name` whose `evaluate` answers its own name and
/// whose `list_tabs` lists tab 1 at `https://<name>.test/`.
async fn browser(server: &browser_bridge_backend::ServerHandle, id: &str, name: &str) -> Ws {
    let (ws, _) = FakeExtension::new(server.extension_url(), server.token.clone())
        .client_id(id)
        .browser_name(name)
        .origin(EXT_ORIGIN)
        .connect()
        .await
        .expect("connected");
    ws
}

fn answering(ws: Ws, name: &'static str) -> tokio::task::JoinHandle<Ws> {
    serve_requests(ws, move |request| {
        let id = &request["id"];
        assert!(request["action"].get("browser").is_none(), "{request}");
        Some(match request["action"]["action"].as_str()? {
            "evaluate" => json!({"type": "response", "id": id, "result":
                {"action": "evaluate", "tabId": 1, "type": "string", "value": name}}),
            "list_tabs" => json!({"type": "response", "id": id, "result": {"action": "list_tabs",
                "tabs": [{"tabId": 1, "windowId": 1, "url": format!("https://{name}.test/"),
                          "title": "", "active": true, "agentWindow": false, "session": false}]}}),
            _ => return None,
        })
    })
}

fn evaluate() -> Action {
    Action::from_value(json!({"action": "evaluate", "expression": "return 1"})).unwrap()
}

async fn value_of(bridge: &impl Bridge) -> Value {
    match bridge.act(evaluate()).await.expect("answered") {
        ActionResult::Evaluate(result) => serde_json::to_value(&result).unwrap()["value"].clone(),
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn the_browser_field_reaches_the_hub_from_every_caller() {
    let server = start(options()).await;
    let _work = answering(browser(&server, "id-work", "Chromium 131").await, "work");
    // The same name as the first: made unique with its clientId's start.
    let _home = answering(browser(&server, "id-home", "Chromium 131").await, "home");
    let mut names = Vec::new();
    for _ in 0..500 {
        names = server
            .hub
            .status()
            .await
            .browsers
            .iter()
            .map(|b| b.name.clone())
            .collect();
        if names.len() == 2 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    assert_eq!(names, ["Chromium 131", "Chromium 131 (idho)"]);

    // RemoteBridge: `browser` beside the action in the /v1/act body.
    let remote = RemoteBridge::new(server.addr, server.token.clone()).for_client("remote");
    assert_eq!(
        value_of(&remote.for_browser(Some("Chromium 131 (idho)"))).await,
        "home"
    );
    assert_eq!(value_of(&remote.for_browser(Some("id-work"))).await, "work");
    // Without it: this client's last-used browser.
    assert_eq!(value_of(&remote.for_browser(None)).await, "work");
    let unknown = remote
        .for_browser(Some("Office"))
        .act(evaluate())
        .await
        .unwrap_err();
    assert_eq!(unknown.code, ErrorCode::SessionNotFound, "{unknown:?}");
    assert!(
        unknown.message.contains("\"Chromium 131 (idho)\""),
        "{}",
        unknown.message
    );
    // A client that used none is told to choose.
    let fresh = RemoteBridge::new(server.addr, server.token.clone()).for_client("fresh");
    let refused = fresh.act(evaluate()).await.unwrap_err();
    assert_eq!(refused.code, ErrorCode::SessionNotFound, "{refused:?}");

    // The MCP tool: `browser` in the arguments (tab 1 is another client's in
    // both browsers now: named).
    let mcp = BrowserServer::new(server.hub.for_client("mcp-test"));
    let call = |args: Value| {
        let mcp = &mcp;
        async move {
            let result = mcp.call(args.as_object().cloned()).await;
            let text: Vec<String> = result
                .content
                .iter()
                .filter_map(|c| c.as_text().map(|t| t.text.clone()))
                .collect();
            (result.is_error, text.join("\n"))
        }
    };
    let (error, text) = call(
        json!({"action": "evaluate", "expression": "return 1", "tabId": 1, "browser": "id-home"}),
    )
    .await;
    assert_ne!(error, Some(true), "{text}");
    assert!(text.contains("home"), "{text}");
    let (error, text) = call(json!({"action": "list_tabs"})).await;
    assert_ne!(error, Some(true), "{text}");
    for tab in [
        r#""url":"https://work.test/""#,
        r#""browser":"Chromium 131""#,
        r#""url":"https://home.test/""#,
        r#""browser":"Chromium 131 (idho)""#,
    ] {
        assert!(text.contains(tab), "{tab} in {text}");
    }
    let (error, text) = call(json!({"action": "list_tabs", "browser": ["x"]})).await;
    assert_eq!(error, Some(true));
    assert!(text.starts_with("invalid_request"), "{text}");
}
