//! End-to-end: every request gets exactly one answer, also when the renderer
//! crashes mid-request (which leaves CDP calls hanging), and requests on different tabs run
//! concurrently while one tab serialises its own.

use std::sync::Arc;
use std::time::Duration;

use browser_bridge_tests::harness::Stack;
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn renderer_crash_answers_pending_requests_and_reload_recovers() {
    let stack = Arc::new(Stack::start().await.expect("stack"));
    let tab = stack.open("basic.html", None).await.expect("navigate");
    let waiting = {
        let stack = stack.clone();
        tokio::spawn(async move {
            let slow = "await new Promise((r) => setTimeout(r, 8000)); return 'survived'";
            stack
                .act(json!({ "action": "evaluate", "tabId": tab, "expression": slow }))
                .await
        })
    };
    tokio::time::sleep(Duration::from_millis(500)).await;

    // The crash, from outside the extension (the page's own renderer dies).
    let targets = stack.chromium.targets().await.expect("targets");
    let page = targets
        .iter()
        .find(|t| t["type"] == "page" && t["url"] == stack.fixtures.url("basic.html"))
        .expect("the page target")["targetId"]
        .as_str()
        .unwrap()
        .to_owned();
    let attached = stack
        .chromium
        .cdp(
            "Target.attachToTarget",
            json!({ "targetId": page, "flatten": true }),
            None,
        )
        .await
        .expect("attach");
    let session = attached["sessionId"].as_str().unwrap().to_owned();
    let crasher = {
        let stack = stack.clone();
        // Page.crash never answers: its renderer is gone.
        tokio::spawn(async move {
            stack
                .chromium
                .cdp("Page.crash", json!({}), Some(&session))
                .await
        })
    };

    let answer = waiting.await.expect("task").unwrap_err();
    assert_eq!(answer.code, "internal_error", "{answer}");
    assert!(answer.message.contains("crashed"), "{answer}");
    let later = stack
        .act(json!({ "action": "evaluate", "tabId": tab, "expression": "return 1" }))
        .await
        .unwrap_err();
    assert!(
        later.message.contains("crashed"),
        "later requests fail fast: {later}"
    );

    let reloaded = stack
        .act(json!({ "action": "reload", "tabId": tab }))
        .await
        .expect("reload after the crash");
    assert_eq!(reloaded["title"], "Basic fixture");
    assert_eq!(
        stack.eval(tab, "return 1 + 1").await.expect("works again"),
        2
    );
    crasher.abort();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tabs_run_concurrently_one_tab_serialises() {
    let stack = Arc::new(Stack::start().await.expect("stack"));
    let a = stack
        .act(json!({ "action": "open_tab", "url": stack.fixtures.url("basic.html") }))
        .await
        .unwrap();
    let b = stack
        .act(json!({ "action": "open_tab", "url": stack.fixtures.url("second.html") }))
        .await
        .unwrap();
    let (tab_a, tab_b) = (a["tabId"].as_i64().unwrap(), b["tabId"].as_i64().unwrap());

    // Tab A is busy for 3 s; tab B answers meanwhile, and a second request on A
    // starts only after the first one finished.
    let busy = "window.log = (window.log || []).concat('start'); await new Promise((r) => setTimeout(r, 3000)); \
                window.log.push('end'); return 'a done'";
    let first = {
        let stack = stack.clone();
        tokio::spawn(async move {
            stack
                .act(json!({ "action": "evaluate", "tabId": tab_a, "expression": busy }))
                .await
        })
    };
    tokio::time::sleep(Duration::from_millis(300)).await;
    let second = {
        let stack = stack.clone();
        tokio::spawn(async move {
            stack.act(json!({ "action": "evaluate", "tabId": tab_a, "expression": "return window.log.join(',')" })).await
        })
    };
    let other = stack
        .act(json!({ "action": "evaluate", "tabId": tab_b, "expression": "return document.title" }))
        .await;
    assert_eq!(other.expect("tab B")["value"], "Second fixture");
    assert!(
        !first.is_finished(),
        "tab B answered while tab A was still busy"
    );
    assert_eq!(first.await.unwrap().expect("first")["value"], "a done");
    assert_eq!(
        second.await.unwrap().expect("second")["value"],
        "start,end",
        "same tab: one at a time"
    );
}
