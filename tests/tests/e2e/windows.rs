//! End-to-end: each client's agent window (PROTOCOL.md §3 `client`, §10). A
//! client's new tabs open in a minimized window of its own, reused for its
//! later tabs, made again when the person closed it, kept across a worker
//! restart; the popup lists the sessions by client.

use std::time::Duration;

use browser_bridge_tests::harness::Stack;
use serde_json::{Value, json};

use crate::clients::counter;

/// CDP `Browser.getWindowForTarget` of the page at `url`: `(windowId, windowState)`.
async fn window_of_page(stack: &Stack, url: &str) -> (i64, String) {
    let targets = stack.chromium.targets().await.expect("targets");
    let target = targets
        .iter()
        .find(|t| t["type"] == "page" && t["url"] == url)
        .unwrap_or_else(|| panic!("no page at {url}: {targets:?}"));
    let window = stack
        .chromium
        .cdp(
            "Browser.getWindowForTarget",
            json!({"targetId": target["targetId"]}),
            None,
        )
        .await
        .expect("Browser.getWindowForTarget");
    (
        window["windowId"].as_i64().expect("windowId"),
        window["bounds"]["windowState"]
            .as_str()
            .unwrap_or_default()
            .to_owned(),
    )
}

/// `open_tab` as `client`: `(tabId, windowId)`, the window checked with CDP,
/// which sees it minimized.
async fn open_as(stack: &Stack, client: &str, who: &str) -> (i64, i64) {
    let url = counter(stack, who);
    let opened = stack
        .act_as(client, json!({"action": "open_tab", "url": url}))
        .await
        .unwrap_or_else(|e| panic!("{client} opens {who}: {e}"));
    let (tab, window) = (
        opened["tabId"].as_i64().unwrap(),
        opened["windowId"].as_i64().unwrap(),
    );
    assert_eq!(
        window_of_page(stack, &url).await,
        (window, "minimized".to_owned()),
        "{client}'s tab {who}: CDP sees it in the window the result names, minimized"
    );
    (tab, window)
}

/// Waits until the extension has a connection other than `before` (its
/// `connectionId` in `/v1/status`).
async fn reconnected(stack: &Stack, before: &Value) {
    let until = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        let now = stack.status().await.expect("status")["extension"]["connectionId"].clone();
        if now.is_string() && &now != before {
            return;
        }
        assert!(
            std::time::Instant::now() < until,
            "the extension did not reconnect"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Each client's new tabs open in its own minimized agent window (PROTOCOL.md
/// §10): two clients, two windows, each reused, neither the person's; a
/// client's first `navigate` opens in a window of its own too; a window the
/// person closed is made again; the windows outlive a worker restart; the
/// popup lists the sessions by client.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_client_opens_its_tabs_in_a_window_of_its_own() {
    let stack = Stack::start().await.expect("stack");
    let (a1, alice) = open_as(&stack, "alice", "alice-1").await;
    let (b1, bob) = open_as(&stack, "bob", "bob-1").await;
    let (a2, alice_again) = open_as(&stack, "alice", "alice-2").await;
    assert_ne!(alice, bob, "two clients, two windows");
    assert_eq!(alice_again, alice, "alice's window is reused");
    let person = stack
        .act_as("lister", json!({"action": "list_tabs"}))
        .await
        .expect("list_tabs");
    let tabs = person["tabs"].as_array().unwrap();
    let person_tab = tabs
        .iter()
        .find(|t| t["agentWindow"] == false)
        .unwrap_or_else(|| panic!("the person's own tab: {person}"));
    let person_window = person_tab["windowId"].as_i64().unwrap();
    assert!(person_window != alice && person_window != bob, "{person}");
    for (tab, window, client) in [(a1, alice, "alice"), (a2, alice, "alice"), (b1, bob, "bob")] {
        let listed = tabs
            .iter()
            .find(|t| t["tabId"] == tab)
            .unwrap_or_else(|| panic!("tab {tab}: {person}"));
        assert_eq!(
            (
                &listed["windowId"],
                &listed["agentWindow"],
                &listed["client"]
            ),
            (&json!(window), &json!(true), &json!(client)),
            "{listed}"
        );
    }

    // A client whose first action is a navigate: its tab is in its own window.
    let carol_url = counter(&stack, "carol");
    let navigated = stack
        .act_as("carol", json!({"action": "navigate", "url": carol_url}))
        .await
        .expect("carol's navigate");
    let carol_tab = navigated["tabId"].as_i64().unwrap();
    let (carol, state) = window_of_page(&stack, &carol_url).await;
    assert!(
        ![alice, bob, person_window].contains(&carol) && state == "minimized",
        "carol's tab {carol_tab} is in window {carol} ({state})"
    );

    // The person closes bob's window: bob's next tab opens in a new one.
    let bob_target = stack
        .chromium
        .targets()
        .await
        .expect("targets")
        .into_iter()
        .find(|t| t["url"] == counter(&stack, "bob-1"))
        .expect("bob's page");
    stack
        .chromium
        .close_target(bob_target["targetId"].as_str().unwrap())
        .await
        .expect("close bob's only tab, and so its window");
    stack
        .wait_event(Duration::from_secs(5), |e| {
            e["event"] == "session_ended" && e["tabId"] == b1
        })
        .await
        .expect("bob's session ended");
    let (_, bob_new) = open_as(&stack, "bob", "bob-2").await;
    assert!(
        ![alice, bob, carol, person_window].contains(&bob_new),
        "bob's window was made again: {bob_new}"
    );

    // The windows outlive the worker: a restarted worker puts alice's next tab
    // in alice's window.
    let before = stack.status().await.expect("status")["extension"]["connectionId"].clone();
    stack
        .chromium
        .stop_extension_worker()
        .await
        .expect("stop the worker");
    reconnected(&stack, &before).await;
    let (_, alice_after) = open_as(&stack, "alice", "alice-3").await;
    assert_eq!(alice_after, alice, "alice's window after a worker restart");

    // The popup lists the sessions under each client's name.
    let (_, popup) = stack.popup().await.expect("popup");
    let groups = stack
        .chromium
        .eval(
            &popup,
            "await new Promise((r) => setTimeout(r, 1200)); \
             return [...document.querySelectorAll('#sessions li')].map((li) => \
               li.classList.contains('client') ? '# ' + li.textContent : li.dataset.client)",
        )
        .await
        .expect("the popup's list");
    let rows: Vec<&str> = groups
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    for client in ["alice", "bob", "carol"] {
        let heading = format!("# {client}");
        let at = rows
            .iter()
            .position(|r| *r == heading)
            .unwrap_or_else(|| panic!("no group for {client}: {rows:?}"));
        assert_eq!(
            rows.iter().filter(|r| **r == heading).count(),
            1,
            "one group per client: {rows:?}"
        );
        let members = rows[at + 1..]
            .iter()
            .take_while(|r| !r.starts_with("# "))
            .filter(|r| **r == client)
            .count();
        let expected = match client {
            "alice" => 3,
            _ => 1,
        };
        assert_eq!(members, expected, "{client}'s sessions: {rows:?}");
    }
}
