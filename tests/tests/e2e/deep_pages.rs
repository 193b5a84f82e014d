//! End-to-end: a page nested deeper than the HTML parser allows (600 levels, about
//! 48 000 nodes) keeps its deep content and controls in `extract` (PROTOCOL.md §6).

use browser_bridge_tests::harness::{Stack, uid_of};
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deep_controls_are_listed_and_clickable() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack.open("deep-nesting.html", None).await.expect("open");
    let nodes = stack.eval(tab, "return window.__nodes").await.unwrap();
    assert!(nodes.as_i64().unwrap() > 47_000, "{nodes}");
    let page = stack
        .act(json!({ "action": "extract", "tabId": tab }))
        .await
        .expect("extract");
    let first: Vec<_> = page["elements"]
        .as_array()
        .unwrap()
        .iter()
        .take(3)
        .map(|e| e["name"].as_str().unwrap_or_default().to_owned())
        .collect();
    assert_eq!(
        first,
        ["Read the help", "Refresh", "Confirm order 4471"],
        "{page}"
    );
    let markdown = page["markdown"].as_str().unwrap();
    assert!(
        markdown.contains("Order 4471 is waiting for your confirmation."),
        "{}",
        &markdown[..markdown.len().min(500)]
    );
    let uid = uid_of(&page, "button", "Confirm order 4471");
    stack
        .act(json!({ "action": "click", "tabId": tab, "uid": uid }))
        .await
        .expect("click the deep button");
    assert_eq!(
        stack
            .eval(tab, "return document.getElementById('out').textContent")
            .await
            .unwrap(),
        "confirmed 4471"
    );
}
