//! End-to-end: pairing and the connection state machine (PROTOCOL.md §2): a wrong
//! token is rejected, the extension goes fatal and shows why in its popup, and
//! re-pairing with the right token reconnects at once.

use std::time::{Duration, Instant};

use browser_bridge_tests::chromium::EXTENSION_ID;
use browser_bridge_tests::harness::Stack;

/// Opens the pairing link as a user would and waits for the page's measured outcome
/// (`data-outcome`: `connected` / `fatal` / `pending`); returns `(outcome, status
/// text, target id)` with the tab still open.
async fn pair(stack: &Stack, token: &str) -> (String, String, String) {
    let link = format!(
        "chrome-extension://{EXTENSION_ID}/pair.html#token={token}&backendUrl={}",
        stack.ws_url.replace(':', "%3A").replace('/', "%2F")
    );
    let (target, session) = stack.chromium.open_page(&link).await.expect("pairing page");
    let outcome = "for (let i = 0; i < 200 && !(document.body && document.body.dataset.outcome); i++) \
                   await new Promise((r) => setTimeout(r, 50)); \
                   return [document.body.dataset.outcome, document.getElementById('status').textContent]";
    let shown = stack
        .chromium
        .eval(&session, outcome)
        .await
        .expect("pairing outcome");
    (
        shown[0].as_str().unwrap_or_default().to_owned(),
        shown[1].as_str().unwrap_or_default().to_owned(),
        target,
    )
}

async fn connected(stack: &Stack) -> bool {
    stack
        .status()
        .await
        .map(|s| s["connected"] == true)
        .unwrap_or(false)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wrong_token_is_fatal_until_re_paired() {
    let stack = Stack::start().await.expect("stack");
    assert!(stack.ack_ms > 0);

    let (outcome, text, target) = pair(&stack, "not-the-token").await;
    assert_eq!(outcome, "fatal", "{text}");
    assert!(
        text.contains("unauthorized"),
        "the reject reason is shown: {text}"
    );
    stack.chromium.close_target(&target).await.expect("close");
    let (_popup_target, popup) = stack.popup().await.expect("popup");
    let fatal = "for (let i = 0; i < 100 && document.getElementById('state').textContent !== 'fatal'; i++) \
                 await new Promise((r) => setTimeout(r, 50)); \
                 return [document.getElementById('state').textContent, document.getElementById('reason').textContent]";
    let shown = stack
        .chromium
        .eval(&popup, fatal)
        .await
        .expect("popup state");
    assert_eq!(shown[0], "fatal", "{shown}");
    assert!(
        shown[1].as_str().unwrap().contains("unauthorized"),
        "{shown}"
    );
    assert!(!connected(&stack).await, "the backend has no extension");
    let e = stack
        .act(serde_json::json!({ "action": "list_tabs" }))
        .await
        .unwrap_err();
    assert_eq!(e.code, "not_connected", "{e}");

    let (outcome, text, _pairing_tab) = pair(&stack, &stack.token.clone()).await;
    assert_eq!(outcome, "connected", "{text}");
    wait_connected(&stack, Duration::from_secs(15)).await;
    let tabs = stack
        .act(serde_json::json!({ "action": "list_tabs" }))
        .await
        .expect("list_tabs after re-pairing");
    let tabs = tabs["tabs"].as_array().expect("tabs").clone();
    assert!(!tabs.is_empty());
    // The pairing tab is still open: its URL and title must not carry the token.
    let shown = serde_json::to_string(&tabs).unwrap();
    assert!(
        shown.contains("pair.html"),
        "the pairing tab is listed: {shown}"
    );
    assert!(
        !shown.contains(&stack.token),
        "list_tabs leaks the pairing token: {shown}"
    );
}

/// MV3 evicts an idle worker after 30 s: the 20 s ping
/// keeps the same connection alive with no session and no traffic from the agent.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_worker_keeps_its_connection() {
    let stack = Stack::start().await.expect("stack");
    let first = stack.status().await.expect("status")["extension"]["connectionId"].clone();
    assert!(first.is_string(), "connected with an id: {first}");
    tokio::time::sleep(Duration::from_secs(45)).await;
    let later = stack.status().await.expect("status");
    assert_eq!(
        later["extension"]["connectionId"], first,
        "same connection after 45 s idle: {later}"
    );
    let tabs = stack
        .act(serde_json::json!({ "action": "list_tabs" }))
        .await
        .expect("list_tabs after idling");
    assert!(tabs["tabs"].is_array());
}

async fn wait_connected(stack: &Stack, within: Duration) {
    let until = Instant::now() + within;
    while !connected(stack).await {
        assert!(
            Instant::now() < until,
            "no reconnect within {within:?}; backend log:\n{}",
            stack.backend_log()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The backend goes away and comes back on the same address: the extension
/// reconnects by itself (backoff 1 s doubling, at most 30 s).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reconnects_after_a_backend_restart() {
    let mut stack = Stack::start().await.expect("stack");
    let tab = stack.open("basic.html", None).await.expect("navigate");
    let before = stack.status().await.unwrap()["extension"]["connectionId"].clone();
    stack.restart_backend().await.expect("restart");
    wait_connected(&stack, Duration::from_secs(40)).await;
    let after = stack.status().await.unwrap()["extension"]["connectionId"].clone();
    assert_ne!(before, after, "a new connection");
    // The session survived on the extension's side.
    assert_eq!(
        stack
            .eval(tab, "return document.title")
            .await
            .expect("same tab"),
        "Basic fixture"
    );
}
