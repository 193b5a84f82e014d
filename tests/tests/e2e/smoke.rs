//! End-to-end smoke: the real backend, the real wasm extension in headless
//! Chromium, paired with the real token; navigate + evaluate through `/v1/act`.

use browser_bridge_tests::harness::Stack;
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn navigate_then_evaluate() {
    let stack = Stack::start().await.expect("stack");
    let url = stack.fixtures.url("basic.html");
    let nav = stack
        .act(json!({ "action": "navigate", "url": url }))
        .await
        .expect("navigate");
    assert_eq!(nav["action"], "navigate");
    assert_eq!(nav["url"], url);
    assert_eq!(nav["title"], "Basic fixture");
    let tab = nav["tabId"].as_i64().expect("tabId");

    let r = stack
        .act(json!({ "action": "evaluate", "tabId": tab, "expression": "return document.querySelector('#para').textContent" }))
        .await
        .expect("evaluate");
    assert_eq!(r["type"], "string");
    assert_eq!(r["value"], "Hello from the fixture server.");

    let started = stack
        .wait_event(std::time::Duration::from_secs(5), |e| {
            e["event"] == "session_started" && e["tabId"] == tab
        })
        .await
        .expect("session_started");
    assert_eq!(started["agentWindow"], true);
    eprintln!("chromium start → ack: {} ms", stack.ack_ms);
}
