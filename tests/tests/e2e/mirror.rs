//! End-to-end: the sessions' mirror in `chrome.storage.session` follows the
//! actions (PROTOCOL.md §10 "Service-worker restarts"). The extension writes it
//! within 200 ms of an action's answer (`ACTION_WRITE_LAG_MS`,
//! `extension/src/sessions/persist.rs`), one write for a burst, so that the write
//! does not slow the next request; a worker stopped after that hands its
//! successor the whole burst.

use std::time::Duration;

use browser_bridge_tests::harness::Stack;
use serde_json::json;

/// The extension's `ACTION_WRITE_LAG_MS` (ms) with room for a busy machine.
const AFTER_THE_LAG: Duration = Duration::from_millis(200 + 800);

/// Opens a tab, runs a burst of 20 `evaluate`s on it, waits `pause`, stops the
/// worker when `restart`, closes the tab; its `session_ended` `actionCount`.
async fn burst_then_close(stack: &Stack, restart: bool) -> u64 {
    let tab = stack.open("basic.html", None).await.expect("open");
    for i in 0..20 {
        let r = stack
            .eval(tab, &format!("return {i}"))
            .await
            .expect("evaluate");
        assert_eq!(r, i);
    }
    tokio::time::sleep(AFTER_THE_LAG).await;
    if restart {
        stack
            .chromium
            .stop_extension_worker()
            .await
            .expect("stop the worker");
    }
    // The request waits for the new worker, which takes the session back.
    stack
        .act(json!({ "action": "close_tab", "tabId": tab }))
        .await
        .expect("close_tab");
    let ended = stack
        .wait_event(Duration::from_secs(10), |e| {
            e["event"] == "session_ended" && e["tabId"] == tab
        })
        .await
        .expect("session_ended");
    ended["actionCount"].as_u64().expect("actionCount")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_burst_of_actions_reaches_the_mirror_within_its_lag() {
    let stack = Stack::start().await.expect("stack");
    let kept = burst_then_close(&stack, false).await;
    assert!(kept >= 20, "the burst counted: {kept}");
    let restored = burst_then_close(&stack, true).await;
    assert_eq!(
        restored, kept,
        "a worker stopped after the lag hands its successor the burst's count"
    );
}
