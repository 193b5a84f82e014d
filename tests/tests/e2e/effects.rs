//! End-to-end: side effects reported, never waited on (PROTOCOL.md §5): dialogs,
//! opened tabs, file choosers, navigations started by a click; and `wait_for`.

use std::time::{Duration, Instant};

use browser_bridge_tests::harness::Stack;
use serde_json::{Value, json};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dialogs_opened_tabs_file_choosers_and_navigations() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack.open("effects.html", None).await.expect("navigate");
    let click = |selector: &str| json!({ "action": "click", "tabId": tab, "selector": selector });

    // A click that opens an alert returns at once with the dialog.
    let r = stack
        .act(click("#alert-btn"))
        .await
        .expect("click opening an alert");
    assert_eq!(r["dialog"], json!({ "type": "alert", "message": "Saved!" }));
    let blocked = stack
        .act(json!({ "action": "evaluate", "tabId": tab, "expression": "return 1" }))
        .await
        .unwrap_err();
    assert_eq!(blocked.code, "invalid_action", "{blocked}");
    assert!(blocked.message.contains("handle_dialog"), "{blocked}");
    let handled = stack
        .act(json!({ "action": "handle_dialog", "tabId": tab, "accept": true }))
        .await
        .expect("handle_dialog");
    assert_eq!(
        (handled["dialogType"].clone(), handled["message"].clone()),
        (json!("alert"), json!("Saved!"))
    );
    assert_eq!(
        stack
            .eval(tab, "return document.getElementById('after').textContent")
            .await
            .unwrap(),
        "after alert"
    );
    let none = stack
        .act(json!({ "action": "handle_dialog", "tabId": tab, "accept": true }))
        .await
        .unwrap_err();
    assert_eq!(none.code, "invalid_action", "{none}");

    let r = stack
        .act(click("#confirm-btn"))
        .await
        .expect("click opening a confirm");
    assert_eq!(r["dialog"]["type"], "confirm");
    stack
        .act(json!({ "action": "handle_dialog", "tabId": tab, "accept": true }))
        .await
        .expect("accept");
    assert_eq!(
        stack
            .eval(tab, "return document.getElementById('after').textContent")
            .await
            .unwrap(),
        "confirm:true"
    );

    // target=_blank: the new tab is reported and is a session at once.
    let r = stack
        .act(click("#newtab"))
        .await
        .expect("click target=_blank");
    let opened = r["openedTabs"].as_array().cloned().unwrap_or_default();
    assert_eq!(opened.len(), 1, "{r}");
    let new_tab = opened[0]["tabId"].as_i64().unwrap();
    let until = Instant::now() + Duration::from_secs(5);
    loop {
        let list = stack.act(json!({ "action": "list_tabs" })).await.unwrap();
        let entry = list["tabs"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["tabId"] == new_tab)
            .cloned();
        if entry.as_ref().is_some_and(|t| t["session"] == true) {
            break;
        }
        assert!(
            Instant::now() < until,
            "opened tab never became a session: {list}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let title = stack
        .eval(new_tab, "for (let i = 0; i < 50 && document.readyState !== 'complete'; i++) await new Promise((r) => setTimeout(r, 100)); return document.title")
        .await
        .unwrap();
    assert_eq!(title, "Second fixture");

    // A file input click: intercepted, reported, answered with upload_file.
    let r = stack.act(click("#file")).await.expect("click file input");
    assert_eq!(r["fileChooser"], json!({ "multiple": false }), "{r}");

    // A same-tab link: navigated, and the click waited for the load.
    let r = stack.act(click("#same")).await.expect("click link");
    assert_eq!(
        (r["navigated"].clone(), r["url"].clone()),
        (json!(true), json!(stack.fixtures.url("second.html")))
    );
    assert_eq!(
        stack.eval(tab, "return document.title").await.unwrap(),
        "Second fixture"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wait_for_states_and_timeout() {
    let stack = Stack::start().await.expect("stack");
    let tab = stack.open("wait.html", None).await.expect("navigate");
    let wait = |selector: &str, state: &str| json!({ "action": "wait_for", "tabId": tab, "selector": selector, "state": state, "timeoutMs": 5000 });
    let late = stack
        .act(json!({ "action": "wait_for", "tabId": tab, "selector": "#late" }))
        .await
        .expect("visible (default)");
    assert_eq!(late["action"], "wait_for");
    assert!(late["elapsedMs"].as_u64().is_some(), "{late}");
    for (selector, state) in [
        ("#visible-later", "visible"),
        ("#going", "detached"),
        ("#hide-later", "hidden"),
        ("#late", "attached"),
    ] {
        let r: Value = stack
            .act(wait(selector, state))
            .await
            .unwrap_or_else(|e| panic!("{selector} {state}: {e}"));
        assert_eq!(r["tabId"], tab);
    }
    let never = stack
        .act(json!({ "action": "wait_for", "tabId": tab, "selector": "#never", "timeoutMs": 500 }))
        .await
        .unwrap_err();
    assert_eq!(never.code, "timeout", "{never}");
    assert!(never.message.contains("#never"), "{never}");
}

/// Side effects that start one task after the input (a form submission, handlers
/// deferred with `setTimeout(…, 0)` or a microtask) are reported like immediate
/// ones; same-document changes are not navigations.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn effects_one_task_after_the_input() {
    let stack = Stack::start().await.expect("stack");
    let page = "effects/deferred.html";
    let tab = stack.open(page, None).await.expect("navigate");
    let click = |selector: &str| json!({ "action": "click", "tabId": tab, "selector": selector });
    let second = stack.fixtures.url("second.html");

    // A submit button: the form's navigation is awaited and reported.
    let r = stack.act(click("#submit")).await.expect("submit");
    assert_eq!(r["navigated"], true, "{r}");
    assert!(
        r["url"].as_str().unwrap().starts_with(&second),
        "{r} should be on {second}"
    );
    assert_eq!(
        stack.eval(tab, "return document.title").await.unwrap(),
        "Second fixture"
    );

    // Enter in a text field submits its form (implicit submission): press_key
    // returns after the navigation it caused.
    stack.open(page, Some(tab)).await.expect("back");
    stack
        .act(json!({ "action": "click", "tabId": tab, "selector": "#query" }))
        .await
        .expect("focus the field");
    stack
        .act(json!({ "action": "press_key", "tabId": tab, "key": "Enter" }))
        .await
        .expect("Enter");
    assert_eq!(
        stack.eval(tab, "return document.title").await.unwrap(),
        "Second fixture",
        "the implicit submission had loaded when press_key answered"
    );

    // A navigation deferred by a timer.
    stack.open(page, Some(tab)).await.expect("back");
    let r = stack.act(click("#later-nav")).await.expect("later nav");
    assert_eq!(
        (r["navigated"].clone(), r["url"].clone()),
        (json!(true), json!(second)),
        "{r}"
    );

    // Tabs opened one task or one microtask later.
    for selector in ["#later-open", "#then-open"] {
        stack.open(page, Some(tab)).await.expect("back");
        let r = stack.act(click(selector)).await.expect(selector);
        let opened = r["openedTabs"].as_array().cloned().unwrap_or_default();
        assert_eq!(opened.len(), 1, "{selector}: {r}");
        assert_eq!(
            opened[0]["url"],
            stack.fixtures.url("basic.html"),
            "{selector}: {r}"
        );
        assert_eq!(r["navigated"], false, "{selector}: {r}");
        let opened_tab = opened[0]["tabId"].as_i64().unwrap();
        stack
            .act(json!({ "action": "close_tab", "tabId": opened_tab }))
            .await
            .expect("close the opened tab");
    }

    // A dialog one task later: reported, and it blocks until handled.
    stack.open(page, Some(tab)).await.expect("back");
    let r = stack.act(click("#later-alert")).await.expect("later alert");
    assert_eq!(
        r["dialog"],
        json!({ "type": "alert", "message": "Later" }),
        "{r}"
    );
    stack
        .act(json!({ "action": "handle_dialog", "tabId": tab, "accept": true }))
        .await
        .expect("handle_dialog");
    assert_eq!(
        stack
            .eval(tab, "return document.getElementById('out').textContent")
            .await
            .unwrap(),
        "alerted"
    );

    // pushState and a fragment link keep the document: not navigated, uids kept.
    let extract = stack
        .act(json!({ "action": "extract", "tabId": tab }))
        .await
        .expect("extract");
    let push = browser_bridge_tests::harness::uid_of(&extract, "button", "Push state");
    let r = stack
        .act(json!({ "action": "click", "tabId": tab, "uid": push }))
        .await
        .expect("pushState");
    assert_eq!(r["navigated"], false, "{r}");
    assert!(r["url"].as_str().unwrap().ends_with("?pushed=1"), "{r}");
    let r = stack.act(click("#hash")).await.expect("fragment link");
    assert_eq!(r["navigated"], false, "{r}");
    assert!(r["url"].as_str().unwrap().ends_with("#details"), "{r}");
    stack
        .act(json!({ "action": "click", "tabId": tab, "uid": push }))
        .await
        .expect("the uid still names the button");
}
