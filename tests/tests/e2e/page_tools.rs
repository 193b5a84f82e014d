//! Page-exposed tools (PROTOCOL.md §9) through the real stack: the
//! `devtoolstooldiscovery` event and WebMCP (`document.modelContext`, the older
//! `navigator.modelContext`), on the fixture pages of `tests/fixtures/extract/`.

use browser_bridge_tests::harness::Stack;
use serde_json::{Value, json};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn page_tools_listed_and_called() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack.open("extract/tools.html", None).await.expect("open");

    let list = stack
        .act(json!({ "action": "list_page_tools", "tabId": tab }))
        .await
        .expect("list");
    assert_eq!(list["pageProvided"], true);
    assert_eq!(list["groups"][0]["name"], "tides");
    assert_eq!(list["groups"][0]["source"], "devtoolstooldiscovery");
    let tools = list["groups"][0]["tools"].as_array().expect("tools");
    let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    assert_eq!(names, ["add", "fail"]);
    assert_eq!(tools[0]["inputSchema"]["required"], json!(["a", "b"]));
    assert!(tools[0].get("execute").is_none());

    let sum = stack
        .act(json!({ "action": "call_page_tool", "tabId": tab, "tool": "add", "input": {"a": 2, "b": 3} }))
        .await
        .expect("call add");
    assert_eq!(sum["output"], json!({ "sum": 5 }));
    assert_eq!(sum["pageProvided"], true);

    let threw = stack
        .act(json!({ "action": "call_page_tool", "tabId": tab, "tool": "fail", "input": {} }))
        .await
        .expect_err("throwing tool");
    assert_eq!(threw.code, "invalid_action");
    assert!(threw.message.contains("tide tool failed"), "{threw}");

    let missing = stack
        .act(json!({ "action": "call_page_tool", "tabId": tab, "tool": "add", "group": "other", "input": {} }))
        .await
        .expect_err("no such group");
    assert_eq!(missing.code, "invalid_action");

    // Tools vanish with their page.
    stack
        .open("extract/page2.html", Some(tab))
        .await
        .expect("open");
    let after = stack
        .act(json!({ "action": "list_page_tools", "tabId": tab }))
        .await
        .expect("list");
    assert_eq!(after["groups"], json!([]));
}

/// The `list_page_tools` groups of `tab`.
async fn list(stack: &Stack, tab: i64) -> Vec<Value> {
    let list = stack
        .act(json!({ "action": "list_page_tools", "tabId": tab }))
        .await
        .expect("list");
    assert_eq!(list["pageProvided"], true);
    list["groups"].as_array().expect("groups").clone()
}

/// The tool names of one group.
fn names(group: &Value) -> Vec<&str> {
    group["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn webmcp_tools_listed_and_called() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack.open("extract/webmcp.html", None).await.expect("open");

    let groups = list(&stack, tab).await;
    assert_eq!(groups.len(), 1, "{groups:?}");
    let webmcp = &groups[0];
    assert_eq!(webmcp["name"], "webmcp");
    assert_eq!(webmcp["source"], "webmcp");
    assert_eq!(names(webmcp), ["stock", "order", "reserve"]);
    let stock = &webmcp["tools"][0];
    assert_eq!(stock["title"], "Stock level");
    assert_eq!(stock["description"], "Counts an item in stock");
    assert_eq!(stock["inputSchema"]["required"], json!(["item"]));
    assert!(stock.get("execute").is_none());
    assert!(webmcp["tools"][1].get("title").is_none());
    // A second registration under a taken name throws in the page.
    assert_eq!(
        stack
            .eval(tab, "return document.body.dataset.duplicate")
            .await
            .expect("eval"),
        "InvalidStateError"
    );

    let called = stack
        .act(json!({ "action": "call_page_tool", "tabId": tab, "tool": "stock", "input": {"item": "rope"} }))
        .await
        .expect("call stock");
    assert_eq!(called["pageProvided"], true);
    assert_eq!(
        called["output"],
        json!({
            "content": [{"type": "text", "text": "12 rope"}],
            "structuredContent": {"item": "rope", "count": 12, "client": "function"}
        })
    );

    let threw = stack
        .act(json!({ "action": "call_page_tool", "tabId": tab, "tool": "order", "group": "webmcp", "input": {} }))
        .await
        .expect_err("throwing tool");
    assert_eq!(threw.code, "invalid_action");
    assert!(
        threw.message.contains("\"order\"") && threw.message.contains("harbour order refused"),
        "{threw}"
    );

    let refused = stack
        .act(json!({ "action": "call_page_tool", "tabId": tab, "tool": "reserve", "input": {} }))
        .await
        .expect_err("isError result");
    assert_eq!(refused.code, "invalid_action");
    assert!(
        refused.message.contains("\"reserve\"")
            && refused.message.contains("nothing left to reserve"),
        "{refused}"
    );

    // A discovery group's name never reaches the WebMCP registry.
    let wrong = stack
        .act(json!({ "action": "call_page_tool", "tabId": tab, "tool": "stock", "group": "tides", "input": {} }))
        .await
        .expect_err("no such group");
    assert_eq!(wrong.code, "invalid_action");

    // Registered tools vanish with their page.
    stack
        .open("extract/page2.html", Some(tab))
        .await
        .expect("open");
    assert_eq!(list(&stack, tab).await, Vec::<Value>::new());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn webmcp_on_navigator_and_registered_later() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack
        .open("extract/webmcp-navigator.html", None)
        .await
        .expect("open");
    let groups_now = list(&stack, tab).await;
    assert_eq!(groups_now.len(), 1, "{groups_now:?}");
    assert_eq!(groups_now[0]["source"], "webmcp");
    assert_eq!(names(&groups_now[0]), ["high-tide"]);
    let called = stack
        .act(json!({ "action": "call_page_tool", "tabId": tab, "tool": "high-tide", "group": "webmcp", "input": {"port": "Brest"} }))
        .await
        .expect("call");
    assert_eq!(called["output"]["content"][0]["text"], "Brest: 14:05");
    // One object under both spellings; an aborted signal unregisters its tool;
    // provideContext replaces all, clearContext empties.
    let spelled = stack
        .eval(
            tab,
            "const mc = navigator.modelContext; const stop = new AbortController(); \
             mc.registerTool({name: 'ebb', description: 'Ebb', execute: () => 1}, {signal: stop.signal}); \
             mc.registerTool({name: 'flood', description: 'Flood', execute: () => 2}); \
             stop.abort(); return document.modelContext === mc",
        )
        .await
        .expect("eval");
    assert_eq!(spelled, true);
    assert_eq!(names(&list(&stack, tab).await[0]), ["high-tide", "flood"]);
    stack
        .eval(tab, "document.modelContext.provideContext({tools: [{name: 'slack', execute: () => 3}]}); return 1")
        .await
        .expect("eval");
    assert_eq!(names(&list(&stack, tab).await[0]), ["slack"]);
    stack
        .eval(tab, "document.modelContext.clearContext(); return 1")
        .await
        .expect("eval");
    assert_eq!(list(&stack, tab).await, Vec::<Value>::new());

    stack
        .open("extract/webmcp-later.html", Some(tab))
        .await
        .expect("open");
    assert_eq!(names(&list(&stack, tab).await[0]), ["cart", "coupon"]);
    stack
        .act(json!({ "action": "click", "tabId": tab, "selector": "#next" }))
        .await
        .expect("click");
    let after = list(&stack, tab).await;
    assert_eq!(names(&after[0]), ["cart", "pay"]);
    let gone = stack
        .act(json!({ "action": "call_page_tool", "tabId": tab, "tool": "coupon", "input": {} }))
        .await
        .expect_err("unregistered tool");
    assert_eq!(gone.code, "invalid_action");
    assert!(gone.message.contains("coupon"), "{gone}");
    let paid = stack
        .act(json!({ "action": "call_page_tool", "tabId": tab, "tool": "pay", "input": {"method": "card"} }))
        .await
        .expect("call pay");
    assert_eq!(paid["output"]["content"][0]["text"], "paid by card");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn both_kinds_listed_and_a_group_picks_the_source() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack
        .open("extract/webmcp-both.html", None)
        .await
        .expect("open");
    let groups = list(&stack, tab).await;
    let sources: Vec<(&Value, &Value)> =
        groups.iter().map(|g| (&g["name"], &g["source"])).collect();
    assert_eq!(
        sources,
        [
            (&json!("ferry"), &json!("devtoolstooldiscovery")),
            (&json!("webmcp"), &json!("webmcp"))
        ]
    );
    let call = |group: Option<&str>| {
        let mut action =
            json!({ "action": "call_page_tool", "tabId": tab, "tool": "times", "input": {} });
        if let Some(g) = group {
            action["group"] = g.into();
        }
        stack.act(action)
    };
    // Without a group, the first in list order.
    assert_eq!(
        call(None).await.expect("call")["output"],
        json!({"from": "discovery"})
    );
    assert_eq!(
        call(Some("ferry")).await.expect("call")["output"],
        json!({"from": "discovery"})
    );
    assert_eq!(
        call(Some("webmcp")).await.expect("call")["output"]["structuredContent"],
        json!({"from": "webmcp"})
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_without_webmcp_reads_the_same() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack.open("extract/page2.html", None).await.expect("open");
    assert_eq!(list(&stack, tab).await, Vec::<Value>::new());
    // What a page's own script can enumerate shows no trace of the shim.
    let traces = "return [Object.keys(document), Object.keys(navigator), \
        Object.getOwnPropertyNames(window).filter((n) => /modelcontext|webmcp/i.test(n)), \
        (() => { const seen = []; for (const k in navigator) if (/modelcontext/i.test(k)) seen.push(k); return seen; })(), \
        JSON.stringify(navigator), document.documentElement.outerHTML]";
    let with_shim = stack.eval(tab, traces).await.expect("eval");
    for own_keys in [&with_shim[0], &with_shim[1]] {
        let keys = own_keys.as_array().expect("keys");
        assert!(!keys.contains(&json!("modelContext")), "{own_keys}");
    }
    assert_eq!(with_shim[2], json!([]));
    assert_eq!(with_shim[3], json!([]));
    let extract_with = stack.extract(tab).await;
    // The same page with the shim taken away reads alike.
    stack
        .eval(tab, "delete document.modelContext; delete navigator.modelContext; return 'modelContext' in navigator")
        .await
        .map(|v| assert_eq!(v, false))
        .expect("eval");
    assert_eq!(stack.eval(tab, traces).await.expect("eval"), with_shim);
    let extract_without = stack.extract(tab).await;
    assert_eq!(extract_with["markdown"], extract_without["markdown"]);
    assert_eq!(extract_with["elements"], extract_without["elements"]);
}
