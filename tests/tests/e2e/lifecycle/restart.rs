//! End-to-end: a browser restart (PROTOCOL.md §2 `browserRunId`, §5 "Clients").
//! A worker restart keeps the browser's run, so a client's action without
//! `tabId` still goes to its current tab. A browser killed and started again
//! (a crash: no `session_ended` reached the backend) starts a new run, whose
//! tabIds are a new process's (Chrome keeps them unique within one run only),
//! so the backend forgets every client's tabs there: the client's next action
//! without `tabId` follows the extension's rules, as a new client's would,
//! instead of failing on its dead tab or reaching a tab that took its number.

use std::time::Duration;

use browser_bridge_tests::harness::Stack;
use serde_json::{Value, json};

use super::{extension, reconnected};

/// The tabIds `list_tabs` lists, with their URLs.
async fn tabs(stack: &Stack) -> Vec<(i64, String)> {
    let list = stack
        .act(json!({"action": "list_tabs"}))
        .await
        .expect("list_tabs");
    list["tabs"]
        .as_array()
        .expect("tabs")
        .iter()
        .map(|t| {
            let id = t["tabId"].as_i64().expect("tabId");
            (id, t["url"].as_str().unwrap_or_default().to_owned())
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_a_browser_restart_a_clients_action_without_tab_id_follows_the_rules_again() {
    let mut stack = Stack::start().await.expect("stack");
    let alice = "alice";
    let basic = stack.fixtures.url("basic.html");
    let opened = stack
        .act_as(alice, json!({"action": "navigate", "url": basic}))
        .await
        .expect("alice's first navigate");
    let old = opened["tabId"].as_i64().expect("tabId");
    let bobs = stack
        .act_as("bob", json!({"action": "navigate", "url": basic}))
        .await
        .expect("bob's first navigate");
    assert_ne!(bobs["tabId"], old, "bob has a tab of his own");
    let run = extension(&stack).await["browserRunId"].clone();
    assert!(run.is_string(), "hello carries browserRunId: {run}");

    // A worker restart is the same run: alice's current tab is still hers.
    let before = extension(&stack).await;
    stack
        .chromium
        .stop_extension_worker()
        .await
        .expect("stop the worker");
    let after = reconnected(&stack, &before, Duration::from_secs(10)).await;
    assert_eq!(after["browserRunId"], run, "a worker restart keeps the run");
    let title = json!({"action": "evaluate", "expression": "return document.title"});
    let same = stack.act_as(alice, title.clone()).await.expect("evaluate");
    assert_eq!(same["tabId"], old, "still alice's current tab");

    let client_id = extension(&stack).await["clientId"].clone();
    stack.restart_browser().await.expect("restart the browser");
    let now = extension(&stack).await;
    // The same browser to the backend (its extension's storage kept), in a new run.
    assert_eq!(
        now["clientId"], client_id,
        "the extension kept its clientId"
    );
    let now = &now["browserRunId"];
    assert!(
        now.is_string() && *now != run,
        "a new run: {run} then {now}"
    );
    // The person opens a page of their own.
    let second = stack.fixtures.url("second.html");
    stack
        .chromium
        .open_page(&second)
        .await
        .expect("a person's page");
    let people: Vec<(i64, String)> = tabs(&stack).await;

    let landed = stack
        .act_as(alice, json!({"action": "navigate", "url": basic}))
        .await
        .expect("alice's navigate after the restart");
    let tab = landed["tabId"].as_i64().expect("tabId");
    assert!(
        people.iter().all(|(id, _)| *id != tab),
        "alice's navigate landed in tab {tab}, which was open before it: {people:?}"
    );
    let after: Vec<(i64, String)> = tabs(&stack).await;
    for (id, url) in &people {
        let still = after.iter().find(|(t, _)| t == id).map(|(_, u)| u);
        assert_eq!(still, Some(url), "tab {id} was left as it was: {after:?}");
    }
    // Bob's dead tab is not a session either: his navigate gets a tab of its
    // own, not "several sessions" nor alice's.
    let his = stack
        .act_as("bob", json!({"action": "navigate", "url": basic}))
        .await
        .expect("bob's navigate after the restart");
    let his = his["tabId"].as_i64().expect("tabId");
    assert!(
        his != tab && people.iter().all(|(id, _)| *id != his),
        "bob's navigate landed in tab {his}: alice's is {tab}, the person's {people:?}"
    );
    let list = stack
        .act(json!({"action": "list_tabs"}))
        .await
        .expect("list");
    let client_of = |id: i64| {
        list["tabs"]
            .as_array()
            .and_then(|tabs| tabs.iter().find(|t| t["tabId"] == id))
            .map(|t| t["client"].clone())
    };
    assert_eq!(client_of(his), Some(json!("bob")), "{list}");
    assert_eq!(client_of(tab), Some(json!("alice")), "{list}");
    let title: Value = stack
        .eval(tab, "return document.title")
        .await
        .expect("eval");
    assert_eq!(title, "Basic fixture");
}
