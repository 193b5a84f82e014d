//! End-to-end: sessions across a worker restart (PROTOCOL.md §10 "Service-worker
//! restarts"): they come back with their uids and their open dialog; a uid issued
//! right before the stop never names another element; and the mirror in
//! `chrome.storage.session` follows the actions, within 200 ms of an action's
//! answer (`ACTION_WRITE_LAG_MS`, `extension/src/sessions/persist.rs`) and at once
//! when it changed uids, so that a worker stopped after that hands its successor
//! the whole burst.

use std::time::Duration;

use browser_bridge_tests::harness::{Stack, uid_named};
use serde_json::{Value, json};

use super::{extension, reconnected, stop_and_time};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sessions_survive_with_their_uids() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack.open("basic.html", None).await.expect("navigate");
    let first = stack
        .act(json!({ "action": "extract", "tabId": tab }))
        .await
        .expect("extract");
    let old = uid_named(&first, "Second page");
    stack
        .open("second.html", Some(tab))
        .await
        .expect("navigate");
    let second = stack
        .act(json!({ "action": "extract", "tabId": tab }))
        .await
        .expect("extract");
    let back = uid_named(&second, "Back to basic");
    assert_ne!(old, back);

    stop_and_time(&stack, Duration::from_secs(5)).await;

    // The session is the same: no tabId needed, its uids resolve, the old
    // document's uid is stale (a fresh cache would call it never issued).
    let hovered = stack
        .act(json!({ "action": "hover", "uid": back }))
        .await
        .expect("the uid issued before the restart");
    assert_eq!(hovered["tabId"], tab);
    let stale = stack
        .act(json!({ "action": "hover", "uid": old }))
        .await
        .unwrap_err();
    assert_eq!(stale.code, "element_stale", "{stale}");
    let again = stack
        .act(json!({ "action": "extract", "tabId": tab }))
        .await
        .expect("extract");
    assert_eq!(
        uid_named(&again, "Back to basic"),
        back,
        "same node, same uid"
    );
    let events = stack.events().await.expect("events");
    assert!(
        !events.iter().any(|e| e["event"] == "session_ended"),
        "the session was not ended: {events:?}"
    );
    let started = events
        .iter()
        .filter(|e| e["event"] == "session_started")
        .count();
    assert_eq!(started, 1, "no second session: {events:?}");

    // A session whose tab closed while no worker ran ends with `tab_closed`.
    let targets = stack.chromium.targets().await.expect("targets");
    let page = targets
        .iter()
        .find(|t| t["type"] == "page" && t["url"] == stack.fixtures.url("second.html"))
        .expect("the session's page")["targetId"]
        .as_str()
        .unwrap()
        .to_owned();
    let before = extension(&stack).await;
    stack.chromium.stop_extension_worker().await.expect("stop");
    stack
        .chromium
        .close_target(&page)
        .await
        .expect("close the tab");
    reconnected(&stack, &before, Duration::from_secs(5)).await;
    let ended = stack
        .wait_event(Duration::from_secs(5), |e| {
            e["event"] == "session_ended" && e["tabId"] == tab
        })
        .await
        .expect("session_ended");
    assert_eq!(ended["reason"], "tab_closed", "{ended}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_open_dialog_survives_the_restart() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack.open("effects.html", None).await.expect("navigate");
    let r = stack
        .act(json!({ "action": "click", "tabId": tab, "selector": "#alert-btn" }))
        .await
        .expect("click opening an alert");
    assert_eq!(r["dialog"]["type"], "alert");
    stop_and_time(&stack, Duration::from_secs(5)).await;
    // The new worker knows the dialog: it refuses at once instead of hanging on it.
    let blocked = stack
        .act(json!({ "action": "evaluate", "tabId": tab, "expression": "return 1" }))
        .await
        .unwrap_err();
    assert_eq!(blocked.code, "invalid_action", "{blocked}");
    assert!(blocked.message.contains("handle_dialog"), "{blocked}");
    let handled = stack
        .act(json!({ "action": "handle_dialog", "tabId": tab, "accept": true }))
        .await
        .expect("handle_dialog after the restart");
    assert_eq!(handled["message"], "Saved!");
    assert_eq!(
        stack
            .eval(tab, "return document.getElementById('after').textContent")
            .await
            .expect("act"),
        "after alert"
    );
}

/// §6: a uid names one node for the session's life, also when the worker stops
/// right after the answer that issued it (before its lazy write of the sessions
/// could land). Each round adds a button, extracts, stops the worker at once, then
/// acts on the new uid: it presses that button or is `element_stale`, never
/// another; and no extract ever lists one uid for two names.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_uid_issued_just_before_the_worker_stops_never_names_another_element() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack.open("basic.html", None).await.expect("navigate");
    let mut named: std::collections::HashMap<String, String> = Default::default();
    let mut note = |extract: &Value| {
        for e in extract["elements"].as_array().expect("elements") {
            let (uid, name) = (e["uid"].as_str().unwrap(), e["name"].as_str().unwrap());
            let first = named
                .entry(uid.to_owned())
                .or_insert_with(|| name.to_owned());
            assert_eq!(first, name, "{uid} named two elements");
        }
    };
    stack
        .eval(tab, "window.hits = []; return true")
        .await
        .expect("eval");
    for round in 0..4 {
        let add = format!(
            "const b = document.createElement('button'); b.textContent = 'Added {round}'; \
             b.onclick = () => window.hits.push({round}); document.body.prepend(b); return true"
        );
        stack.eval(tab, &add).await.expect("add a button");
        let read = stack
            .act(json!({ "action": "extract", "tabId": tab }))
            .await
            .expect("extract");
        let before = extension(&stack).await;
        stack.chromium.stop_extension_worker().await.expect("stop");
        note(&read);
        let added = uid_named(&read, &format!("Added {round}"));
        reconnected(&stack, &before, Duration::from_secs(5)).await;
        match stack
            .act(json!({ "action": "click", "tabId": tab, "uid": added }))
            .await
        {
            Ok(_) => {
                let hits = stack.eval(tab, "return window.hits").await.expect("hits");
                assert_eq!(
                    hits.as_array().and_then(|h| h.last()),
                    Some(&json!(round)),
                    "{added} pressed another button: {hits}"
                );
            }
            Err(e) => assert_eq!(e.code, "element_stale", "{e}"),
        }
        let again = stack
            .act(json!({ "action": "extract", "tabId": tab }))
            .await
            .expect("extract");
        note(&again);
    }
}

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
